/**
 * The host page's script, bundled for the browser: `pageScript` with the official AppBridge and what it
 * imports (the official client's `Protocol`, zod), by esbuild.
 */
import * as Effect from "effect/Effect"
import type * as Esbuild from "esbuild"
import * as Path from "node:path"
import * as Url from "node:url"
import * as Zlib from "node:zlib"
import { pageScript } from "./pages.js"

/**
 * The page's script, bundled into a packed `mcp` by `scripts/bundle.mjs --app-host`: gzipped, in base64
 * (a quarter of its text: what Node compiles when `mcp` starts, whatever its command).
 */
declare const __MCP_APP_HOST_SCRIPT__: string | undefined

/**
 * zod's error messages in its own language only: its `locales` namespace (about 45% of the page's script,
 * every language zod speaks) is re-exported by `zod/v4` whole, which a bundler cannot tree-shake away; the
 * page never names a locale (zod's default, English, is imported by zod itself).
 */
const englishOnly: Esbuild.Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: `export { default as en } from "./en.js"`,
      resolveDir: Path.dirname(args.path)
    }))
  }
}

/**
 * Bundles `pageScript` with AppBridge and its dependencies into one minified ES module for the browser,
 * resolving `@modelcontextprotocol/ext-apps` from `from` (a directory).
 */
export const bundle = async (from: string): Promise<string> => {
  const esbuild = await import("esbuild")
  const built = await esbuild.build({
    stdin: { contents: pageScript, resolveDir: from, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    plugins: [englishOnly],
    logLevel: "silent"
  })
  return built.outputFiles[0]!.text
}

/** `bundle`'s script gzipped, in base64: what `scripts/bundle.mjs --app-host` embeds. */
export const bundleGzipped = async (from: string): Promise<string> =>
  Zlib.gzipSync(await bundle(from), { level: 9 }).toString("base64")

/**
 * The host page's script, gzipped (served so to a browser, which says it accepts gzip): the one bundled into
 * a packed `mcp`, else bundled now (about 0.2 s) from the ext-apps installed beside this module.
 */
export const hostScript: Effect.Effect<Uint8Array, Error> = Effect.tryPromise({
  try: async () =>
    Buffer.from(
      typeof __MCP_APP_HOST_SCRIPT__ === "string"
        ? __MCP_APP_HOST_SCRIPT__
        : await bundleGzipped(Path.dirname(Url.fileURLToPath(import.meta.url))),
      "base64"
    ),
  catch: (cause) =>
    new Error(`cannot bundle the host page's AppBridge: ${cause instanceof Error ? cause.message : String(cause)}`)
})
