#!/usr/bin/env bash
# Puts the in-page model provider into a built site: DIST/in-page/ gets
#   engine.js           (www/in-page/engine.js, the wrapper the app imports on demand)
#   wllama.js           (@wllama/wllama's self-contained ES module, esm/index.js)
#   wllama.wasm         (llama.cpp built for WebAssembly, esm/wasm/wllama.wasm)
#   wllama-compat.js    (@wllama/wllama-compat's worker code, wasm/wllama.js) and
#   wllama-compat.wasm  (its llama.cpp build without Memory64 and JS Promise Integration,
#                       wasm/wllama.wasm): the slower build for browsers without Memory64
#                       (Safari, WebKit), served from this site instead of wllama's CDN
# Run it after Trunk: scripts/copy-in-page.sh dist
# Both packages come from package.json (devDependencies, exact versions): `npm ci` first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="${1:?usage: scripts/copy-in-page.sh DIST_DIR}"
pkg="$ROOT/node_modules/@wllama/wllama"
compat="$ROOT/node_modules/@wllama/wllama-compat"
[ -d "$dist" ] || { echo "copy-in-page: $dist is not a folder" >&2; exit 1; }
[ -f "$pkg/esm/index.js" ] && [ -f "$pkg/esm/wasm/wllama.wasm" ] \
  || { echo "copy-in-page: $pkg is missing: run npm ci" >&2; exit 1; }
[ -f "$compat/wasm/wllama.js" ] && [ -f "$compat/wasm/wllama.wasm" ] \
  || { echo "copy-in-page: $compat is missing: run npm ci" >&2; exit 1; }
# The wasm and the JS must come from the same release as package.json pins (wllama refuses a
# mismatched wasm at load time; a stale node_modules would only show up in the browser). The
# compatibility build is checked the same way: its wasm must match the same llama.cpp.
for name in @wllama/wllama @wllama/wllama-compat; do
  want="$(node -p "require('$ROOT/package.json').devDependencies['$name']")"
  have="$(node -p "require('$ROOT/node_modules/$name/package.json').version")"
  [ "$want" = "$have" ] || { echo "copy-in-page: node_modules has $name $have, package.json pins $want: run npm ci" >&2; exit 1; }
done
have="$(node -p "require('$pkg/package.json').version")"
compat_have="$(node -p "require('$compat/package.json').version")"
[ "$have" = "$compat_have" ] \
  || { echo "copy-in-page: @wllama/wllama $have and @wllama/wllama-compat $compat_have differ: pin the same version of both" >&2; exit 1; }
mkdir -p "$dist/in-page"
cp "$ROOT/www/in-page/engine.js" "$dist/in-page/engine.js"
cp "$pkg/esm/index.js" "$dist/in-page/wllama.js"
cp "$pkg/esm/wasm/wllama.wasm" "$dist/in-page/wllama.wasm"
cp "$compat/wasm/wllama.js" "$dist/in-page/wllama-compat.js"
cp "$compat/wasm/wllama.wasm" "$dist/in-page/wllama-compat.wasm"
echo "copy-in-page: $dist/in-page/ has engine.js, wllama.js, wllama.wasm, wllama-compat.js and wllama-compat.wasm (@wllama/wllama $have)"
