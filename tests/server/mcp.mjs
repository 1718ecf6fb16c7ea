// A real MCP server for the end-to-end tests: the official TypeScript SDK's Server and its
// Streamable HTTP transport (stateful: one session per initialize), behind a small Node http
// server that adds what a browser page needs (CORS, Mcp-Session-Id exposed) or leaves it out.
//
//   node tests/server/mcp.mjs [--port N] [--no-cors] [--token T] [--json] [--page-size N] [--forget-400] [--task-tool] [--instructions TEXT] [--legacy] [--offers]
// prints "listening http://127.0.0.1:PORT/mcp" once ready.
//   --no-cors     no CORS headers at all (a server that does not allow browser pages)
//   --token T     every MCP request needs "Authorization: Bearer T" (else 401)
//   --json        answers as plain JSON instead of SSE streams (enableJsonResponse)
//   --page-size N tools/list answers N tools per page, with nextCursor
//   --forget-400  a session it does not know gets 400 "No valid session ID provided", as the
//                 SDK's reference server (server-everything) answers after a restart, not 404
//   --task-tool   also lists "batch-job", a tool that runs only as a task (taskSupport "required")
//   --instructions TEXT  the server's instructions to its clients (initialize result)
//   --offers      also offers resources (note://today, file://logo.png, a template note://{day}),
//                 a prompt "summarise" {topic*, style}, and the tool "find-note", whose result
//                 links to note://today
//   --asks        also lists tools that ask the person back (elicitation): "book-table" asks for
//                 a form with defaults and says what came back, "pay" asks to visit an address;
//                 "write-haiku" asks the client's model for a haiku (sampling) and says what came back
//   --legacy      speaks only the older HTTP+SSE transport (the SDK's SSEServerTransport): GET
//                 /mcp opens the event stream and names /messages; POST /mcp is 405
//
// Tools: get-sum {a, b}, echo {message}, weather {city} (always fails with isError),
// slow {seconds} (waits, then answers). Test-only endpoints (never part of MCP):
//   GET  /__state     {"calls": [{name, arguments, aborted, cancelled}], "sessions": N, "headers": [...],
//                     "asks": [the answers to its elicitations], "paid": N (visits of /__pay),
//                     "samples": [the results or errors of its sampling requests],
//                     "openStreams": N (GET event streams still open)}
//   POST /__add_tool  adds the tool "late-tool" and tells every session the list changed
//   POST /__expire    forgets every session (the next request gets 404)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { allowPage } from './cors.mjs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import {
  CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest,
  ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema, ListPromptsRequestSchema, GetPromptRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(arg('--port', '0'));
const token = arg('--token', null);
const cors = !flag('--no-cors');
const json = flag('--json');
const pageSize = Number(arg('--page-size', '0'));
const forget400 = flag('--forget-400');
const instructions = arg('--instructions', undefined);
const legacy = flag('--legacy');
const offers = flag('--offers');
const asks = flag('--asks');
const legacySessions = new Map(); // session id -> SSEServerTransport

