// An MCP server that needs a sign-in, for the end-to-end tests: the official TypeScript SDK's
// OAuth pieces on loopback. The authorization server is the SDK's `mcpAuthRouter` (metadata,
// dynamic registration, authorize with PKCE, token, revocation) over its example in-memory
// provider, given what the example leaves out (refresh tokens, revocation, a token lifetime);
// the MCP server on another port checks every request with the SDK's `requireBearerAuth`,
// whose 401 names the protected resource metadata, served by `mcpAuthMetadataRouter`.
//
//   node tests/server/mcp-oauth.mjs [--lifetime SECONDS] [--no-registration]
// prints "listening http://127.0.0.1:PORT/mcp auth http://127.0.0.1:PORT2/" once ready.
//   --lifetime S        access tokens last S seconds (default 3600)
//   --no-registration   the authorization server registers no clients (a client ID is entered;
//                       POST /__client makes one)
// Test-only endpoints on the MCP server's port (never part of MCP or OAuth):
//   GET  /__state          {"mcpTokens": [Authorization headers the MCP server saw], "issued", "refreshed",
//                          "revoked", "registered", "authSawBearer": whether a token ever reached the authorization server}
//   POST /__revoke_access  forgets every access token (refresh tokens still serve)
//   POST /__revoke_all     forgets every token
//   POST /__refuse         the next sign-in is refused by the person (error=access_denied)
import express from 'express';
import cors from 'cors';
import { randomUUID } from 'node:crypto';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { mcpAuthRouter, mcpAuthMetadataRouter, createOAuthMetadata, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { z } from 'zod';

const args = process.argv.slice(2);
const arg = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const lifetime = Number(arg('--lifetime', '3600'));
const registration = !args.includes('--no-registration');

const state = { mcpTokens: [], issued: 0, refreshed: 0, revoked: 0, registered: 0, authSawBearer: false, refuseNext: false };

class Provider extends DemoInMemoryAuthProvider {
  constructor() {
    super();
    this.refreshTokens = new Map();
  }
  get clientsStore() {
    const store = this._store;
    return registration ? store : { getClient: (id) => store.getClient(id) };
  }
  set clientsStore(store) {
    this._store = store;
    const register = store.registerClient.bind(store);
    store.registerClient = async (client) => {
      state.registered += 1;
      return register(client);
    };
  }
  async authorize(client, params, res) {
    if (state.refuseNext) {
      state.refuseNext = false;
      const target = new URL(params.redirectUri);
      target.search = new URLSearchParams({ error: 'access_denied', error_description: 'The person said no', state: params.state ?? '' }).toString();
      return res.redirect(target.toString());
    }
    return super.authorize(client, params, res);
  }
  issue(clientId, scopes, resource) {
    const token = randomUUID();
    this.tokens.set(token, { token, clientId, scopes, expiresAt: Date.now() + lifetime * 1000, resource, type: 'access' });
    const refresh = randomUUID();
    this.refreshTokens.set(refresh, { clientId, scopes, resource });
    state.issued += 1;
    return { access_token: token, token_type: 'bearer', expires_in: lifetime, refresh_token: refresh, scope: scopes.join(' ') };
  }
  async exchangeAuthorizationCode(client, code, verifier) {
    const answer = await super.exchangeAuthorizationCode(client, code, verifier);
    const data = this.tokens.get(answer.access_token);
    this.tokens.delete(answer.access_token);
    return this.issue(client.client_id, data.scopes, data.resource);
  }
  async exchangeRefreshToken(client, refreshToken) {
    const data = this.refreshTokens.get(refreshToken);
    if (!data || data.clientId !== client.client_id) throw new InvalidGrantError('The refresh token is unknown or revoked');
    this.refreshTokens.delete(refreshToken);
    state.refreshed += 1;
    return this.issue(client.client_id, data.scopes, data.resource);
  }
  // A token that is unknown, revoked or expired is refused as such (401 invalid_token); the
  // example's plain Error would be a 500.
  async verifyAccessToken(token) {
    try {
      return await super.verifyAccessToken(token);
    } catch (e) {
      throw new InvalidTokenError(e.message);
    }
  }
  async revokeToken(_client, { token }) {
    if (this.tokens.delete(token) || this.refreshTokens.delete(token)) state.revoked += 1;
  }
}

const provider = new Provider();
const listen = (app) => new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });

// The authorization server, on its own port (another origin than the MCP server).
const authApp = express();
authApp.use((req, _res, next) => {
  if ((req.headers.authorization || '').toLowerCase().startsWith('bearer')) state.authSawBearer = true;
  next();
});
const authServer = await listen(authApp);
const issuer = new URL(`http://127.0.0.1:${authServer.address().port}/`);
authApp.use(express.urlencoded({ extended: false }));
authApp.use(mcpAuthRouter({ provider, issuerUrl: issuer, scopesSupported: ['mcp:tools'] }));

// The MCP server.
const app = express();
const mcpServer = await listen(app);
const mcpUrl = new URL(`http://127.0.0.1:${mcpServer.address().port}/mcp`);
app.use(cors({ origin: true, exposedHeaders: ['Mcp-Session-Id', 'WWW-Authenticate'] }));
app.use(express.json());
app.get('/__state', (_req, res) => res.json(state));
app.post('/__revoke_access', (_req, res) => { provider.tokens.clear(); res.json({}); });
app.post('/__revoke_all', (_req, res) => { provider.tokens.clear(); provider.refreshTokens.clear(); res.json({}); });
app.post('/__refuse', (_req, res) => { state.refuseNext = true; res.json({}); });
app.post('/__client', async (req, res) => {
  const client = { client_id: randomUUID(), redirect_uris: [req.query.redirect], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  await provider._store.registerClient(client);
  res.json({ client_id: client.client_id });
});
const oauthMetadata = createOAuthMetadata({ provider, issuerUrl: issuer, scopesSupported: ['mcp:tools'] });
app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: mcpUrl, scopesSupported: ['mcp:tools'], resourceName: 'Notes (test)' }));
const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });

const sessions = new Map();
function newServer() {
  const server = new McpServer({ name: 'thoughtline-oauth-mcp', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Says who the caller signed in as.', inputSchema: { greeting: z.string().optional() } }, async (_input, extra) => ({
    content: [{ type: 'text', text: `You are signed in as demo_user (client ${extra.authInfo?.clientId ?? '?'}).` }],
  }));
  return server;
}
app.all('/mcp', (req, res, next) => {
  state.mcpTokens.push(req.headers.authorization || '');
  next();
}, bearer, async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let session = id && sessions.get(id);
  if (!session) {
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) return res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, session) });
    session = { transport };
    await newServer().connect(transport);
  }
  await session.transport.handleRequest(req, res, req.body);
});

console.log(`listening ${mcpUrl.href} auth ${issuer.href}`);
process.on('SIGTERM', () => process.exit(0));
