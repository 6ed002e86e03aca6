/**
 * The token file behind `NodeTokenStore.layerFile`.
 */
import { TokenStore } from "@effect-mcp/client"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"

// The file: `{ "version": 1, "entries": [...] }`, secrets as plain strings (the file is the
// user's alone, mode 0600), wrapped in `Redacted` again as it is read.

const Registration = Schema.Struct({
  clientId: Schema.String,
  clientSecret: Schema.optional(Schema.Redacted(Schema.String)),
  tokenEndpointAuthMethod: Schema.optional(Schema.String)
})

const Tokens = Schema.Struct({
  issuer: Schema.String,
  accessToken: Schema.Redacted(Schema.String),
  tokenType: Schema.String,
  refreshToken: Schema.optional(Schema.Redacted(Schema.String)),
  expiresAt: Schema.optional(Schema.Number),
  lifetime: Schema.optional(Schema.Number),
  scopes: Schema.Array(Schema.String)
})

const Entry = Schema.Struct({
  resource: Schema.String,
  registrations: Schema.Record({ key: Schema.String, value: Registration }),
  tokens: Schema.optional(Tokens)
})

const File = Schema.parseJson(
  Schema.Struct({
    version: Schema.Literal(1),
    entries: Schema.Array(Entry)
  }),
  { space: 2 }
)

const decodeFile = Schema.decodeUnknownEither(File)
const encodeFile = Schema.encodeSync(File)

type Entries = ReadonlyMap<string, TokenStore.Entry>

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

export const defaultPath = (): string => {
  if (process.platform === "win32") {
    const appData = process.env.APPDATA
    const base = appData !== undefined && appData !== "" ? appData : nodePath.join(os.homedir(), "AppData", "Roaming")
    return nodePath.join(base, "effect-mcp", "tokens.json")
  }
  // The XDG base directory specification: a relative XDG_CONFIG_HOME is to be ignored.
  const xdg = process.env.XDG_CONFIG_HOME
  const base = xdg !== undefined && nodePath.isAbsolute(xdg) ? xdg : nodePath.join(os.homedir(), ".config")
  return nodePath.join(base, "effect-mcp", "tokens.json")
}

export const make = (path: string): Effect.Effect<TokenStore.Service> =>
  Effect.gen(function*() {
    const file = nodePath.resolve(path)
    const directory = nodePath.dirname(file)
    const lock = yield* Effect.makeSemaphore(1)

    /** The file's entries: none when it is missing, or unreadable, or not a token file (a warning then). */
    const read: Effect.Effect<Entries> = Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
      Effect.flatMap((text) =>
        Either.match(decodeFile(text), {
          onLeft: (error) =>
            Effect.as(
              Effect.logWarning(
                `effect-mcp: ${file} is not a token file; read as empty (the next save replaces it): ${
                  ParseResult.TreeFormatter.formatErrorSync(error).split("\n")[0]
                }`
              ),
              new Map()
            ),
          onRight: (content): Effect.Effect<Entries> =>
            Effect.succeed(new Map(content.entries.map((entry) => [entry.resource, entry])))
        })
      ),
      Effect.catchAll((error) =>
        (error.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
          ? Effect.succeed(new Map())
          : Effect.as(
            Effect.logWarning(`effect-mcp: could not read ${file}; read as empty: ${describe(error.error)}`),
            new Map()
          )
      )
    )

    /** Writes the entries to a file of its own beside ours, then renames it over ours. */
    const write = (entries: Entries): Effect.Effect<void> => {
      const text = encodeFile({ version: 1, entries: [...entries.values()] }) + "\n"
      const temporary = nodePath.join(directory, `.${nodePath.basename(file)}.${process.pid}.${randomUUID()}.tmp`)
      return Effect.tryPromise(async () => {
        await fs.mkdir(directory, { recursive: true, mode: 0o700 })
        try {
          const handle = await fs.open(temporary, "wx", 0o600)
          try {
            await handle.writeFile(text, "utf8")
            await handle.sync()
          } finally {
            await handle.close()
          }
          await fs.rename(temporary, file)
        } catch (cause) {
          await fs.rm(temporary, { force: true }).catch(() => {})
          throw cause
        }
      }).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning(`effect-mcp: could not write ${file}; the tokens are not kept: ${describe(error.error)}`)
        )
      )
    }

    return TokenStore.TokenStore.of({
      load: (url) => Effect.map(read, (entries) => Option.fromNullable(TokenStore.find(entries.values(), url))),
      save: (entry) =>
        lock.withPermits(1)(
          Effect.flatMap(read, (entries) => write(new Map(entries).set(entry.resource, entry)))
        ),
      remove: (url) =>
        lock.withPermits(1)(
          Effect.flatMap(read, (entries) => {
            const found = TokenStore.find(entries.values(), url)
            if (found === undefined) return Effect.void
            const next = new Map(entries)
            next.delete(found.resource)
            return write(next)
          })
        )
    })
  })
