#!/usr/bin/env bash
# Puts the PDF reader into a built site: DIST/pdf/ gets
#   read.js          (www/pdf/read.js, what the app imports when a PDF is added)
#   pdf.js           (pdfjs-dist's legacy build, pdf.min.mjs, which runs in every engine the tests use)
#   pdf.worker.js    (its worker, pdf.worker.min.mjs, where the PDF is parsed; .js, which every
#                    file server sends as JavaScript, as a module must be)
# Run it after Trunk: scripts/copy-pdf.sh dist. The package comes from package.json: `npm ci` first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dist="${1:?usage: scripts/copy-pdf.sh DIST_DIR}"
pkg="$ROOT/node_modules/pdfjs-dist/legacy/build"
[ -d "$dist" ] || { echo "copy-pdf: $dist is not a folder" >&2; exit 1; }
[ -f "$pkg/pdf.min.mjs" ] && [ -f "$pkg/pdf.worker.min.mjs" ] || { echo "copy-pdf: $pkg is missing: run npm ci" >&2; exit 1; }
want="$(node -p "require('$ROOT/package.json').devDependencies['pdfjs-dist']")"
have="$(node -p "require('$ROOT/node_modules/pdfjs-dist/package.json').version")"
[ "$want" = "$have" ] || { echo "copy-pdf: node_modules has pdfjs-dist $have, package.json pins $want: run npm ci" >&2; exit 1; }
mkdir -p "$dist/pdf"
cp "$ROOT/www/pdf/read.js" "$dist/pdf/read.js"
cp "$pkg/pdf.min.mjs" "$dist/pdf/pdf.js"
cp "$pkg/pdf.worker.min.mjs" "$dist/pdf/pdf.worker.js"
echo "copy-pdf: $dist/pdf/ has read.js, pdf.js and pdf.worker.js (pdfjs-dist $have)"
