// Checks that the documentation's commands and links point at things that exist, in every
// Markdown file of the repository (skipping node_modules, target, dist and dot-folders):
//   - every repository path written in backticks (inline or in a fenced block), such as
//     `scripts/build` or `src/lib.rs`, names a file or folder that is there;
//   - every relative Markdown link or image ([text](docs/performance.md)) resolves, and its
//     #anchor, if any, matches a heading of the file it points to;
//   - every #anchor link matches a heading of its own file (GitHub's slugs: lowercase, spaces
//     become '-', punctuation other than '-' and '_' is dropped, repeats get -1, -2, …).
// Prints one line per problem and exits 1 if there is any. Node only, no dependencies.
//   node scripts/check-docs.mjs [FILE.md ...]      (default: every *.md file, found as above)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Build output and installed packages: mentioned in the docs, never part of the repository.
const NOT_IN_REPO = new Set(['.git', 'dist', 'target', 'node_modules']);
const topLevel = new Set(fs.readdirSync(root).filter((name) => !NOT_IN_REPO.has(name)));
const slugCache = new Map(); // file → the anchors of its headings

const problems = [];
const files = process.argv.length > 2 ? process.argv.slice(2) : markdownFiles('');
for (const file of files) checkFile(file);
for (const p of problems) console.log(p);
if (problems.length) {
  console.log(`check-docs: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exit(1);
}
console.log(`check-docs: ${files.length} files, every path and link resolves`);

/** Every *.md file under `dir` (relative to the root), sorted; build output, installed packages
 * and dot-folders (.git, .github, .cargo, …) are skipped. */
function markdownFiles(dir) {
  const found = [];
  const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && !NOT_IN_REPO.has(entry.name)) found.push(...markdownFiles(rel));
    } else if (entry.isFile() && entry.name.endsWith('.md')) {
      found.push(rel);
    }
  }
  return found;
}

function checkFile(rel) {
  const full = path.resolve(root, rel);
  if (!fs.existsSync(full)) {
    problems.push(`${rel}: the file itself is missing`);
    return;
  }
  const dir = path.dirname(full);
  const lines = fs.readFileSync(full, 'utf8').split('\n');
  let fence = null; // the marker of the fenced block we are in (``` or ~~~), else null
  let sectionDirs = []; // folders a heading names ("## openai/"), for bare file names below it
  lines.forEach((line, i) => {
    const where = `${rel}:${i + 1}`;
    const marker = line.match(/^\s*(```+|~~~+)/);
    if (marker) {
      if (fence === null) fence = marker[1];
      else if (marker[1].startsWith(fence)) fence = null;
      return;
    }
    if (fence !== null) {
      // A command block: every word that is a repository path must exist.
      for (const word of line.replace(/#.*$/, '').split(/\s+/)) checkPath(word, dir, [], where);
      return;
    }
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (heading) {
      sectionDirs = [...heading[1].matchAll(/([\w.-]+)\//g)]
        .map((m) => path.join(dir, m[1]))
        .filter((d) => fs.existsSync(d) && fs.statSync(d).isDirectory());
    }
    for (const span of line.matchAll(/(`+)(.+?)\1/g)) {
      for (const word of span[2].trim().split(/\s+/)) checkPath(word, dir, sectionDirs, where);
    }
    // Links outside code spans.
    const text = line.replace(/(`+).+?\1/g, '');
    for (const link of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) checkLink(link[1], full, where);
  });
}

/** A word from a code span or block: checked if it looks like a path inside the repository. */
function checkPath(word, dir, sectionDirs, where) {
  const token = word.replace(/^[("'[]+/, '').replace(/[)"',.:;\]]+$/, '');
  if (!token || /[…*<>{}$~|?=:@\\]/.test(token) || token.startsWith('/') || token.startsWith('-')) return;
  const first = token.split('/')[0];
  if (token.includes('/') || topLevel.has(token)) {
    if (topLevel.has(first)) {
      if (!fs.existsSync(path.join(root, token))) problems.push(`${where}: \`${token}\` does not exist`);
      return;
    }
    // Relative to the document (tests/fixtures/README.md names `openai/...` that way).
    if (first && fs.existsSync(path.join(dir, first)) && fs.statSync(path.join(dir, first)).isDirectory()) {
      if (!fs.existsSync(path.join(dir, token))) problems.push(`${where}: \`${token}\` does not exist (relative to ${path.relative(root, dir) || '.'})`);
    }
    return;
  }
  // A bare file name under a heading that names its folder.
  if (sectionDirs.length && /^[\w.-]+\.(json|jsonl|sse|xml|txt)$/.test(token)) {
    if (!sectionDirs.some((d) => fs.existsSync(path.join(d, token)))) {
      problems.push(`${where}: \`${token}\` is in none of ${sectionDirs.map((d) => path.relative(root, d) + '/').join(', ')}`);
    }
  }
}

/** A Markdown link target: a file relative to the document, an anchor, or both. */
function checkLink(target, docPath, where) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return; // https:, mailto:, …
  const [filePart, anchor] = target.split('#', 2);
  let linked = docPath;
  if (filePart) {
    linked = path.resolve(path.dirname(docPath), decodeURI(filePart));
    if (!linked.startsWith(root) || !fs.existsSync(linked)) {
      problems.push(`${where}: link to ${filePart}, which does not exist`);
      return;
    }
  }
  if (anchor === undefined) return;
  if (!linked.endsWith('.md')) return;
  if (!headingSlugs(linked).has(anchor)) {
    const name = path.relative(root, linked);
    problems.push(`${where}: link to #${anchor}, which is not a heading of ${name}`);
  }
}

/** The anchors GitHub makes for a Markdown file's headings. */
function headingSlugs(file) {
  if (slugCache.has(file)) return slugCache.get(file);
  const slugs = new Set();
  const seen = new Map();
  let fence = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const marker = line.match(/^\s*(```+|~~~+)/);
    if (marker) {
      if (fence === null) fence = marker[1];
      else if (marker[1].startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const text = heading[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
      .replace(/`/g, '')
      .replace(/\*+/g, '')
      .replace(/<[^>]+>/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  slugCache.set(file, slugs);
  return slugs;
}
