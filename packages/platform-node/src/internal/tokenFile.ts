/**
 * The token file behind `NodeTokenStore.layerFile`.
 */
import * as TokenStore from "@effect-mcp/client/TokenStore"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
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

type Entries = ReadonlyMap<string, TokenStore.Entry>

/** What `NodeTokenStore.FileOptions` holds. */
export interface Options {
  readonly onNotice?: ((message: string) => Effect.Effect<void>) | undefined
}

/** The file as read: its entries, and what kept it from being read, if anything did. */
interface Read {
  readonly entries: Entries
  /** It is not a token file (not JSON, another shape, another version): it is kept aside at the next save. */
  readonly undecodable?: string | undefined
  /** It could not be read (not a missing file: a permission, a directory): nothing is written over it. */
  readonly unreadable?: string | undefined
}

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/** The first thing wrong with the file's content, in one short line. */
const problemOf = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "not a token file"
  const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : ""
  const said = issue.message.replace(/\s+/g, " ")
  return `${said.length > 120 ? `${said.slice(0, 119)}…` : said}${where}`
}

/** A moment, as a file name may hold it: 2026-05-01T12-00-00-000Z. */
const stamp = (millis: number) => new Date(millis).toISOString().replace(/[:.]/g, "-")

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

export const make = (path: string, options: Options = {}): Effect.Effect<TokenStore.Service> =>
  Effect.gen(function*() {
    const file = nodePath.resolve(path)
    const directory = nodePath.dirname(file)
    const lock = yield* Effect.makeSemaphore(1)
    const saidOpen = yield* Ref.make(false)
    const notice = options.onNotice ?? ((message: string) => Effect.logWarning(`effect-mcp: ${message}`))
    // The file's codecs, built per store (not when this module is loaded: a server never uses them).
    const decodeFile = Schema.decodeUnknownEither(File)
    const encodeFile = Schema.encodeSync(File)

    /** The file's entries: none when it is missing, or unreadable, or not a token file (said, then). */
    const read: Effect.Effect<Read> = Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
      Effect.map((text): Read =>
        Either.match(decodeFile(text), {
          onLeft: (error) => ({ entries: new Map(), undecodable: problemOf(error) }),
          onRight: (content) => ({ entries: new Map(content.entries.map((entry) => [entry.resource, entry])) })
        })
      ),
      Effect.catchAll((error) =>
        Effect.succeed<Read>(
          (error.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT"
            ? { entries: new Map() }
            : { entries: new Map(), unreadable: describe(error.error) }
        )
      )
    )

    /** What a load says of a file it could not use. */
    const readSaying = Effect.tap(read, (found) =>
      found.undecodable !== undefined
        ? notice(`${file} is not a token file (${found.undecodable}); read as empty, and kept aside at the next save`)
        : found.unreadable !== undefined
        ? notice(`could not read ${file}; read as empty: ${found.unreadable}`)
        : Effect.void)

    /**
     * The token file's directory, for its owner alone. The store's own directory (the default one,
     * or one this store made, 0700 from the start) is made 0700 when it is more open; a directory the
     * user chose (their home, a project, an app's root) is never changed: that it is open to others
     * is said (the file itself is 0600). What was done, in one line, if anything.
     */
    const makePrivate = async (): Promise<
      { readonly madePrivate: string } | { readonly leftOpen: string } | undefined
    > => {
      const made = await fs.mkdir(directory, { recursive: true, mode: 0o700 })
      if (process.platform === "win32") return undefined
      const mode = (await fs.stat(directory)).mode & 0o777
      if ((mode & 0o077) === 0) return undefined
      const was = `0${mode.toString(8)}`
      if (made !== undefined || directory === nodePath.dirname(nodePath.resolve(defaultPath()))) {
        await fs.chmod(directory, 0o700)
        return { madePrivate: `made ${directory} private (mode 0700, it was ${was}): it holds the token file` }
      }
      return {
        leftOpen: `${directory} is open to others (mode ${was}), left so (not the store's own); the file is 0600`
      }
    }

    /**
     * Writes the entries to a file of its own beside ours, then renames it over ours; a file that
     * was not a token file is renamed aside first, never lost. A file that could not be read is
     * not written over.
     */
    const write = (found: Read, entries: Entries): Effect.Effect<void> => {
      if (found.unreadable !== undefined) {
        return notice(
          `could not read ${file}, so nothing is written over it; the tokens are not kept: ${found.unreadable}`
        )
      }
      const text = encodeFile({ version: 1, entries: [...entries.values()] }) + "\n"
      const temporary = nodePath.join(directory, `.${nodePath.basename(file)}.${process.pid}.${randomUUID()}.tmp`)
      return Effect.gen(function*() {
        const directoryIs = yield* Effect.tryPromise(makePrivate)
        if (directoryIs !== undefined && "madePrivate" in directoryIs) yield* notice(directoryIs.madePrivate)
        // Said once by this store: the directory is the user's to change.
        if (directoryIs !== undefined && "leftOpen" in directoryIs && !(yield* Ref.getAndSet(saidOpen, true))) {
          yield* notice(directoryIs.leftOpen)
        }
        if (found.undecodable !== undefined) {
          const base = `${file}.invalid-${stamp(yield* Clock.currentTimeMillis)}`
          const aside = yield* Effect.tryPromise(async () => {
            // A name no file has (one kept aside earlier is never written over).
            let candidate = base
            for (let n = 2; await fs.access(candidate).then(() => true, () => false); n++) candidate = `${base}-${n}`
            // Gone meanwhile (another process kept it aside): nothing to keep.
            return fs.rename(file, candidate).then(() => candidate, (cause: NodeJS.ErrnoException) => {
              if (cause.code === "ENOENT") return undefined
              throw cause
            })
          })
          if (aside !== undefined) {
            yield* notice(`${file} was not a token file (${found.undecodable}): kept aside as ${aside}`)
          }
        }
        yield* Effect.tryPromise(async () => {
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
        })
      }).pipe(
        Effect.catchAll((error) => notice(`could not write ${file}; the tokens are not kept: ${describe(error.error)}`))
      )
    }

    return TokenStore.TokenStore.of({
      load: (url) =>
        Effect.map(readSaying, (found) => Option.fromNullable(TokenStore.find(found.entries.values(), url))),
      save: (entry) =>
        lock.withPermits(1)(
          Effect.flatMap(read, (found) => write(found, new Map(found.entries).set(entry.resource, entry)))
        ),
      remove: (url) =>
        lock.withPermits(1)(
          Effect.flatMap(read, (found) => {
            const entry = TokenStore.find(found.entries.values(), url)
            if (entry === undefined) return Effect.void
            const next = new Map(found.entries)
            next.delete(entry.resource)
            return write(found, next)
          })
        )
    })
  })
