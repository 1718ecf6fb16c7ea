// The first screen from plain HTML (www/index.html, www/early.js, www/boot.js): the same as the
// app's first frame, taking typing before the WebAssembly is there, and handing everything a
// person did meanwhile over to the app. Each test holds the WebAssembly back until it chooses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, loopbackSettings, untilStored } from './harness.mjs';

const env = suite();

/** Holds back the app's WebAssembly (the first load's module, never a part) until `release()`. */
async function holdWasm(context) {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  await context.route(/\/thoughtline-[0-9a-f]+_bg\.wasm$/, async (route) => {
    await released;
    await route.continue().catch(() => {});
  });
  return release;
}

/** In the page: adds up layout shifts as Chromium reports them (not those right after input),
 * and notes what moved, for the message of a test that finds one. */
function watchShifts() {
  window.__shift = 0;
  window.__moved = [];
  new PerformanceObserver((list) => list.getEntries().forEach((e) => {
    if (e.hadRecentInput) return;
    window.__shift += e.value;
    for (const source of e.sources ?? []) {
      const node = source.node;
      window.__moved.push(`${node?.nodeName ?? '?'}.${node?.className ?? ''} ${JSON.stringify(source.previousRect)} → ${JSON.stringify(source.currentRect)} at ${Math.round(e.startTime)} ms`);
    }
  })).observe({ type: 'layout-shift', buffered: true });
}

/** Opens the page with its WebAssembly held back, at the first screen; `release` lets it come. */
async function openHeld(options = {}) {
  let release;
  const opened = await openApp(env.browser, env.server.origin, {
    ...options,
    ready: false,
    beforeLoad: async (context, page) => {
      release = await holdWasm(context);
      // Layout shifts as Chromium reports them (a shift right after input does not count).
      await page.addInitScript(watchShifts);
    },
  });
  await opened.page.locator('#shell textarea').waitFor();
  return { ...opened, release };
}

const ready = (page) => page.locator('html[data-ready]').waitFor({ state: 'attached' });

/** Where the parts of the first screen are, and what they say, in whichever screen is shown. */
function layout(page) {
  return page.evaluate(() => {
    const app = document.querySelector('#shell') || document.querySelector('.app');
    const places = ['.topbar', '.brand h1', '.tagline', '.topbar-actions', '.new-chat', '.messages', '.empty > p', '.examples',
      '.composer', '.composer textarea', '.composer button', '.trace', '.trace h2', '.trace .file-button', '.trace .placeholder'];
    return Object.fromEntries(places.map((selector) => {
      const element = app.querySelector(selector);
      if (!element) return [selector, null];
      const box = element.getBoundingClientRect();
      // The theme button's label is CSS on the first screen (it follows the saved theme); the
      // words are compared without the spaces HTML's layout puts between elements.
      const text = selector === '.topbar' || selector === '.topbar-actions' ? null : element.textContent.replace(/\s+/g, '');
      return [selector, { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height), text }];
    }));
  });
}

test('the first screen is the app\'s first frame: the same places and words, and nothing moves when the app takes over', async () => {
  // With a model set up, at two widths; and a newcomer's, offered the model in the page (a part
  // that arrives after the app, below what the first screen shows).
  for (const [viewport, seed] of [[{ width: 1280, height: 800 }, loopbackSettings], [{ width: 390, height: 800 }, loopbackSettings], [{ width: 1280, height: 800 }, undefined]]) {
    const { page, context, release } = await openHeld({ viewport, seed });
    assert.equal(await page.evaluate(() => document.documentElement.hasAttribute('data-ready')), false);
    const before = await layout(page);
    release();
    await ready(page);
    assert.equal(await page.locator('#shell').count(), 0, 'the first screen is gone');
    const after = await layout(page);
    for (const [selector, box] of Object.entries(before)) {
      assert.ok(box, `${selector} is on the first screen`);
      assert.deepEqual(after[selector], box, `${selector} at ${viewport.width} px`);
    }
    if (!seed) await page.getByTestId('in-page-offer').waitFor();
    await page.waitForTimeout(300);
    const [shift, moved] = await page.evaluate(() => [window.__shift, window.__moved]);
    assert.equal(shift, 0, `no layout shift at ${viewport.width} px${seed ? '' : ', a newcomer'}: ${moved.join('; ')}`);
    await context.close();
  }
});

