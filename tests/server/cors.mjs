// The CORS headers both test servers send to a page that may use them: any origin, the
// request's own headers allowed, and the response headers the page must be able to read.
export function allowPage(req, res, { methods, expose }) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin || '*');
  res.setHeader('Access-Control-Allow-Methods', methods);
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] || '*');
  res.setHeader('Access-Control-Expose-Headers', expose);
  res.setHeader('Vary', 'Origin');
}
