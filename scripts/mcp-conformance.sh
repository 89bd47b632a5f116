#!/usr/bin/env bash
# The official MCP conformance suite against the sample agent's /mcp, with the committed baseline of
# expected failures (test/mcp/conformance-baseline.yml and, for --requirements 2026-07-28,
# test/mcp/conformance-baseline-2026-07-28.yml, each entry with its reason). The suite needs
# Node >= 22: it runs under Node 24 from the registry's `node` package (npx -p node@24), whatever
# Node runs the sample. Needs the built sample (npm run build) and DATABASE_URL (or the embedded database).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
work="$(mktemp -d)"
log="$work/sample.log"
# The suite sends a few hundred requests in a minute: lift the sample's per-client rate limit for it.
PORT="$port" RESTAP_MCP_CONFORMANCE_FIXTURES=1 RESTAP_RATE_LIMIT=1000000 RESTAP_DATA_DIR="$work/data" node dist/apps/sample-agent/apps/sample-agent/src/main.js >"$log" 2>&1 &
sample=$!
trap 'kill "$sample" 2>/dev/null || true; wait "$sample" 2>/dev/null || true; rm -rf "$work"' EXIT

for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/.well-known/restap.json" >/dev/null 2>&1 && break
  kill -0 "$sample" 2>/dev/null || { cat "$log"; echo "mcp-conformance: the sample did not start" >&2; exit 1; }
  sleep 1
done

# Results are written under the current directory: keep them out of the repository.
cd "$work"
suite="$root/node_modules/@modelcontextprotocol/conformance/dist/index.js"
# The active suite (every revision the SDK serves, 2025-era sessions included), then exactly what the
# 2026-07-28 revision requires, each with its own baseline.
npx -y -p node@24 node "$suite" server \
  --url "http://127.0.0.1:$port/mcp" \
  --expected-failures "$root/test/mcp/conformance-baseline.yml"
npx -y -p node@24 node "$suite" server \
  --url "http://127.0.0.1:$port/mcp" \
  --requirements 2026-07-28 \
  --expected-failures "$root/test/mcp/conformance-baseline-2026-07-28.yml"
