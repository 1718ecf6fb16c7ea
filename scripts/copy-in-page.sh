#!/usr/bin/env bash
# Puts the in-page model provider into a built site: DIST/in-page/ gets
#   engine.js    (www/in-page/engine.js, the wrapper the app imports on demand)
#   wllama.js    (@wllama/wllama's self-contained ES module, esm/index.js)
#   wllama.wasm  (llama.cpp built for WebAssembly, esm/wasm/wllama.wasm)
# Run it after Trunk: scripts/copy-in-page.sh dist
# @wllama/wllama comes from package.json (devDependencies, an exact version): `npm ci` first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="${1:?usage: scripts/copy-in-page.sh DIST_DIR}"
pkg="$ROOT/node_modules/@wllama/wllama"
[ -d "$dist" ] || { echo "copy-in-page: $dist is not a folder" >&2; exit 1; }
[ -f "$pkg/esm/index.js" ] && [ -f "$pkg/esm/wasm/wllama.wasm" ] \
  || { echo "copy-in-page: $pkg is missing: run npm ci" >&2; exit 1; }
# The wasm and the JS must come from the same release as package.json pins (wllama refuses a
# mismatched wasm at load time; a stale node_modules would only show up in the browser).
want="$(node -p "require('$ROOT/package.json').devDependencies['@wllama/wllama']")"
have="$(node -p "require('$pkg/package.json').version")"
[ "$want" = "$have" ] || { echo "copy-in-page: node_modules has @wllama/wllama $have, package.json pins $want: run npm ci" >&2; exit 1; }
mkdir -p "$dist/in-page"
cp "$ROOT/www/in-page/engine.js" "$dist/in-page/engine.js"
cp "$pkg/esm/index.js" "$dist/in-page/wllama.js"
cp "$pkg/esm/wasm/wllama.wasm" "$dist/in-page/wllama.wasm"
echo "copy-in-page: $dist/in-page/ has engine.js, wllama.js and wllama.wasm (@wllama/wllama $have)"
