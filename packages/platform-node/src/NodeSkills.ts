/**
 * Skills from a folder, for the skills extension (`Skills`): every directory beneath it that holds
 * a `SKILL.md` is a skill, its skill path its path in the folder (`pdf-processing`,
 * `acme/billing/refunds`), its files every file beneath it.
 *
 * The folder is read once, when the layer is built: the tree first (names and sizes only), then
 * the files of the skills, none past the limits (`Skills.Limits`; a file that grows while it is
 * read is cut at the limit and refused). Symbolic links, files with more than one link (hard
 * links: the same file as one elsewhere, perhaps outside the folder; each passed over with a
 * warning, unless `allowHardLinks`), and files and directories whose names begin with a dot, are
 * passed over: nothing outside the folder, and no `.git` or `.env`, is served. Files outside every
 * skill are not read. A folder that cannot be read, or whose skills break a rule or a limit, fails
 * the layer with a `SkillsError` naming the file.
 *
 * @since 0.1.0
 */
import { Skills } from "@effect-mcp/server"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/skillsDirectory.js"

/**
 * Options of {@link makeDirectory} and {@link layerDirectory}: those of `Skills.make`, and how the
 * folder is read.
 *
 * @since 0.1.0
 * @category models
 */
export interface DirectoryOptions extends Skills.Options {
  /**
   * Serve files that have more than one link (default false: each is passed over, with a warning).
   *
   * **Why they are refused.** A hard link is the same file under two names, and nothing tells which
   * name is the folder's own: a file linked into the skills folder from anywhere on the same file
   * system (`~/.ssh/id_ed25519`, a `.env`, another tenant's data) would be served as a skill's file,
   * by whoever could make the link, and changes with it. A symbolic link at least says where it
   * points; a hard link does not.
   *
   * **When to allow them.** When the folder's files come from a tool that links them into place
   * from a store of its own and nobody else can write to the folder or make links in it: skills
   * installed with pnpm (its content-addressable store hard-links every file of a package), or
   * another deduplicating installer. Symbolic links and dot files stay passed over either way, and
   * a file is still checked once open (a plain file, never followed if it became a symbolic link).
   */
  readonly allowHardLinks?: boolean | undefined
}

/**
 * The skills of the folder at `path` (see the module's description).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeDirectory: (
  path: string,
  options?: DirectoryOptions
) => Effect.Effect<Skills.Service, Skills.SkillsError> = internal.make

/**
 * The skills of the folder at `path` as a layer: provide it to `McpServer.layer` and the server
 * serves them.
 *
 * ```ts
 * import { NodeSkills } from "@effect-mcp/platform-node"
 * import { McpServer } from "@effect-mcp/server"
 * import { Layer } from "effect"
 *
 * export const Server = McpServer.layer({ serverInfo: { name: "docs", version: "1.0.0" } }).pipe(
 *   Layer.provide(NodeSkills.layerDirectory("./skills"))
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDirectory = (
  path: string,
  options?: DirectoryOptions
): Layer.Layer<Skills.Skills, Skills.SkillsError> => Layer.effect(Skills.Skills, internal.make(path, options))