const tools = [
  { name: 'get-sum', description: 'Adds two numbers and says the sum.', inputSchema: { type: 'object', properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number', description: 'Second number' } }, required: ['a', 'b'] } },
  { name: 'echo', description: 'Says the message back.', inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } },
  { name: 'weather', description: 'Current weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'slow', description: 'Waits the given number of seconds, then answers.', inputSchema: { type: 'object', properties: { seconds: { type: 'number' } }, required: ['seconds'] } },
];

if (flag('--task-tool')) {
  tools.push({ name: 'batch-job', description: 'Runs a long job as a task.', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } });
}

if (offers) {
  tools.push({ name: 'find-note', description: 'Finds the note for a day and links to it.', inputSchema: { type: 'object', properties: { day: { type: 'string' } } } });
}
const NOTE = 'Buy milk; call Ada at three.';

if (asks) {
  tools.push({ name: 'book-table', description: 'Books a table, asking the person how.', inputSchema: { type: 'object', properties: {} } });
  tools.push({ name: 'pay', description: 'Asks the person to pay on the payment page.', inputSchema: { type: 'object', properties: {} } });
  tools.push({ name: 'write-haiku', description: "Has the client's model write a haiku about a subject.", inputSchema: { type: 'object', properties: { subject: { type: 'string' } } } });
}
/** The form "book-table" asks for: every kind of field, most with a default. */
const BOOKING = {
  type: 'object',
  properties: {
    guests: { type: 'integer', title: 'Guests', minimum: 1, maximum: 12, default: 2 },
    name: { type: 'string', title: 'Name on the booking', default: 'Ada' },
    seating: { type: 'string', title: 'Seating', oneOf: [{ const: 'in', title: 'Inside' }, { const: 'out', title: 'On the terrace' }], default: 'out' },
    newsletter: { type: 'boolean', title: 'Send me the newsletter', default: false },
    email: { type: 'string', title: 'Email', format: 'email' },
  },
  required: ['guests', 'name'],
};

const state = { calls: [], headers: [], openStreams: 0, reads: [], asks: [], paid: 0, samples: [] };
const sessions = new Map(); // session id -> { transport, server }

function newServer() {
  const capabilities = offers ? { tools: { listChanged: true }, resources: {}, prompts: {} } : { tools: { listChanged: true } };
  const server = new Server({ name: 'thoughtline-test-mcp', version: '1.0.0' }, { capabilities, instructions });
  if (offers) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [
      { uri: 'note://today', name: 'today', title: "Today's note", mimeType: 'text/plain', description: 'What to do today.' },
      { uri: 'file://logo.png', name: 'logo', mimeType: 'image/png' },
    ] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [{ uriTemplate: 'note://{day}', name: 'note-by-day', description: 'The note of a day.' }] }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const { uri } = request.params;
      state.reads.push(uri);
      if (uri === 'note://today') return { contents: [{ uri, mimeType: 'text/plain', text: NOTE }] };
      if (uri === 'file://logo.png') return { contents: [{ uri, mimeType: 'image/png', blob: Buffer.from('not really a png').toString('base64') }] };
      throw new Error(`No resource ${uri}`);
    });
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [
      { name: 'summarise', description: 'Summarise a topic.', arguments: [{ name: 'topic', description: 'What to summarise', required: true }, { name: 'style', description: 'How' }] },
    ] }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      const { topic, style } = request.params.arguments ?? {};
      return { messages: [{ role: 'user', content: { type: 'text', text: `Summarise ${topic} in a ${style || 'short'} paragraph.` } }] };
    });
  }
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (!pageSize) return { tools };
    const start = Number(request.params?.cursor ?? 0);
    const page = tools.slice(start, start + pageSize);
    return start + pageSize < tools.length ? { tools: page, nextCursor: String(start + pageSize) } : { tools: page };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: input = {} } = request.params;
    // `aborted`: the HTTP request went away; `cancelled`: the reason of a notifications/cancelled
    // the client sent for it (the SDK aborts the handler's signal with it).
    const call = { name, arguments: input, aborted: false, cancelled: null, requestId: extra.requestId, session: extra.sessionId };
    state.calls.push(call);
    switch (name) {
      case 'book-table': {
        const answer = await server.elicitInput({ message: 'How should the table be booked?', requestedSchema: BOOKING }, { relatedRequestId: extra.requestId });
        state.asks.push(answer);
        if (answer.action !== 'accept') return { content: [{ type: 'text', text: `No booking: the person chose ${answer.action}.` }] };
        return { content: [{ type: 'text', text: `Booked: ${JSON.stringify(answer.content)}` }] };
      }
      case 'pay': {
        const answer = await server.elicitInput({ mode: 'url', message: 'Pay for the booking on the payment page.', url: `http://127.0.0.1:${port || http_server.address().port}/__pay`, elicitationId: randomUUID() }, { relatedRequestId: extra.requestId });
        state.asks.push(answer);
        return { content: [{ type: 'text', text: `Payment page: ${answer.action}.` }] };
      }
      case 'write-haiku': {
        const request = {
          messages: [{ role: 'user', content: { type: 'text', text: `Write a haiku about ${input.subject || 'the sea'}.` } }],
          systemPrompt: 'You are a poet who answers with the poem only.',
          maxTokens: 60,
        };
        try {
          const result = await server.createMessage(request, { relatedRequestId: extra.requestId });
          state.samples.push(result);
          return { content: [{ type: 'text', text: `The model (${result.model}) wrote: ${result.content.text}` }] };
        } catch (e) {
          state.samples.push({ error: { code: e.code, message: e.message } });
          return { content: [{ type: 'text', text: `No haiku: ${e.message}` }] };
        }
      }
      case 'get-sum':
        return { content: [{ type: 'text', text: `The sum of ${input.a} and ${input.b} is ${Number(input.a) + Number(input.b)}.` }] };
      case 'find-note':
        return { content: [{ type: 'text', text: 'Found it.' }, { type: 'resource_link', uri: 'note://today', name: 'today', description: 'The note.' }] };
      case 'echo':
        return { content: [{ type: 'text', text: `Echo: ${input.message}` }] };
      case 'late-tool':
        return { content: [{ type: 'text', text: 'late tool ran' }] };
      case 'weather':
        return { content: [{ type: 'text', text: `The weather service for ${input.city} is down.` }], isError: true };
      case 'slow': {
        // Says how far it is every half second when the client sent a progress token.
        const token = request.params._meta?.progressToken;
        const total = Math.max(1, Math.round(Number(input.seconds ?? 1) * 2));
        let done = 0;
        const ticker = token === undefined ? null : setInterval(() => {
          done = Math.min(total, done + 1);
          extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message: `waited ${done / 2} s` } }).catch(() => {});
        }, 500);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, Number(input.seconds ?? 1) * 1000);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            call.cancelled = String(extra.signal.reason ?? 'no reason');
            resolve();
          });
        });
        if (ticker) clearInterval(ticker);
        call.progressToken = token ?? null;
        return { content: [{ type: 'text', text: `Waited ${input.seconds} s.` }] };
      }
      default:
        throw new Error(`Unknown tool: ${name}`);
    }
  });
  return server;
}

