/**
 * `mcp skills list|get|pull`: a server's skills (the skills extension).
 *
 * @since 0.1.0
 */
import { Skills as McpSkills } from "@effect-mcp/client"
import { Args, Command, Options } from "@effect/cli"
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import {
  auth,
  authOf,
  columns,
  era,
  json,
  lastTarget,
  oneLine,
  print,
  target,
  timeout,
  withClient
} from "./internal/cli.js"
import * as Skills from "./Skills.js"

const skillsList = Command.make(
  "list",
  { target: lastTarget, json, era, timeout, ...auth },
  ({ era, json, target, timeout, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(McpSkills.list(client), (listed) =>
          print(
            json,
            listed,
            () =>
              columns(listed.map((s) => Skills.row(s)).map(([uri, text]) => [uri, oneLine(text)] as const)) ||
              "(no skills listed)"
          ))
    )
).pipe(Command.withDescription("The server's skills (no file is read)"))

const skillsGet = Command.make(
  "get",
  { target, json, era, timeout, ...auth, uri: Args.text({ name: "uri" }) },
  ({ era, json, target, timeout, uri, ...o }) =>
    withClient(
      target,
      { era, timeout, auth: authOf(o) },
      (client) =>
        Effect.flatMap(McpSkills.get(client, uri), (entry) => print(json, entry, () => columns(Skills.describe(entry))))
    )
).pipe(Command.withDescription("One skill's entry, by the URI of its SKILL.md (no file is read)"))

const skillsPull = Command.make(
  "pull",
  {
    target,
    json,
    era,
    timeout,
    ...auth,
    dir: Args.directory({ name: "dir", exists: "either" }),
    skill: Options.text("skill").pipe(
      Options.repeated,
      Options.withDescription("a skill to pull, by SKILL.md URI or name (repeatable; default: every listed one)")
    )
  },
  ({ dir, era, json, skill, target, timeout, ...o }) =>
    // The files are written with the command's own FileSystem (NodeContext's).
    Effect.flatMap(Effect.context<FileSystem.FileSystem | Path.Path>(), (platform) =>
      withClient(target, { era, timeout, auth: authOf(o) }, (client) =>
        Effect.gen(function*() {
          const entries = yield* Skills.select(client, skill)
          const pulled = yield* Effect.forEach(entries, (entry) =>
            Skills.pull(client, entry, dir))
          yield* print(
            json,
            pulled,
            () => columns(pulled.map((p) => [p.uri, `${p.folder} (${p.files.length} files)`] as const)) || "(no skills)"
          )
        }).pipe(Effect.provide(platform))))
).pipe(Command.withDescription("Pulls skills into a folder, every file verified before any is written"))

/**
 * @since 0.1.0
 * @category commands
 */
export const skills = Command.make("skills").pipe(
  Command.withDescription("The server's skills (the skills extension): list, get, pull"),
  Command.withSubcommands([skillsList, skillsGet, skillsPull])
)
