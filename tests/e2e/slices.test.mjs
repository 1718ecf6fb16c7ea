// A view redraws only what it draws: while the model's reply streams in, each token changes the
// live reply's row and nothing else on the page (not the chat, the list of chats, the steps
// already drawn, the toolbar or the composer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, ask, loopbackSettings, action } from './harness.mjs';

const env = suite();

test('a streamed token changes the live reply\'s row and nothing else', async () => {
  const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  // About 110 pieces of 6 characters, 40 ms apart: the stream lasts over 4 s, well past the window watched.
  const words = 'the answer grows one small piece at a time while everything else stays still '.repeat(8);
  await script(env.server.origin, scope, [action('calculator', '6*7'), { text: `Thought: ${words}\nFinal Answer: 42`, chunk_delay_ms: 40 }]);
  await ask(page, 'What is six times seven?');
  // The second model call is streaming: its live row has text, and the first step's rows are drawn.
  await page.locator('[data-testid="event"][data-kind="tool_result"]').waitFor();
  await page.getByTestId('stream-text').filter({ hasText: 'grows' }).waitFor();
  const { outside, inside } = await page.evaluate(async () => {
    const live = document.querySelector('[data-testid="streaming"]');
    const seen = { outside: [], inside: 0 };
    const observer = new MutationObserver((records) => {
      for (const r of records) {
        const node = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
        if (live.contains(node)) seen.inside += 1;
        else seen.outside.push(`${r.type} ${node?.tagName}.${node?.className} ${r.attributeName ?? ''}`.trim());
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    await new Promise((done) => setTimeout(done, 600));
    observer.disconnect();
    return seen;
  });
  assert.ok(inside >= 5, `the live row grew (${inside} changes)`);
  assert.deepEqual(outside, [], 'nothing outside the live row changed while tokens arrived');
  await page.locator('.bubble.assistant', { hasText: '42' }).waitFor();
  await context.close();
});
