/**
 * The http(s) agent of the OTLP span exporter (`NodeTelemetry`), which the telemetry layer shuts
 * on the way out so that the exporter neither retries against a collector that is not there nor
 * holds the process open:
 *
 * - `closing()` (the layer is being released, the last spans are about to be sent): from then on
 *   a connection that cannot be made (refused, no route, unknown host) fails with an error the
 *   exporter does not retry (`ECANCELED`), where it would otherwise try again after a second or
 *   more, up to its 10-second timeout;
 * - `close()` (the last export had its time): every connection is destroyed, the exports on them
 *   fail the same way, and none is opened again. The exporter's timers and sockets go with them,
 *   so a process that ends by itself (a stdio server whose input ended, a CLI command) is not
 *   kept alive for seconds by an export that will never be answered.
 *
 * TLS is the exporter's own: the certificates of `OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`,
 * `…_CLIENT_CERTIFICATE`, `…_CLIENT_KEY` (else the same without `TRACES_`), read as the OTLP
 * exporter reads them (a custom agent replaces the one it would make from them). Connections are
 * kept alive between exports, as with the exporter's own agent.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import type * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"

/** @internal */
export interface ExportAgent {
  /** The exporter's `httpAgentOptions`: the agent for `protocol` (`http:` or `https:`), made on first use. */
  readonly agentFor: (protocol: string) => Promise<http.Agent>
  /** From now on a connection that fails is not retried. */
  readonly closing: () => void
}

/** What the exporter sees of a connection given up at exit: a code it does not retry. */
const abandoned = (cause: unknown): Error =>
  cause instanceof Error && "code" in cause && cause.code === "ECANCELED"
    ? cause
    : Object.assign(
      new Error(
        `OTLP export abandoned at exit${cause instanceof Error ? `: ${cause.message}` : ""}`,
        { cause }
      ),
      { code: "ECANCELED" }
    )

/** The contents of the file the variable (signal's own first) names, as the OTLP exporter reads it. */
const fileOf = (variable: string, warnings: Array<string>): Buffer | undefined => {
  const own = process.env[`OTEL_EXPORTER_OTLP_TRACES_${variable}`]?.trim()
  const shared = process.env[`OTEL_EXPORTER_OTLP_${variable}`]?.trim()
  const file = own !== undefined && own !== "" ? own : shared !== undefined && shared !== "" ? shared : undefined
  if (file === undefined) return undefined
  try {
    return fs.readFileSync(path.resolve(process.cwd(), file))
  } catch (cause) {
    warnings.push(
      `cannot read ${file} (OTEL_EXPORTER_OTLP_…${variable}): ${cause instanceof Error ? cause.message : String(cause)}`
    )
    return undefined
  }
}

/**
 * An agent for the span exporter, closed (`close()` above) when the scope closes. `warnings`
 * receives what could not be read of the TLS variables.
 *
 * @internal
 */
export const make = (warnings: Array<string>): Effect.Effect<ExportAgent, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => agentOf(warnings)), ({ close }) => Effect.sync(close)),
    ({ agentFor, closing }) => ({ agentFor, closing })
  )

const agentOf = (warnings: Array<string>) => {
  const tls: Record<string, Buffer> = {}
  const variables = [["ca", "CERTIFICATE"], ["cert", "CLIENT_CERTIFICATE"], ["key", "CLIENT_KEY"]] as const
  for (const [option, variable] of variables) {
    const contents = fileOf(variable, warnings)
    if (contents !== undefined) tls[option] = contents
  }
  /** `open`, then `closing` (failed connections are final), then `closed` (nothing connects). */
  const state = { phase: "open" as "open" | "closing" | "closed" }
  const sockets = new Set<net.Socket>()
  const agents: Array<http.Agent> = []
  const agentFor = async (protocol: string): Promise<http.Agent> => {
    const { Agent } = protocol === "https:" ? await import("node:https") : await import("node:http")
    const agent = new Agent({ keepAlive: true, ...(protocol === "https:" ? tls : {}) })
    const connect = agent.createConnection.bind(agent)
    // The socket is handed over once connected (through the callback, as Node's agent allows), so
    // that a connection that fails reaches the request with the error chosen here.
    agent.createConnection = (options, callback) => {
      // Node's agent calls back with the error alone when no socket could be made (`oncreate(err)`
      // in `Agent.prototype.createSocket`); the types ask for a stream with every call.
      const oncreate = callback as ((error: Error | null, socket?: net.Socket) => void) | undefined
      // Not called by Node's agent (it always gives a callback): handed over as it is made.
      if (oncreate === undefined) return connect(options)
      if (state.phase === "closed") {
        oncreate(abandoned(undefined))
        return undefined
      }
      const socket = connect(options)
      // Node's agents make a `net.Socket` (a `tls.TLSSocket` for https); anything else goes as it is.
      if (!(socket instanceof net.Socket)) return socket
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
      const failed = (error: Error) => {
        socket.off("connect", connected)
        oncreate(state.phase === "open" ? error : abandoned(error))
      }
      const connected = () => {
        socket.off("error", failed)
        oncreate(null, socket)
      }
      socket.once("error", failed)
      socket.once("connect", connected)
      return undefined
    }
    agents.push(agent)
    return agent
  }
  return {
    agentFor,
    closing: () => {
      if (state.phase === "open") state.phase = "closing"
    },
    close: () => {
      state.phase = "closed"
      for (const socket of sockets) {
        // A kept-alive socket no request holds has no listener of its own for the error.
        socket.on("error", () => undefined)
        socket.destroy(abandoned(undefined))
      }
      for (const agent of agents) agent.destroy()
    }
  }
}
