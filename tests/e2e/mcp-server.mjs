// Starts tests/server/mcp.mjs (the official MCP TypeScript SDK's Streamable HTTP server) for a
// test file; every server started is stopped once the file's tests are done.
import { after } from 'node:test';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A port of 127.0.0.1 free now, for a server that takes its port from PORT. */
async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
const running = [];

/** Starts tests/server/mcp.mjs with `flags`; resolves to { url, state(), post(path), stop() }. */
export async function startMcp(...flags) {
  const port = flags.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [path.join(here, '..', 'server', 'mcp.mjs'), ...port, ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.push(child);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`MCP server exited with ${code}`)));
  });
  const origin = new URL(url).origin;
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  return {
    url,
    state: async () => (await fetch(`${origin}/__state`)).json(),
    post: (p) => fetch(`${origin}${p}`, { method: 'POST' }),
    stop: async () => { child.kill('SIGTERM'); await stopped; },
  };
}
after(() => running.forEach((c) => c.kill('SIGTERM')));

/** Starts tests/server/mcp-oauth.mjs (an MCP server that needs a sign-in, and its authorization
 *  server) with `flags`; resolves to { url, issuer, state(), post(path), stop() }. */
export async function startMcpOAuth(...flags) {
  const child = spawn(process.execPath, [path.join(here, '..', 'server', 'mcp-oauth.mjs'), ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.push(child);
  const [url, issuer] = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (http:\/\/\S+) auth (http:\/\/\S+)/);
      if (m) resolve([m[1], m[2]]);
    });
    child.on('exit', (code) => reject(new Error(`MCP OAuth server exited with ${code}`)));
  });
  const origin = new URL(url).origin;
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  return {
    url,
    issuer,
    state: async () => (await fetch(`${origin}/__state`)).json(),
    post: (p) => fetch(`${origin}${p}`, { method: 'POST' }),
    stop: async () => { child.kill('SIGTERM'); await stopped; },
  };
}

/** Starts the official "everything" server (`@modelcontextprotocol/server-everything`, its
 *  Streamable HTTP transport; it allows any origin itself) on a free port of 127.0.0.1;
 *  resolves to { url, stop() }. It offers its sampling and elicitation tools only to a client
 *  that declares those capabilities. */
export async function startEverything() {
  const port = await freePort();
  const main = path.join(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const child = spawn(process.execPath, [main, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  running.push(child);
  await new Promise((resolve, reject) => {
    let out = '';
    child.stderr.on('data', (d) => {
      out += d;
      if (/listening on port/.test(out)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the everything server exited with ${code}: ${out}`)));
  });
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  return { url: `http://127.0.0.1:${port}/mcp`, stop: async () => { child.kill('SIGTERM'); await stopped; } };
}

/** Starts an MCP App example server of `@modelcontextprotocol/ext-apps` (`package`, for
 *  example `server-basic-vanillajs`; it allows any origin itself) on a free port; resolves to
 *  { url, stop() }. */
export async function startAppServer(pkg) {
  const port = await freePort();
  const main = path.join(here, '..', '..', 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
  const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  await new Promise((resolve, reject) => {
    let out = '';
    const heard = (d) => {
      out += d;
      if (/listening on/.test(out)) resolve();
    };
    child.stdout.on('data', heard);
    child.stderr.on('data', heard);
    child.on('exit', (code) => reject(new Error(`${pkg} exited with ${code}: ${out}`)));
  });
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  // SIGKILL: on SIGTERM it waits for its open connections to close, which a browser still
  // open keeps alive.
  return { url: `http://127.0.0.1:${port}/mcp`, stop: async () => { child.kill('SIGKILL'); await stopped; } };
}