function setCors(req, res) {
  if (cors) allowPage(req, res, { methods: 'GET, POST, DELETE, OPTIONS', expose: 'Mcp-Session-Id, MCP-Protocol-Version' });
}

function rpcError(res, status, code, message, extra = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...extra });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const http_server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  setCors(req, res);
  if (req.method === 'OPTIONS') {
    res.writeHead(204);
    return res.end();
  }
  if (url.pathname === '/__state') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ ...state, sessions: sessions.size }));
  }
  if (url.pathname === '/__pay') {
    state.paid += 1;
    state.payReferrer = req.headers.referer ?? null;
    res.writeHead(200, { 'Content-Type': 'text/html' });
    return res.end('<!doctype html><title>Pay</title><p>Paid.</p>');
  }
  if (url.pathname === '/__add_tool' && req.method === 'POST') {
    if (!tools.some((t) => t.name === 'late-tool')) tools.push({ name: 'late-tool', description: 'A tool added while connected.', inputSchema: { type: 'object' } });
    await Promise.all([...sessions.values()].map((s) => s.server.sendToolListChanged().catch(() => {})));
    res.writeHead(204);
    return res.end();
  }
  if (url.pathname === '/__expire' && req.method === 'POST') {
    for (const s of sessions.values()) await s.transport.close().catch(() => {});
    sessions.clear();
    res.writeHead(204);
    return res.end();
  }
  if (legacy) {
    if (url.pathname === '/mcp' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      legacySessions.set(transport.sessionId, transport);
      res.on('close', () => legacySessions.delete(transport.sessionId));
      await newServer().connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = legacySessions.get(url.searchParams.get('sessionId'));
      if (!transport) return rpcError(res, 404, -32001, 'Session not found');
      return transport.handlePostMessage(req, res);
    }
    res.writeHead(405, { 'Content-Type': 'text/plain', Allow: 'GET' });
    return res.end('Method Not Allowed');
  }
  if (url.pathname !== '/mcp') {
    res.writeHead(404, { 'Content-Type': 'text/html' });
    return res.end('<!doctype html><title>Not here</title><p>Nothing here.</p>');
  }
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    return rpcError(res, 401, -32001, 'Unauthorized: a valid bearer token is required', { 'WWW-Authenticate': 'Bearer realm="mcp"' });
  }
  state.headers.push({ method: req.method, session: req.headers['mcp-session-id'] ?? null, version: req.headers['mcp-protocol-version'] ?? null });
  if (req.method === 'GET') {
    state.openStreams++;
    res.on('close', () => state.openStreams--);
  }
  const raw = req.method === 'POST' ? await readBody(req) : '';
  let body;
  try { body = raw ? JSON.parse(raw) : undefined; } catch { body = undefined; }
  const sid = req.headers['mcp-session-id'];
  let session = sid ? sessions.get(sid) : undefined;
  if (!session) {
    if (sid) return forget400 ? rpcError(res, 400, -32000, 'Bad Request: No valid session ID provided') : rpcError(res, 404, -32001, 'Session not found');
    if (req.method !== 'POST' || !isInitializeRequest(body)) return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => sessions.set(id, session),
    });
    session = { transport, server: newServer() };
    await session.server.connect(transport);
  }
  if (body?.method === 'tools/call') {
    // A call whose answer never reached the client: it went away (Stop, a time limit).
    res.on('close', () => {
      if (res.writableFinished) return;
      for (const c of state.calls) if (c.requestId === body.id && c.session === sid) c.aborted = true;
    });
  }
  await session.transport.handleRequest(req, res, body);
});

http_server.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${http_server.address().port}/mcp`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { http_server.closeAllConnections?.(); http_server.close(() => process.exit(0)); });
