/**
 * The agents guide's example: the demo's tools given to `@effect/ai-openai` (on a scripted endpoint), a
 * tool call, the demo's sampling answered by the same model, a final answer; and the code is the
 * guide's.
 */
import * as ScriptedModel from "@effect-mcp/test-support/ScriptedModel"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Programs from "../support/Programs.js"
import { agent } from "./agent.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const everything = Programs.demoMain

describe("README example, an agent", () => {
  it.scopedLive(
    "calls the server's tools, answers its sampling with the same model, and answers",
    () =>
      Effect.gen(function*() {
        const model = yield* ScriptedModel.make([
          ScriptedModel.openAi.calls({ name: "add", arguments: { a: 2, b: 3 } }, {
            name: "test_sampling",
            arguments: { prompt: "Say hi" }
          }),
          ScriptedModel.openAi.text("Hi"),
          ScriptedModel.openAi.text("5, and the model said hi")
        ])
        const answer = yield* agent(everything, "Add 2 and 3, then ask for a greeting").pipe(
          Effect.withConfigProvider(
            ConfigProvider.fromMap(new Map([["OPENAI_API_KEY", "sk-test"], ["OPENAI_BASE_URL", model.url]]))
          )
        )
        assert.strictEqual(answer, "5, and the model said hi")
        // The sampling request reached the model between the two turns; its answer reached the tool's result.
        assert.match(JSON.stringify(model.received[1]!.body.input), /Say hi/)
        const outputs = (model.received[2]!.body.input as Array<any>).filter((i) => i.type === "function_call_output")
        assert.deepStrictEqual(outputs.map((o) => JSON.parse(o.output)), [{ sum: 5 }, "LLM response: Hi"])
      }),
    60_000
  )

  it("is the code the agents guide shows", () => {
    const readme = fs.readFileSync(path.resolve(here, "../../docs/agents.md"), "utf8")
    assert.include(readme, fs.readFileSync(path.resolve(here, "agent.ts"), "utf8").trim())
  })
})
