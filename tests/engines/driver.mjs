// Three browser engines behind one small driver, for the tests that run in every engine
// (tests/engines/core.test.mjs). Each engine is a browser from Debian's packages and its own
// WebDriver server, spoken to with selenium-webdriver (the W3C WebDriver protocol, the one
// interface all three share): Chromium with chromedriver, Firefox ESR with geckodriver,
// WebKitGTK's MiniBrowser with WebKitWebDriver (it needs a display: scripts/test runs these
// tests under xvfb-run). Every test gets a new browser session, so a new, empty profile.
//
// THOUGHTLINE_ENGINES picks the engines (default: all three), e.g. "firefox,webkit".
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Builder, By, Key } from 'selenium-webdriver';

export { Key };

const tools = process.env.THOUGHTLINE_TOOLS || path.join(os.homedir(), '.cache', 'thoughtline');

/** Each engine: its WebDriver server and the capabilities that start its browser. */
export const engines = {
  chromium: {
    driver: ['/usr/bin/chromedriver', (port) => [`--port=${port}`]],
    capabilities: () => ({
      browserName: 'chrome',
      'goog:chromeOptions': {
        binary: process.env.CHROMIUM || '/usr/bin/chromium',
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
          '--disable-component-update', '--disable-sync', '--window-size=1280,800'],
      },
    }),
  },
  firefox: {
    driver: [process.env.GECKODRIVER || path.join(tools, 'bin', 'geckodriver'), (port) => [`--port=${port}`]],
    capabilities: () => ({
      browserName: 'firefox',
      'moz:firefoxOptions': {
        binary: process.env.FIREFOX || '/usr/bin/firefox-esr',
        args: ['-headless', '-width=1280', '-height=800'],
        prefs: { 'dom.clipboard.testing': true, 'browser.shell.checkDefaultBrowser': false },
      },
    }),
  },
  webkit: {
    driver: ['/usr/bin/WebKitWebDriver', (port) => [`--port=${port}`]],
    capabilities: () => ({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': {
        binary: process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
        args: ['--automation'],
      },
    }),
  },
};

export const chosenEngines = (process.env.THOUGHTLINE_ENGINES || 'chromium,firefox,webkit')
  .split(',').map((e) => e.trim()).filter(Boolean);
for (const e of chosenEngines) if (!engines[e]) throw new Error(`unknown engine "${e}" (known: ${Object.keys(engines).join(', ')})`);

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts an engine's WebDriver server; resolves to `{ url, stop() }` once it answers. */
export async function startDriver(name) {
  const [bin, args] = engines[name].driver;
  const port = await freePort();
  const child = spawn(bin, args(port), { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const url = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 20_000; ;) {
    if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode}: ${err}`);
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > end) throw new Error(`${bin} did not answer within 20 s: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => child.kill('SIGTERM') };
}

/**
 * A browser session on a fresh profile, wrapped in the few actions the tests take, named as
 * a person would do them: `open`, `click`, `toolbarSettled`, `exportMenu`, `fill`, `press`, `text`, `until`, `run` (a script
 * in the page; its promise is awaited).
 */
