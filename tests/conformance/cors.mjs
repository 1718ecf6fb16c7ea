// Loaded into the conformance suite's process (`node --import`): its scenario servers send no
// CORS headers, and the page is on another origin (the loopback server's), so every response
// gets them here, and preflights are answered, as a server meant for browsers would.
import http from 'node:http';

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event === 'request') {
    response.setHeader('Access-Control-Allow-Origin', request.headers.origin ?? '*');
    response.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      response.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': request.headers['access-control-request-headers'] ?? '*',
        'Access-Control-Max-Age': '600',
      });
      response.end();
      return true;
    }
  }
  return emit.call(this, event, request, response);
};
