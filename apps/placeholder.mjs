// Until apps/everything exists (the handshake server issue), `pnpm start` says so.
process.stderr.write(
  "effect-mcp: the demo server (apps/everything) is not built yet; it arrives with @effect-mcp/server.\n" +
    "Run the tests instead: npx -y pnpm@10.34.9 install --frozen-lockfile && npx -y pnpm@10.34.9 test\n"
)
