#!/usr/bin/env bash
# Puts the Python tool's runtime into a built site: DIST/python/ gets
#   worker.js           (www/python/worker.js, the module worker the app starts for the tool)
#   pyodide.mjs         (pyodide's loader, which the worker imports)
#   pyodide.asm.mjs     (the Emscripten glue, which the loader imports from the same folder)
#   pyodide.asm.wasm    (CPython built for WebAssembly)
#   python_stdlib.zip   (the standard library, mounted as the interpreter starts)
#   pyodide-lock.json   (pyodide's package list: read at start; no package is ever fetched)
# The loader finds the other files beside itself, by these exact names: they are not renamed.
# Run it after Trunk: scripts/copy-python.sh dist. The package comes from package.json: `npm ci` first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="${1:?usage: scripts/copy-python.sh DIST_DIR}"
pkg="$ROOT/node_modules/pyodide"
files=(pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip pyodide-lock.json)
[ -d "$dist" ] || { echo "copy-python: $dist is not a folder" >&2; exit 1; }
for f in "${files[@]}"; do
  [ -f "$pkg/$f" ] || { echo "copy-python: $pkg/$f is missing: run npm ci" >&2; exit 1; }
done
# The loader refuses a runtime of another release, and a stale node_modules would only show up
# in the browser: check the installed version against package.json's pin here.
want="$(node -p "require('$ROOT/package.json').devDependencies['pyodide']")"
have="$(node -p "require('$pkg/package.json').version")"
[ "$want" = "$have" ] || { echo "copy-python: node_modules has pyodide $have, package.json pins $want: run npm ci" >&2; exit 1; }
mkdir -p "$dist/python"
cp "$ROOT/www/python/worker.js" "$dist/python/worker.js"
for f in "${files[@]}"; do cp "$pkg/$f" "$dist/python/$f"; done
list="$(printf ', %s' "${files[@]}")"
echo "copy-python: $dist/python/ has worker.js$list (pyodide $have)"
