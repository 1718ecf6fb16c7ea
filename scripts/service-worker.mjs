// Writes DIST/sw.js: www/sw.js with the build's own files in front, each with the SHA-256 of
// its content. Run it last, once every other step has written its files into DIST.
//   node scripts/service-worker.mjs DIST
// A different build gives a different sw.js, which is how browsers learn of an update.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] || path.join(root, 'dist'));
if (!fs.existsSync(path.join(dist, 'index.html'))) {
  console.error(`service-worker: ${dist} has no index.html: build the page first`);
  process.exit(1);
}

const files = {};
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(dist, full).split(path.sep).join('/');
    if (entry.isDirectory()) walk(full);
    else if (rel !== 'sw.js') files[rel] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
  }
})(dist);

const build = crypto.createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 16);
const template = fs.readFileSync(path.join(root, 'www', 'sw.js'), 'utf8');
const text = `const BUILD = ${JSON.stringify(build)};\nconst FILES = ${JSON.stringify(files, null, 0)};\n${template}`;
fs.writeFileSync(path.join(dist, 'sw.js'), text);
console.log(`service-worker: ${dist}/sw.js lists ${Object.keys(files).length} files (build ${build})`);
