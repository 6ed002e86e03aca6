/**
 * What a heap grew by, between two V8 heap snapshots (`heap-snapshot` of `control.ts`, e.g. from
 * `listen.ts` with `BENCH_HEAP_SNAPSHOTS=<dir>`): the self size and count of the objects by kind
 * and constructor (or function, for closures), after minus before, largest first; with `--per N`
 * also per unit (per listen, per session).
 *
 * `node dist/heap.js <before.heapsnapshot> <after.heapsnapshot> [--per N] [--top N]`
 */
import { readFileSync } from "node:fs"
import { table } from "./proc.js"

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly node_types: ReadonlyArray<ReadonlyArray<string> | string>
    }
  }
  readonly nodes: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

interface Tally {
  size: number
  count: number
}

/** Self size and count by `<type> <name>`. */
const tally = (file: string): Map<string, Tally> => {
  const data = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const fields = data.snapshot.meta.node_fields
  const types = data.snapshot.meta.node_types[0] as ReadonlyArray<string>
  const width = fields.length
  const typeAt = fields.indexOf("type")
  const nameAt = fields.indexOf("name")
  const sizeAt = fields.indexOf("self_size")
  const out = new Map<string, Tally>()
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]]
    // Strings by kind only: their text is not a name.
    const name = type === "string" || type === "concatenated string" || type === "sliced string" || type === "number"
      ? ""
      : data.strings[data.nodes[i + nameAt]]
    const key = `${type} ${name.length > 80 ? name.slice(0, 77) + "..." : name}`.trimEnd()
    const t = out.get(key) ?? { size: 0, count: 0 }
    t.size += data.nodes[i + sizeAt]
    t.count++
    out.set(key, t)
  }
  return out
}

const main = () => {
  const args = process.argv.slice(2)
  const option = (name: string): string | undefined => {
    const at = args.indexOf(name)
    return at >= 0 ? args[at + 1] : undefined
  }
  const per = Number(option("--per") ?? 1)
  const top = Number(option("--top") ?? 40)
  const files = args.filter((arg, i) => !arg.startsWith("--") && (i === 0 || !args[i - 1].startsWith("--")))
  if (files.length !== 2) {
    process.stderr.write("usage: node dist/heap.js <before.heapsnapshot> <after.heapsnapshot> [--per N] [--top N]\n")
    process.exit(2)
  }
  const before = tally(files[0])
  const after = tally(files[1])
  const keys = new Set([...before.keys(), ...after.keys()])
  const diff = [...keys].map((key) => {
    const a = before.get(key) ?? { size: 0, count: 0 }
    const b = after.get(key) ?? { size: 0, count: 0 }
    return { key, size: b.size - a.size, count: b.count - a.count }
  }).sort((x, y) => y.size - x.size)
  const total = diff.reduce((sum, d) => sum + d.size, 0)
  const unit = per === 1 ? "" : ` per ${per === 1 ? "" : "unit"}`
  process.stdout.write(
    [
      `heap growth: ${(total / 1024).toFixed(0)} KB in all` +
      (per === 1 ? "" : `, ${(total / per / 1024).toFixed(2)} KB per unit (${per} units)`),
      ...table([
        ["kind and constructor", "size", "count", `bytes${unit}`, `count${unit}`, "% of growth"],
        ...diff.slice(0, top).map((d) => [
          d.key,
          `${(d.size / 1024).toFixed(1)} KB`,
          String(d.count),
          (d.size / per).toFixed(0),
          (d.count / per).toFixed(1),
          `${((d.size / total) * 100).toFixed(1)}%`
        ])
      ])
    ].join("\n") + "\n"
  )
}

main()
