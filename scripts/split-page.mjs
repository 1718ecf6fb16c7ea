// Places the parts of a split release build in dist/ (src/ui/services/parts.rs, docs/performance.md, "Bundle size").
//
//   node scripts/split-page.mjs DIST WASM
//
// WASM is the module Trunk built from (target/wasm32-unknown-unknown/release/thoughtline.wasm):
// the main module scripts/split-link left. Its parts are in the `<deps output>.split/` directory
// whose main.sha256 matches it. Each part is optimised with wasm-opt like the main module and
// named by its content's hash, as Trunk names the rest, so a browser never mixes files of two
// releases; the loader wasm-split wrote is pointed at those names and at the hashed JavaScript
// Trunk wrote, hashed in turn, and the JavaScript imports it under that name (its integrity in
// index.html updated). Exits non-zero, saying why, when anything does not match.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import binaryen from 'binaryen';
import path from 'node:path';

const [dist, wasm] = process.argv.slice(2);
if (!dist || !wasm) {
  console.error('usage: node scripts/split-page.mjs DIST WASM');
  process.exit(2);
}
const fail = (why) => {
  console.error(`split-page: ${why}`);
  process.exit(1);
};
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
// The parts' integrity in the loader, which the first load carries once per part and chunk:
// SHA-256 (44 characters, against SHA-384's 64) is as binding for a file we name by its hash.
const partSri = (bytes) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;

// The parts of exactly this main module.
const mainSha = sha256(fs.readFileSync(wasm));
const deps = path.join(path.dirname(wasm), 'deps');
const parts = fs
  .readdirSync(deps)
  .map((name) => path.join(deps, name))
  .find((dir) => dir.endsWith('.split') && fs.existsSync(path.join(dir, 'main.sha256'))
    && fs.readFileSync(path.join(dir, 'main.sha256'), 'utf8').trim() === mainSha);
if (!parts) fail(`no split output matches ${wasm} (was it linked by scripts/split-link?)`);