export async function session(name, driverUrl) {
  // A browser that does not come up within 30 s fails the attempt (WebKitWebDriver has been
  // seen to wait forever for a MiniBrowser that never started); the caller may try again.
  let timer;
  const building = new Builder().usingServer(driverUrl).withCapabilities(engines[name].capabilities()).build();
  const driver = await Promise.race([
    building,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${name}: no browser session within 30 s`)), 30_000); }),
  ]).finally(() => clearTimeout(timer));
  await driver.manage().setTimeouts({ script: 30_000 });
  const css = (testid) => (testid.includes('[') || testid.includes('.') || testid.includes(' ') ? testid : `[data-testid="${testid}"]`);
  const s = {
    name,
    driver,
    /** Goes to `url`; on the page's own address, until the app is up (the first screen gone). */
    async open(url) {
      await driver.get(url);
      await s.until(() => !document.getElementById('shell'), [], { what: 'the app took over from the first screen' });
    },
    /** Runs `fn` (a function, sent as its source) in the page with `args`; returns its result. */
    async run(fn, ...args) {
      return driver.executeScript(`return (${fn}).apply(null, arguments)`, ...args);
    },
    /** Polls `fn` in the page until it returns something truthy; returns that. */
    async until(fn, args = [], { timeout = 20_000, what = String(fn) } = {}) {
      const end = Date.now() + timeout;
      let last;
      for (;;) {
        try {
          last = await s.run(fn, ...args);
          if (last) return last;
        } catch (e) {
          last = e; // a navigation in between: try again
        }
        if (Date.now() > end) throw new Error(`${name}: not true within ${timeout} ms: ${what} (last: ${last})`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** The element (a data-testid, or a CSS selector), once it is there. */
    async find(target, { timeout = 20_000 } = {}) {
      const sel = css(target);
      await s.until((q) => !!document.querySelector(q), [sel], { timeout, what: `${sel} is shown` });
      return driver.findElement(By.css(sel));
    },
    /**
     * Clicks the element once it is in view and stands still: one still moving (the page
     * scrolling to its newest line, a part's styles arriving) would take the click elsewhere.
     * It is scrolled to only while it is out of view, and at once: a smooth scroll begun
     * again at each look (WebKit) never lets it stand still.
     */
    async click(target) {
      const element = await s.find(target);
      await s.until((q) => {
        const el = document.querySelector(q);
        if (!el) return false;
        const seen = el.getBoundingClientRect();
        if (seen.top < 0 || seen.bottom > innerHeight || seen.left < 0 || seen.right > innerWidth) {
          el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' });
        }
        const r = el.getBoundingClientRect();
        const at = `${r.x},${r.y},${r.width},${r.height}`;
        const still = el.__testAt === at;
        el.__testAt = at;
        return still;
      }, [css(target)], { what: `${css(target)} stands still in view` });
      await element.click();
    },
    /**
     * Waits until the trace toolbar has its last piece, the find bar (a part fetched at idle, drawn
     * into the toolbar's row, with its styles): before that, its arrival moves the row's buttons
     * under a click.
     */
    async toolbarSettled() {
      await s.until(() => { const bar = document.querySelector('.trace-tools .trace-find'); return !!bar && getComputedStyle(bar).display === 'flex'; }, [], { what: 'the find bar in the trace toolbar' });
    },
    /** Opens the trace toolbar's Export menu unless it is open already: its buttons are hidden while it is closed. */
    async exportMenu() {
      await s.toolbarSettled();
      await s.find('exports');
      if (!(await s.run((q) => document.querySelector(q).open, css('exports')))) await s.click('[data-testid="exports"] > summary');
    },
    /** Replaces a field's text, as typing would, then leaves the field (its change is saved). */
    async fill(target, text) {
      const el = await s.find(target);
      await el.clear();
      await el.sendKeys(text);
      await el.sendKeys(Key.TAB);
    },
    async type(target, text) { await (await s.find(target)).sendKeys(text); },
    async text(target) {
      await s.find(target);
      return s.run((q) => document.querySelector(q).textContent, css(target));
    },
    /** Waits until the element's text matches `re` (a RegExp). */
    async waitText(target, re, opts) {
      const sel = css(target);
      const [text] = await s.until((q, src, flags) => {
        const el = document.querySelector(q);
        return el && new RegExp(src, flags).test(el.textContent) ? [el.textContent] : null;
      }, [sel, re.source, re.flags], { what: `${sel} reads ${re}`, ...opts });
      return text;
    },
    async count(selector) { return s.run((q) => document.querySelectorAll(q).length, css(selector)); },
    // Never waits more than 15 s: a browser that will not close is left to its server's end.
    async quit() { await Promise.race([driver.quit().catch(() => {}), new Promise((r) => setTimeout(r, 15_000))]); },
  };
  return s;
}
