// The trace's toolbar: everything above the first step stands in one row on a laptop, and in at
// most two on a phone. The row holds the search, Share, one Export menu and one "⋯" menu
// (Compare runs, Import, Timeline, the filter, Next error, Expand and Collapse all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, ask, shot, loopbackSettings, action, exportMenu, moreMenu } from './harness.mjs';

const env = suite();

/** The rows of controls above the first step (their tops, a few pixels apart counting as one),
 * and the gap between the lowest of them and the first step. */
async function rowsAboveTheSteps(page) {
  return page.evaluate(() => {
    const pane = document.querySelector('section.trace');
    const first = pane.querySelector('[data-testid="trace"] > li').getBoundingClientRect();
    const seen = (el) => { const r = el.getBoundingClientRect(); return el.checkVisibility() && r.width > 2 && r.height > 2 && r.bottom <= first.top; };
    const controls = [...pane.querySelectorAll('h2, button, summary, input, select, label')].filter(seen).map((el) => el.getBoundingClientRect());
    const tops = [];
    for (const r of controls) if (!tops.some((t) => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
    const lowest = Math.max(...controls.map((r) => r.bottom));
    return { rows: tops.length, controls: controls.length, gap: Math.round(first.top - lowest) };
  });
}

for (const [width, height, most] of [[1280, 800, 1], [390, 844, 2]]) {
  test(`everything above the first step takes at most ${most} row${most > 1 ? 's' : ''} at ${width} px`, async () => {
    const { page, context, scope } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings, viewport: { width, height } });
    await script(env.server.origin, scope, [action('calculator', '6*7'), { text: 'Final Answer: 42' }]);
    await ask(page, 'What is six times seven?');
    await page.locator('.bubble.assistant').waitFor();
    await page.getByTestId('exports').waitFor();
    await page.getByTestId('trace-search').waitFor();
    const { rows, controls, gap } = await rowsAboveTheSteps(page);
    // The title, the search with its two arrows, Share, Export and "⋯".
    assert.equal(controls, 7, `${controls} controls above the steps`);
    assert.ok(rows <= most, `${rows} rows at ${width} px`);
    assert.ok(gap < 24, `nothing else stands above the first step (${gap} px)`);
    // The exports are one click away, and a choice closes the menu.
    await exportMenu(page);
    for (const id of ['save-html', 'export', 'export-otel', 'copy-markdown']) assert.ok(await page.getByTestId(id).isVisible(), id);
    await page.getByTestId('exports').scrollIntoViewIfNeeded();
    await shot(page, `toolbar-${width}`);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').click()]);
    const exported = await download.path();
    assert.equal(await page.getByTestId('exports').evaluate((d) => d.open), false, 'the menu closed');
    // So is the rest: a search still finds, and the "⋯" menu holds what is used less often.
    await page.getByTestId('trace-search').fill('calculator');
    await page.getByTestId('trace-search-count').filter({ hasText: /of \d+/ }).waitFor();
    assert.ok((await rowsAboveTheSteps(page)).rows <= most, 'a search with its count keeps the rows');
    await moreMenu(page);
    for (const id of ['compare-runs', 'import-more', 'view-timeline', 'trace-filter', 'next-error', 'expand-all', 'collapse-all']) assert.ok(await page.getByTestId(id).isVisible(), id);
    await shot(page, `toolbar-more-${width}`);
    // Import from the menu opens the file chooser of the pane's Import.
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('import-more').click()]);
    assert.equal(await page.getByTestId('trace-more').evaluate((d) => d.open), false, 'the menu closed');
    await chooser.setFiles(exported);
    await page.getByTestId('trace-status').filter({ hasText: /^Imported 1 run with \d+ events\.$/ }).waitFor();
    // A press anywhere outside an open menu closes it; choosing a filter does too.
    await moreMenu(page);
    await page.locator('section.trace h2').click();
    assert.equal(await page.getByTestId('trace-more').evaluate((d) => d.open), false, 'closed from outside');
    await moreMenu(page);
    await page.getByTestId('trace-filter').selectOption('tools');
    assert.equal(await page.getByTestId('trace-more').evaluate((d) => d.open), false, 'closed by the filter');
    await context.close();
  });
}

test('an empty pane offers Import and nothing it could not do', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await page.getByTestId('import').waitFor({ state: 'attached' });
  assert.ok(await page.locator('section.trace label.file-button').isVisible(), 'Import');
  for (const id of ['trace-search', 'exports', 'trace-more', 'share']) assert.equal(await page.getByTestId(id).count(), 0, id);
  await context.close();
});
