// The callback of a sign-in to an MCP server: the authorization server sends the sign-in's
// window (or the page itself) back here with `?code=…&state=…`, or an error.
// A state starting "r." means the page itself went to the sign-in (the browser blocked the
// window): what came back is left in this tab's session storage and the page is opened again,
// which finishes it. Otherwise the page that opened the window is told on a BroadcastChannel
// (a window of another site in between cuts `window.opener`), and the window closes.
(function () {
  const said = document.getElementById('said');
  const query = location.search;
  if (!query) return;
  const state = new URLSearchParams(query).get('state') || '';
  // The code leaves the address bar and the history at once.
  history.replaceState(null, '', location.pathname);
  if (state.startsWith('r.')) {
    try {
      sessionStorage.setItem('thoughtline.sign-in.return', query);
    } catch (e) {
      said.textContent = 'The sign-in came back, but this tab cannot hold it (' + e.message + '). Open Thoughtline and sign in again.';
      return;
    }
    said.textContent = 'Signed in; going back to Thoughtline…';
    location.replace(new URL('./#signed-in', location.href).href);
    return;
  }
  const channel = new BroadcastChannel('thoughtline-sign-in');
  channel.postMessage(query);
  channel.close();
  said.textContent = 'Done: you can close this window and go back to Thoughtline.';
  window.close();
})();
