// The trace's toolbar: one row above the steps on a laptop, at most two on a phone. Its actions
// are Share, Compare runs, one Export menu and Import; each export sits in the menu.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, ask, shot, loopbackSettings, action, exportMenu } from './harness.mjs';

const env = suite();

/** The rows the toolbar's controls stand on: their tops, a few pixels apart counting as one. */
async function toolbarRows(page) {
  return page.evaluate(() => {
    const bar = document.querySelector('[role="toolbar"][aria-label="Trace actions"]');
    const controls = [...bar.querySelectorAll(':scope > button, :scope > details > summary, :scope > label')]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    const tops = [];
    for (const r of controls) if (!tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
    return { rows: tops.length, controls: controls.length };
  });
}

for (const [width, height, most] of [[1280, 800, 1], [390, 844, 2]]) {
  test(`the trace toolbar takes at most ${most} row${most > 1 ? 's' : ''} at ${width} px`, async () => {
    const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, viewport: { width, height } });
    await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
    await ask(page, 'What is six times seven?');
    await page.locator('.bubble.assistant').waitFor();
    await page.getByTestId('exports').waitFor();
    const { rows, controls } = await toolbarRows(page);
    assert.equal(controls, 4, 'Share, Compare runs, Export and Import');
    assert.ok(rows <= most, `${rows} rows at ${width} px`);
    // The exports are one click away, and a choice closes the menu.
    await exportMenu(page);
    for (const id of ['save-html', 'export', 'export-otel', 'copy-markdown']) assert.ok(await page.getByTestId(id).isVisible(), id);
    await page.getByTestId('exports').scrollIntoViewIfNeeded();
    await shot(page, `toolbar-${width}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
    assert.ok(await download.path());
    assert.equal(await page.getByTestId('exports').evaluate((d) => d.open), false, 'the menu closed');
    await context.close();
  });
}