test('text typed before the app is up is handed over with its caret and focus', async () => {
  const { page, context, release } = await openHeld({ seed: loopbackSettings });
  const early = page.locator('#shell textarea');
  await early.click();
  await page.keyboard.type('What is the capital of Fran');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  release();
  await ready(page);
  const composer = page.getByTestId('composer');
  assert.equal(await composer.inputValue(), 'What is the capital of Fran');
  assert.deepEqual(await composer.evaluate((box) => [box.selectionStart, document.activeElement === box]), [25, true]);
  // Typing goes on where it was, and the app has the text (Send is enabled by it).
  await page.keyboard.press('End');
  await page.keyboard.type('ce?');
  assert.equal(await composer.inputValue(), 'What is the capital of France?');
  assert.equal(await page.getByTestId('send').isEnabled(), true);
  await context.close();
});

test('a question sent before the app is up survives a reload, then is asked and answered', async () => {
  const { page, context, scope, release } = await openHeld({ seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: Paris' }]);
  await page.locator('#shell textarea').fill('What is the capital of France?');
  await page.locator('#shell textarea').press('Enter');
  await page.getByTestId('starting').waitFor();
  assert.equal(await page.locator('#shell .bubble.user .text').textContent(), 'What is the capital of France?');
  // Gone before the app came: the next load has it, still starting.
  await page.reload({ waitUntil: 'commit' });
  await page.getByTestId('starting').waitFor();
  assert.equal(await page.locator('#shell .bubble.user .text').textContent(), 'What is the capital of France?');
  release();
  await ready(page);
  await page.locator('.bubble.assistant .text', { hasText: 'Paris' }).waitFor();
  assert.equal((await requests(env.server.origin, scope)).length, 1, 'the model was asked once');
  assert.equal(await page.evaluate(() => localStorage.getItem('thoughtline.asked-early')), null, 'handed over');
  // Asked once: a reload shows the one run, asks nothing again.
  await page.reload();
  await ready(page);
  await page.locator('.bubble.assistant .text', { hasText: 'Paris' }).waitFor();
  assert.equal(await page.locator('.bubble.user').count(), 1);
  assert.equal((await requests(env.server.origin, scope)).length, 1, 'and not again');
  await context.close();
});

test('a returning person sees the chat they left before the app is up, where the app draws it', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await script(env.server.origin, scope, [{ text: 'Final Answer: Paris' }]);
  await page.getByTestId('composer').fill('What is the capital of France?');
  await page.getByTestId('composer').press('Enter');
  await page.locator('.bubble.assistant .text', { hasText: 'Paris' }).waitFor();
  // The glimpse is kept as the chat is saved.
  await untilStored(page, ['Paris']);
  await page.waitForFunction(() => localStorage.getItem('thoughtline.glimpse')?.includes('Paris'));
  const held = await context.newPage();
  const release = await holdWasm(context);
  await held.addInitScript(watchShifts);
  await held.goto(page.url(), { waitUntil: 'commit' });
  await held.locator('#shell .bubble.assistant .text', { hasText: 'Paris' }).waitFor();
  assert.equal(await held.locator('#shell .bubble.user .text').textContent(), 'What is the capital of France?');
  assert.equal(await held.locator('#shell .chats .chat-title').textContent(), 'What is the capital of France?');
  const question = await held.locator('#shell .bubble.user').boundingBox();
  release();
  await ready(held);
  assert.deepEqual(await held.locator('.bubble.user').boundingBox(), question, 'the question stays where it was');
  await held.waitForTimeout(500);
  const [shift, moved] = await held.evaluate(() => [window.__shift, window.__moved]);
  assert.ok(shift <= 0.01, `layout shift ${shift}: ${moved.join('; ')}`);
  await context.close();
});

test('the saved theme is there at the first paint, and a shared link never shows the chat first', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin);
  await page.evaluate(() => localStorage.setItem('thoughtline.theme', 'dark'));
  const release = await holdWasm(context);
  // Not waiting for the load event: it waits for the WebAssembly held back.
  await page.reload({ waitUntil: 'commit' });
  await page.locator('#shell textarea').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  assert.equal(await page.locator('#shell .early-theme').evaluate((b) => getComputedStyle(b, '::after').content), '"◐ Dark"');
  const shared = await context.newPage();
  await shared.goto(`${page.url().split('#')[0]}#share=x`, { waitUntil: 'commit' });
  await shared.getByText('Opening the shared run…').waitFor();
  assert.equal(await shared.locator('#shell textarea').isVisible(), false, 'no composer');
  assert.equal(await shared.locator('#shell .topbar').isVisible(), false, 'nothing of the app');
  release();
  await context.close();
});
