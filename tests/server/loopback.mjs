// The loopback test server: the only "internet" the tests see. It serves the release dist/
// under a sub-path (as GitHub Pages would) and speaks the providers' wire formats from
// scripts the tests post, replaying the recorded bodies in ../shared/fixtures.
//
//   node tests/server/loopback.mjs [--port N] [--dist DIR]
// prints "listening http://127.0.0.1:PORT" once ready.
//
// Each test uses its own scope, /s/<scope>/..., so tests can run in parallel:
//   POST /s/<scope>/__script     body {"replies": [Reply, ...]}  queue model replies
//   GET  /s/<scope>/__requests   the chat requests received (method, path, headers, body)
//   POST /s/<scope>/v1/chat/completions   pops the next Reply (OpenAI-compatible)
//   /nocors/s/<scope>/...        the same, without any CORS header (to prove the CORS message)
// Reply: {"text": "..."} | {"status": 401, "fixture": "openai/error_401_invalid_api_key.json"}
//        | {"status": 500, "body": "..."} ; optional "delay_ms" before answering.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const fixtures = path.resolve(root, '..', 'shared', 'fixtures');

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(arg('--port', '0'));
const dist = path.resolve(arg('--dist', path.join(root, 'dist')));

const scopes = new Map(); // scope -> {replies: [], requests: []}
const scope = (id) => {
  if (!scopes.has(id)) scopes.set(id, { replies: [], requests: [] });
  return scopes.get(id);
};

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.json': 'application/json',
};

function cors(req, res, allowed) {
  if (!allowed) return;
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin || '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] || '*');
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
  res.setHeader('Vary', 'Origin');
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function completion(text, model) {
  return JSON.stringify({
    id: 'chatcmpl-loopback', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100 + text.length, completion_tokens: Math.ceil(text.length / 4), total_tokens: 0 },
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function serveStatic(req, res, urlPath) {
  // dist/ is mounted at /thoughtline/ to prove the build works under a sub-path.
  let rel = decodeURIComponent(urlPath.slice('/thoughtline/'.length)) || 'index.html';
  const file = path.resolve(dist, rel);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end('not found');
  }
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
  fs.createReadStream(file).pipe(res);
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let p = url.pathname;
  if (p === '/' || p === '/thoughtline') {
    res.writeHead(302, { Location: '/thoughtline/' });
    return res.end();
  }
  if (p.startsWith('/thoughtline/')) return serveStatic(req, res, p);
  const allowCors = !p.startsWith('/nocors/');
  if (!allowCors) p = p.slice('/nocors'.length);
  cors(req, res, allowCors);
  if (req.method === 'OPTIONS') {
    res.writeHead(204);
    return res.end();
  }
  const m = p.match(/^\/s\/([\w-]+)(\/.*)$/);
  if (!m) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end('unknown path');
  }
  const s = scope(m[1]);
  const rest = m[2];
  const body = await readBody(req);
  if (rest === '/__script' && req.method === 'POST') {
    s.replies.push(...JSON.parse(body).replies);
    res.writeHead(204);
    return res.end();
  }
  if (rest === '/__requests') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.requests));
  }
  if (rest.endsWith('/chat/completions') && req.method === 'POST') {
    let parsed = null;
    try { parsed = JSON.parse(body); } catch { /* recorded as text */ }
    s.requests.push({ method: req.method, path: rest, headers: req.headers, body: parsed ?? body });
    const reply = s.replies.shift() ?? { status: 500, body: '{"error":{"message":"the test script ran out of replies"}}' };
    if (reply.delay_ms) await sleep(reply.delay_ms);
    if (reply.text !== undefined) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(completion(reply.text, parsed?.model ?? 'unknown'));
    }
    const headers = { 'Content-Type': 'application/json' };
    if (reply.retry_after) headers['Retry-After'] = String(reply.retry_after);
    res.writeHead(reply.status ?? 500, headers);
    const payload = reply.fixture ? fs.readFileSync(path.join(fixtures, reply.fixture)) : (reply.body ?? '');
    return res.end(payload);
  }
  if (rest.startsWith('/echo/')) {
    // For browser fetch tests: answers with the status named in the path and echoes the request.
    const status = Number(rest.slice('/echo/'.length)) || 200;
    res.writeHead(status, { 'Content-Type': 'application/json', 'Retry-After': '7' });
    return res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }));
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('unknown path');
});

server.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
