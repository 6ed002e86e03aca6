import { expect, it } from "@effect/vitest"
import { SseReader, start, WireClient } from "./utils/http.js"

it("smoke", async () => {
  const h = await start()
  const c = new WireClient(h)
  const init = await c.initialize()
  console.log(init.status, [...init.headers.entries()], c.initializeResult)
  const r = await c.callTool("progress", {}, "tok")
  console.log(r.status, [...r.headers.entries()])
  const reader = new SseReader(r)
  console.log(await reader.rest())
  const q = await c.callTool("quick")
  console.log(q.status, [...q.headers.entries()], await q.text())
  expect(1).toBe(1)
})
