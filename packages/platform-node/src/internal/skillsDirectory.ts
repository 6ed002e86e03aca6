/**
 * A folder of skills read into `Skills`: the tree is walked first (names and sizes only, no file
 * read), then only the files beneath a `SKILL.md` are read, each with no more bytes than the
 * limits let it have. Symbolic links, files with more than one link (a hard link is the same file
 * as one elsewhere, maybe outside the folder, and nothing tells which name is the folder's own),
 * dot files and dot directories are passed over, so nothing outside the folder (and no `.git`, no
 * `.env`) is ever served, unless `allowHardLinks` takes the hard links too. A file is checked again
 * once open (not followed if it became a symbolic link, refused if it gained a link since the walk).
 */
import { Skills } from "@effect-mcp/server"
import * as Effect from "effect/Effect"
import { constants, type Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

const manifest = "SKILL.md"

/** Directories deeper than this below the root are not walked (an error: a skill cannot be there). */
const maxDepth = 32

/** The most directories walked (a folder with more is not a folder of skills). */
const maxDirectories = 10_000

const failure = (where: string, reason: string) => new Skills.SkillsError({ path: where, reason })

const reason = (error: unknown) =>
  error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error)

interface Found {
  readonly relative: string
  readonly absolute: string
  readonly size: number
}

/** What `NodeSkills.DirectoryOptions` holds. */
export interface Options extends Skills.Options {
  readonly allowHardLinks?: boolean | undefined
}

/**
 * Every regular file of the tree (but dot files, symbolic links and, unless `allowHardLinks`, hard
 * links), by path relative to the root.
 */
const walk = (root: string, limits: Skills.Limits, allowHardLinks: boolean) =>
  Effect.gen(function*() {
    const found: Array<Found> = []
    const pending: Array<{ readonly relative: string; readonly depth: number }> = [{ relative: "", depth: 0 }]
    let directories = 0
    while (pending.length > 0) {
      const { depth, relative } = pending.shift()!
      if (++directories > maxDirectories) {
        return yield* failure(relative, `the folder has more than ${maxDirectories} directories`)
      }
      const absolute = relative === "" ? root : path.join(root, ...relative.split("/"))
      const entries: Array<Dirent> = yield* Effect.tryPromise({
        try: () => fs.readdir(absolute, { withFileTypes: true }),
        catch: (error) => failure(relative, `cannot be read (${reason(error)})`)
      })
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      for (const entry of entries) {
        if (entry.name.startsWith(".")) continue
        const child = relative === "" ? entry.name : `${relative}/${entry.name}`
        if (entry.isDirectory()) {
          if (depth + 1 > maxDepth) return yield* failure(child, `is more than ${maxDepth} directories deep`)
          pending.push({ relative: child, depth: depth + 1 })
        } else if (entry.isFile()) {
          const file = path.join(absolute, entry.name)
          const stat = yield* Effect.tryPromise({
            try: () => fs.lstat(file),
            catch: (error) => failure(child, `cannot be read (${reason(error)})`)
          })
          // A hard link: passed over, as a symbolic link is; said, since a whole folder linked
          // into place (a package manager's store) would otherwise serve nothing without a word.
          if (stat.nlink > 1 && !allowHardLinks) {
            yield* Effect.logWarning(
              `effect-mcp skills: ${child} is not served: it has ${stat.nlink} links (a hard link), ` +
                "and may be a file from outside the folder (allowHardLinks serves such files)"
            )
            continue
          }
          found.push({ relative: child, absolute: file, size: stat.size })
          if (found.length > limits.maxFiles) {
            return yield* failure("", `the folder has more than maxFiles (${limits.maxFiles}) files`)
          }
        }
      }
    }
    return found
  })

/** The bytes of a file, refused when it holds more than `max` (read no further than that). */
const readBounded = (file: Found, max: number, allowHardLinks: boolean) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      // Not followed if it became a symbolic link since the walk (O_NOFOLLOW, where there is one).
      try: () => fs.open(file.absolute, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)),
      catch: (error) => failure(file.relative, `cannot be read (${reason(error)})`)
    }),
    (handle) =>
      Effect.tryPromise({
        try: async () => {
          // What was opened, checked again: a plain file (of one link, unless hard links are allowed), as
          // the walk found it.
          const opened = await handle.stat()
          if (!opened.isFile()) throw new Error("it is no longer a plain file")
          if (opened.nlink > 1 && !allowHardLinks) throw new Error("it is no longer a plain file of one link")
          const buffer = new Uint8Array(Math.min(max, file.size) + 1)
          let length = 0
          while (length < buffer.length) {
            const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
            if (bytesRead === 0) break
            length += bytesRead
          }
          return buffer.subarray(0, length)
        },
        catch: (error) => failure(file.relative, `cannot be read (${reason(error)})`)
      }).pipe(
        Effect.filterOrFail(
          (bytes) => bytes.length <= max,
          () => failure(file.relative, `holds more than maxFileSize (${max} bytes)`)
        )
      ),
    (handle) => Effect.promise(() => handle.close())
  )

/** The skills of the folder at `root`. */
export const make = (root: string, options: Options = {}) =>
  Effect.gen(function*() {
    const limits: Skills.Limits = { ...Skills.defaultLimits, ...options.limits }
    const allowHardLinks = options.allowHardLinks === true
    const found = yield* walk(path.resolve(root), limits, allowHardLinks)
    const roots = found.filter((f) => path.posix.basename(f.relative) === manifest).map((f) =>
      path.posix.dirname(f.relative)
    )
    const inSkill = (relative: string) =>
      roots.some((dir) => dir === "." ? relative === manifest : relative.startsWith(`${dir}/`))
    const files = new Map<string, Uint8Array>()
    let total = 0
    for (const file of found) {
      if (!inSkill(file.relative)) continue
      if (file.size > limits.maxFileSize) {
        return yield* failure(file.relative, `${file.size} bytes is more than maxFileSize (${limits.maxFileSize})`)
      }
      const bytes = yield* readBounded(file, limits.maxFileSize, allowHardLinks)
      total += bytes.length
      if (total > limits.maxTotalSize) {
        return yield* failure(file.relative, `the skills hold more than maxTotalSize (${limits.maxTotalSize} bytes)`)
      }
      files.set(file.relative, bytes)
    }
    const { allowHardLinks: _, ...skillsOptions } = options
    return yield* Skills.make(files, skillsOptions)
  })
