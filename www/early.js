// The first screen before the WebAssembly has arrived (docs/guide.md, "Before the page has
// loaded"). A classic script in <head>, run before anything is painted: it applies the saved
// colour theme and says whether the page opens a shared run or finishes a sign-in (neither shows
// the chat first). Once the first screen's HTML is parsed, it shows a returning person the chat
// they left, and keeps a question sent before the app is up. www/boot.js hands it all over.
//
// Everything drawn here is text (textContent): the glimpse comes from storage, read as untrusted
// like any stored data, and bounded by the app that wrote it (src/app/glimpse.rs).
(() => {
  const root = document.documentElement;
  const read = (key) => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  };
  const theme = read('thoughtline.theme');
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  if (location.hash.startsWith('#share=')) root.dataset.opening = 'share';
  else if (location.hash === '#signed-in') root.dataset.opening = 'sign-in';

  // The key a question sent early is kept under until the app has taken it (www/boot.js).
  const ASKED = 'thoughtline.asked-early';

  const bubble = (who, text) => {
    const labels = { user: 'You', assistant: 'Thoughtline', problem: '⚠ Run ended', 'asked-person': '? Thoughtline asks' };
    const item = document.createElement('li');
    item.className = `bubble ${labels[who] ? who : 'assistant'}`;
    const label = document.createElement('span');
    label.className = 'who';
    label.textContent = labels[who] || labels.assistant;
    const body = document.createElement('div');
    body.className = 'text';
    // Bounded here too: storage is read as untrusted (the app cuts each message at 280).
    body.textContent = String(text).slice(0, 300);
    item.append(label, body);
    return item;
  };

  // The chat of last time, as the app will draw it: only while it is still the one to open.
  const glimpse = (shell) => {
    let kept;
    try {
      kept = JSON.parse(read('thoughtline.glimpse') || 'null');
    } catch {
      return;
    }
    if (!kept || typeof kept !== 'object' || kept.id !== read('thoughtline.current') || !Array.isArray(kept.messages)) return;
    const messages = shell.querySelector('.messages');
    const list = kept.messages.filter((m) => Array.isArray(m) && m.length === 2).slice(-4);
    if (!list.length) return;
    messages.replaceChildren(...list.map(([who, text]) => bubble(who, text)));
    const title = document.createElement('li');
    title.className = 'current';
    const name = document.createElement('span');
    name.className = 'chat-title';
    name.textContent = String(kept.title ?? '').slice(0, 300);
    title.append(name);
    const chats = document.createElement('ul');
    chats.append(title);
    shell.querySelector('.chats').append(chats);
    root.dataset.glimpse = '';
  };

  // A question sent before the app is up: kept (it survives a reload) and shown as asked, with
  // "Starting…", until the app sends it.
  const showAsked = (shell, question) => {
    const messages = shell.querySelector('.messages');
    messages.querySelector('.empty')?.remove();
    const status = document.createElement('li');
    status.className = 'early-status';
    status.setAttribute('role', 'status');
    status.dataset.testid = 'starting';
    status.textContent = 'Starting…';
    messages.append(bubble('user', question), status);
  };

  const ready = () => {
    const shell = document.getElementById('shell');
    if (!shell) return;
    const box = shell.querySelector('textarea');
    const send = shell.querySelector('[data-testid="send"]');
    glimpse(shell);
    const asked = read(ASKED);
    if (asked) showAsked(shell, asked);
    const ask = () => {
      const question = box.value.trim();
      if (!question || read(ASKED)) return;
      try {
        localStorage.setItem(ASKED, question);
      } catch {
        // Not kept: the question stays in the box, where the app finds it.
        return;
      }
      box.value = '';
      send.disabled = true;
      showAsked(shell, question);
    };
    for (const example of shell.querySelectorAll('.example')) {
      example.addEventListener('click', () => {
        box.value = example.textContent;
        box.dispatchEvent(new Event('input'));
      });
    }
    box.addEventListener('input', () => {
      send.disabled = !box.value.trim() || Boolean(read(ASKED));
    });
    box.addEventListener('compositionstart', () => {
      box.dataset.composing = 'yes';
    });
    box.addEventListener('compositionend', () => {
      delete box.dataset.composing;
    });
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        ask();
      }
    });
    shell.querySelector('form').addEventListener('submit', (event) => {
      event.preventDefault();
      ask();
    });
    performance.mark('tl-typing');
  };
  if (document.readyState === 'loading') {
    document.addEventListener('readystatechange', ready, { once: true });
  } else {
    ready();
  }
})();