// The JavaScript Trunk wrote, as index.html names it.
const indexPath = path.join(dist, 'index.html');
let index = fs.readFileSync(indexPath, 'utf8');
const jsName = index.match(/data-js="?\.\/([^"\s>]+\.js)/)?.[1];
if (!jsName) fail('index.html names no JavaScript module (data-js)');
const jsPath = path.join(dist, jsName);
const js = fs.readFileSync(jsPath, 'utf8');
// wasm-bindgen imports the loader once per part (the same module each time).
const importOfLoader = /(from\s*)(["'])\.\/__wasm_split\.js\2/g;
if (!js.match(importOfLoader)) fail(`${jsName} does not import ./__wasm_split.js: the build was not split`);

let loader = fs.readFileSync(path.join(parts, '__wasm_split.js'), 'utf8');
const mainImport = '"./thoughtline.js"';
if (!loader.includes(mainImport)) fail('the loader does not import ./thoughtline.js');
loader = loader.replace(mainImport, JSON.stringify(`./${jsName}`));

// Each part optimised as `wasm-opt -Oz --low-memory-unused` would, with the features the build
// uses, by binaryen (the package `wasm-opt` comes from) in this process: one wasm-opt process
// per file cost about a second each, twelve minutes for some 500 files; this takes about one.
// The result is checked by binaryen's validator before it is placed.
const F = binaryen.Features;
const features = F.BulkMemory | F.BulkMemoryOpt | F.NontrappingFPToInt | F.SignExt | F.MutableGlobals | F.Multivalue
  | F.ReferenceTypes | F.CallIndirectOverlong;
binaryen.setOptimizeLevel(2);
binaryen.setShrinkLevel(2);
binaryen.setLowMemoryUnused(true);
binaryen.setDebugInfo(false);
// Reading a part, binaryen warns of each name subsection it does not know (rustc's), as
// wasm-opt did on the standard error this script used to ignore.
const quietly = (read) => {
  const write = process.stderr.write;
  process.stderr.write = () => true;
  try {
    return read();
  } finally {
    process.stderr.write = write;
  }
};
const optimise = (file) => {
  const module = quietly(() => binaryen.readBinary(fs.readFileSync(file)));
  try {
    module.setFeatures(features);
    module.optimize();
    if (!module.validate()) fail(`${file} is not valid once optimised`);
    return Buffer.from(module.emitBinary());
  } finally {
    module.dispose();
  }
};
const placed = [];
for (const file of fs.readdirSync(parts).filter((f) => f.endsWith('.wasm')).sort()) {
  const reference = JSON.stringify(`./${file}`);
  const bytes = optimise(path.join(parts, file));
  // Ten hex digits tell two releases' files apart; each one more costs the loader a byte per file.
  const name = `${file.replace(/\.wasm$/, '')}-${sha256(bytes).slice(0, 10)}.wasm`;
  fs.writeFileSync(path.join(dist, name), bytes);
  // Fetched with its integrity, as the main module's preload is: a part from another build
  // (a stale cache, a half-finished upload) is refused, and reported as a part not loaded.
  const fetchOf = `fetch(new URL(${reference}, import.meta.url))`;
  if (!loader.includes(fetchOf)) fail(`the loader does not fetch ${file} as expected`);
  loader = loader.replaceAll(fetchOf, `fetch(new URL(${JSON.stringify(`./${name}`)}, import.meta.url), { integrity: ${JSON.stringify(partSri(bytes))} })`);
  placed.push(name);
}

// The loader is part of the first load, with an entry per part and per chunk the parts share
// (over a hundred): each entry's fetch is written once, as `part`, and the comment naming the
// parts that share a chunk goes. Every entry must take the one shape, or the build fails.
const entry = /makeLoad\(\(\) => \{\n {4}const src = fetch\(new URL\("\.\/([\w-]+)\.wasm", import\.meta\.url\), \{ integrity: "sha256-([A-Za-z0-9+/=]+)" \}\);\n {4}src\.catch\(\(\) => \{\}\);\n {4}return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);\n\}\n, /g;
const entries = loader.match(entry)?.length ?? 0;
if (entries !== placed.length) fail(`the loader fetches ${entries} files in the expected form, not ${placed.length}`);
if (!loader.includes('\nfunction makeLoad(')) fail('the loader defines no makeLoad');
// A file's name ends in the first ten hex digits of its SHA-256, which its integrity already
// holds: the loader writes the name without them and reads them from the integrity, so the
// first load does not carry each file's hash twice.
const hexOfSri = (integrity) => Buffer.from(integrity, 'base64').subarray(0, 5).toString('hex');
loader = loader
  .replace(entry, (_, name, integrity) => {
    const stem = name.replace(/-[0-9a-f]{10}$/, '');
    if (`${stem}-${hexOfSri(integrity)}` !== name) fail(`${name}: its name does not end in its own hash`);
    return `makeLoad(part(${JSON.stringify(stem)}, ${JSON.stringify(integrity)}), `;
  })
  .replace(/^\/\* [a-z_, ]+ \*\/\n/gm, '')
  .replace('\nfunction makeLoad(', `
const part = (name, integrity) => () => {
    const hash = [...atob(integrity).slice(0, 5)].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
    const src = fetch(new URL(\`./\${name}-\${hash}.wasm\`, import.meta.url), { integrity: \`sha256-\${integrity}\` });
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
};
function makeLoad(`);

// A part needs its own file and the chunks it shares with others, up to a hundred and more,
// each fetched as the part is asked for. Asking for them all in one task takes 50-90 ms on a
// slow machine (the first part fetched when idle was the page's one task over 50 ms while it
// loads): they are asked for sixteen at a time, the part's own file first, and the page gets
// the main thread back between (a message to itself, which a background tab does not slow as
// it does timers).
const askAll = `        const parallelStuff = deps.map(d => d());
        const instantiate = fetcher();
        await Promise.all(parallelStuff);`;
if (!loader.includes(askAll)) fail('the loader does not ask for a part\'s chunks as expected');
loader = loader.replace(askAll, `        const instantiate = fetcher();
        const parallelStuff = [];
        for (const d of deps) {
            if (parallelStuff.length % 16 === 15) await nextTask();
            parallelStuff.push(d());
        }
        await Promise.all(parallelStuff);`).replace('\nfunction makeLoad(', `
const nextTask = () => new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => resolve();
    port2.postMessage(null);
});
function makeLoad(`);

// A part's fetch cut short because the page is going away (a reload, a navigation) is no
// error of the page's: Firefox reports it as an AbortError, which the loader would log.
const logged = '        } catch (e) {\n            console.error(e);';
if (!loader.includes(logged)) fail('the loader does not log a failed part as expected');
loader = loader.replace(logged, "        } catch (e) {\n            if (e?.name !== 'AbortError') console.error(e);");

const loaderName = `__wasm_split-${sha256(loader).slice(0, 16)}.js`;
fs.writeFileSync(path.join(dist, loaderName), loader);

// The loader names every part and chunk with its integrity (about 13 KB gzip), yet the first
// screen needs none of them. The JavaScript imports a small door in its place, with the same
// exports: the first part asked for imports the loader, and every call goes through to it. A
// loader that cannot be fetched answers the part's callback with a failure, as the loader does
// for a part it cannot fetch, and is asked for again next time.
const exported = [...loader.matchAll(/^export const (__wasm_split_load_\w+) = /gm)].map((m) => m[1]);
if (exported.length !== placed.filter((name) => name.startsWith('split_')).length) {
  fail(`the loader exports ${exported.length} parts, not one per split_ file`);
}
const door = `import { initSync } from ${JSON.stringify(`./${jsName}`)};
let loader;
const open = (name) => async (callback, data) => {
    try {
        loader ??= import(${JSON.stringify(`./${loaderName}`)});
        return (await loader)[name](callback, data);
    } catch (e) {
        loader = undefined;
        if (e?.name !== 'AbortError') console.error(e);
        initSync(undefined).__indirect_function_table.get(callback)(data, false);
    }
};
${exported.map((name) => `export const ${name} = open(${JSON.stringify(name)});`).join('\n')}
`;
if (!loader.includes('initSync(undefined, undefined)') || !loader.includes('__indirect_function_table.get(callbackIndex)(callbackData, success)')) {
  fail('the loader no longer answers a part\'s callback as the door expects');
}
const doorName = `__wasm_split_door-${sha256(door).slice(0, 16)}.js`;
fs.writeFileSync(path.join(dist, doorName), door);
const newJs = js.replace(importOfLoader, `$1$2./${doorName}$2`);
fs.writeFileSync(jsPath, newJs);

// The module's integrity, and the door fetched alongside it rather than after it.
const oldSri = sri(Buffer.from(js));
if (!index.includes(oldSri)) fail(`index.html carries no integrity for ${jsName}`);
index = index.replace(oldSri, sri(Buffer.from(newJs)));
index = index.replace('</head>', `<link rel=modulepreload href=./${doorName} integrity=${sri(Buffer.from(door))} crossorigin></head>`);
fs.writeFileSync(indexPath, index);

console.log(`split-page: ${placed.length} parts fetched on use (${placed.join(', ')}), loader ${loaderName} behind ${doorName}`);
