/**
 * The figures each benchmark hands to `all.ts` for the final summary: when `BENCH_SUMMARY`
 * names a file, rows are appended to it as JSON lines; run alone, a benchmark only prints its
 * own tables.
 */
import { appendFileSync } from "node:fs"

export interface Row {
  /** The benchmark, e.g. `http`. */
  readonly section: string
  readonly label: string
  readonly value: string
  /** What we aim for, e.g. `≥ 2x`; absent for plain figures. */
  readonly target?: string
  readonly met?: boolean
}

export const record = (rows: ReadonlyArray<Row>): void => {
  const file = process.env.BENCH_SUMMARY
  if (file === undefined || file === "" || rows.length === 0) return
  appendFileSync(file, rows.map((row) => JSON.stringify(row)).join("\n") + "\n")
}

/** A row with a target: `value` shown as `shown`, met when `value op threshold`. */
export const targetRow = (
  section: string,
  label: string,
  value: number,
  shown: string,
  op: "≥" | "≤" | "<",
  threshold: number,
  thresholdShown: string
): Row => ({
  section,
  label,
  value: shown,
  target: `${op} ${thresholdShown}`,
  met: Number.isFinite(value) && (op === "≥" ? value >= threshold : op === "≤" ? value <= threshold : value < threshold)
})

export const mark = (met: boolean | undefined): string => (met === undefined ? "" : met ? "met" : "NOT MET")
