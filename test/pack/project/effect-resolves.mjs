// `node --import ./effect-resolves.mjs dist/server.js`: at exit, writes every bare `effect/…` specifier the process
// resolved through the ES module loader, with the module that imported it (`specifier parentURL`, one a line), to
// the file named by EFFECT_RESOLVES_FILE. For the Pack test: Node 22 reads effect's 40 kB `exports` again for each
// one, so the published layout resolves each from one module of each package of ours (its effect hubs).
import { writeFileSync } from "node:fs"
import { register } from "node:module"
import { MessageChannel } from "node:worker_threads"

const { port1, port2 } = new MessageChannel()
const resolved = []
port1.on("message", (line) => resolved.push(line))
port1.unref()
register(
  "data:text/javascript," + encodeURIComponent(`
let port
export const initialize = (data) => { port = data.port }
export const resolve = async (specifier, context, next) => {
  const result = await next(specifier, context)
  if (specifier.startsWith("effect/")) port.postMessage(specifier + " " + context.parentURL)
  return result
}`),
  { data: { port: port2 }, transferList: [port2] }
)
process.on("exit", () => writeFileSync(process.env.EFFECT_RESOLVES_FILE, resolved.join("\n")))
