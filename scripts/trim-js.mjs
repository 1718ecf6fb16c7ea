// Trims the page's own hand-written scripts in a built site: their comment lines, blank lines and
// indentation go (their documentation stays in www/). For the scripts Trunk copies as they are,
// which it does not minify: www/boot.js, the first script the page runs.
//
//   node scripts/trim-js.mjs DIST FILE...
//
// Only whole lines that start with `//` are taken out, so a `//` inside a string or a URL stays;
// the scripts it is given keep every statement on lines of its own (their tests run the result).
import fs from 'node:fs';
import path from 'node:path';

const [dist, ...files] = process.argv.slice(2);
if (!dist || !files.length) {
  console.error('usage: node scripts/trim-js.mjs DIST FILE...');
  process.exit(2);
}
for (const file of files) {
  const where = path.join(dist, file);
  const before = fs.readFileSync(where, 'utf8');
  const after = before
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'))
    .join('\n');
  fs.writeFileSync(where, `${after}\n`);
  console.log(`trim-js: ${file} ${before.length} → ${after.length + 1} characters`);
}
