#!/usr/bin/env bash
# Puts the Python tool's runtime into a built site: DIST/python/ gets
#   worker.js           (www/python/worker.js, the module worker the app starts for the tool)
#   pyodide.mjs         (pyodide's loader, which the worker imports)
#   pyodide.asm.mjs     (the Emscripten glue, which the loader imports from the same folder)
#   pyodide.asm.wasm    (CPython built for WebAssembly)
#   python_stdlib.zip   (the standard library, mounted as the interpreter starts)
#   pyodide-lock.json   (pyodide's package list: read at start; the one package it loads is
#                        micropip, and only when the page allows installs)
#   micropip-*.whl      (micropip's wheel from PyPI, by the name the lock file gives it, and
#                        its sha256 written into the lock file: see MICROPIP_WHEEL in setup.sh)
# The loader finds the other files beside itself, by these exact names: they are not renamed.
# Run it after Trunk: scripts/copy-python.sh dist. The package comes from package.json: `npm ci`
# first; the wheel from scripts/setup.sh (setup_python_wheels), in $THOUGHTLINE_TOOLS/python-wheels.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="${1:?usage: scripts/copy-python.sh DIST_DIR}"
pkg="$ROOT/node_modules/pyodide"
files=(pyodide.mjs pyodide.asm.mjs pyodide.asm.wasm python_stdlib.zip)
wheels="${THOUGHTLINE_TOOLS:-$HOME/.cache/thoughtline}/python-wheels"
# The wheel's name and sha256, from the one place they are pinned.
pin() { sed -n "s/^$1=\"\([^\"]*\)\"\$/\1/p" "$ROOT/scripts/setup.sh"; }
wheel="$(pin MICROPIP_WHEEL)"
wheel_sha="$(pin MICROPIP_WHEEL_SHA256)"
[ -n "$wheel" ] && [ -n "$wheel_sha" ] || { echo "copy-python: scripts/setup.sh pins no MICROPIP_WHEEL and MICROPIP_WHEEL_SHA256" >&2; exit 1; }
[ -d "$dist" ] || { echo "copy-python: $dist is not a folder" >&2; exit 1; }
for f in "${files[@]}" pyodide-lock.json; do
  [ -f "$pkg/$f" ] || { echo "copy-python: $pkg/$f is missing: run npm ci" >&2; exit 1; }
done
[ -f "$wheels/$wheel" ] || { echo "copy-python: $wheels/$wheel is missing: run scripts/setup.sh (setup_python_wheels) first" >&2; exit 1; }
have_sha="$(sha256sum "$wheels/$wheel" | awk '{print $1}')"
[ "$have_sha" = "$wheel_sha" ] || { echo "copy-python: $wheels/$wheel has sha256 $have_sha, scripts/setup.sh pins $wheel_sha: run scripts/setup.sh (setup_python_wheels) to download it again" >&2; exit 1; }
# The loader refuses a runtime of another release, and a stale node_modules would only show up
# in the browser: check the installed version against package.json's pin here.
want="$(node -p "require('$ROOT/package.json').devDependencies['pyodide']")"
have="$(node -p "require('$pkg/package.json').version")"
[ "$want" = "$have" ] || { echo "copy-python: node_modules has pyodide $have, package.json pins $want: run npm ci" >&2; exit 1; }
mkdir -p "$dist/python"
cp "$ROOT/www/python/worker.js" "$dist/python/worker.js"
for f in "${files[@]}"; do cp "$pkg/$f" "$dist/python/$f"; done
cp "$wheels/$wheel" "$dist/python/$wheel"
# The lock file as pyodide ships it, but for micropip's sha256: that of the wheel copied here.
# Only that string is replaced (the rest stays byte for byte), and only where the lock names
# this very file.
node - "$pkg/pyodide-lock.json" "$dist/python/pyodide-lock.json" "$wheel" "$wheel_sha" <<'JS'
const fs = require('fs');
const [from, to, wheel, sha] = process.argv.slice(2);
const text = fs.readFileSync(from, 'utf8');
const entry = JSON.parse(text).packages.micropip;
const fail = (why) => { console.error(`copy-python: ${from} ${why}`); process.exit(1); };
if (!entry || entry.file_name !== wheel) fail(`names micropip's wheel '${entry?.file_name}', scripts/setup.sh pins ${wheel}: update MICROPIP_WHEEL and MICROPIP_WHEEL_SHA256`);
const old = `"sha256": "${entry.sha256}"`;
if (text.split(old).length !== 2) fail(`holds micropip's sha256 ${entry.sha256} other than once`);
const out = text.replace(old, `"sha256": "${sha}"`);
if (JSON.parse(out).packages.micropip.sha256 !== sha) fail('could not be given the wheel\'s sha256');
fs.writeFileSync(to, out);
JS
list="$(printf ', %s' "${files[@]}" pyodide-lock.json "$wheel")"
echo "copy-python: $dist/python/ has worker.js$list (pyodide $have)"
