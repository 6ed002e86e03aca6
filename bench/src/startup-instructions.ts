/**
 * Startup in instructions (`BENCH_STARTUP_INSTRUCTIONS=1` in `stdio.ts`, valgrind installed): each server run once
 * under callgrind, its input the handshake (in its era) and the first `tools/call add`, then its end; the
 * instructions executed from spawn to exit (all of the process's threads). Deterministic to about 1% between runs,
 * and not disturbed by other load, which the wall and CPU times on a shared machine are.
 */
import { spawnSync } from "node:child_process"
import * as Envelope from "./envelope.js"
import { BenchFailure, ratio, table } from "./proc.js"

/** Millions of instructions `file args` executes answering `envelope`'s handshake and first call, then exiting. */
export const instructions = (
  envelope: Envelope.Envelope,
  file: string,
  args: ReadonlyArray<string>
): number => {
  const input = [
    ...(envelope.handshake === undefined ? [] : [envelope.handshake.initialize, envelope.handshake.initialized]),
    envelope.addCall(1)
  ].map((line) => line + "\n").join("")
  const run = spawnSync("valgrind", [
    "--tool=callgrind",
    "--callgrind-out-file=/dev/null",
    // V8 writes the code it runs.
    "--smc-check=all-non-file",
    process.execPath,
    file,
    ...args
  ], { input, encoding: "utf8", timeout: 900_000, maxBuffer: 16 * 1024 * 1024 })
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr ?? "")
  const answered = (run.stdout ?? "").split("\n").some((line) => Envelope.isGoodAdd(line, 1))
  if (refs === null || !answered) throw new BenchFailure(`${file} under callgrind: ${run.stdout}\n${run.stderr}`)
  return Number(refs[1]!.replaceAll(",", "")) / 1e6
}

/** Where the servers of `rows` are, by their index (-1: not run); `skip` is left uncounted (apps/everything). */
export interface At {
  readonly sdk: number
  readonly floor: number
  readonly compiled: number
  readonly floorPacked: number
  readonly packed: number
  /** The `BENCH_PACKED_BASE_DIR` project's floor and server (-1: not run). */
  readonly floorBase: number
  readonly base: number
  readonly skip: number
}

/**
 * With `BENCH_STARTUP_INSTRUCTIONS=1`: each server once under callgrind, and the tsc-compiled servers above their
 * floors in SDK startups, by instructions; otherwise nothing.
 */
export const rows = (
  envelope: Envelope.Envelope,
  servers: ReadonlyArray<{ readonly name: string; readonly file: string; readonly args: ReadonlyArray<string> }>,
  at: At
): ReadonlyArray<string> => {
  if (process.env.BENCH_STARTUP_INSTRUCTIONS !== "1") return []
  const counted = servers.map((server, s) =>
    s === at.skip ? Number.NaN : instructions(envelope, server.file, server.args)
  )
  const sdk = counted[at.sdk]!
  const above = (s: number, floor: number) => ((counted[s]! - counted[floor]!) / sdk).toFixed(2)
  return table([
    ["server (callgrind, one run each)", "M instructions", "/ SDK"],
    ...servers.flatMap((server, s) =>
      Number.isNaN(counted[s]) ? [] : [[server.name, counted[s]!.toFixed(0), ratio(counted[s]! / sdk)]]
    ),
    ["ours (tsc-compiled, workspace dist) above the floor, in SDK startups", above(at.compiled, at.floor), ""],
    ...(at.packed >= 0
      ? [[
        "ours (tsc-compiled, packed packages) above its floor, in SDK startups",
        above(at.packed, at.floorPacked),
        "≤ 1.30"
      ]]
      : []),
    ...(at.base >= 0
      ? [[
        "ours (tsc-compiled, BENCH_PACKED_BASE_DIR's packages) above its floor, in SDK startups",
        above(at.base, at.floorBase),
        ""
      ]]
      : [])
  ])
}
