/**
 * The names of a CommonJS package taken by a dynamic `import()`. Node gives them as the module's
 * names (and the whole `module.exports` as `default`); a bundler with code splitting (esbuild's, as
 * our own bundles and a user's may be) gives the chunk's `default` alone. `probe` is one name the
 * package has: where the module lacks it, its `default` is the package.
 */
export const names = <M extends object>(module: M, probe: keyof M & string): M => {
  const loose = module as Record<string, unknown>
  return loose[probe] === undefined && typeof loose.default === "object" && loose.default !== null
    ? loose.default as M
    : module
}
