// End-to-end tests of the person's documents (src/ui/documents.rs, src/app/documents.rs): files
// added in the Documents panel, read (a PDF by pdf.js, fetched on use), indexed and stored; the
// agent's documents tool finding their passages; what a bad file says; a reload keeping them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suite, openApp, script, requests, ask, loopbackSettings, action, openWithQuota } from './harness.mjs';
import { pdf } from './pdf.mjs';

const env = suite();

const birds = pdf([
  ['Birds of the marsh', 'A field guide for the lake shore.'],
  ['Herons', 'The grey heron nests in tall reeds near the lake,', 'in colonies called heronries.'],
  ['Coots', 'Coots build floating platforms of weed.'],
]);

const notes = Buffer.from('# Lake walk\n\n## Parking\n\nThe car park by the boathouse closes at dusk.\n\n## Tides\n\nThe causeway floods two hours after high tide.\n');

async function openDocuments(page) {
  await page.getByTestId('documents').click();
  await page.getByTestId('documents-panel').waitFor();
}

/** Waits until every row has ended its work; returns each row's text. */
async function settled(page, count) {
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid="document"]')];
    return rows.length === n && rows.every((r) => !['queued', 'reading', 'indexing'].includes(r.dataset.state));
  }, count, { timeout: 30_000 });
  return page.getByTestId('document').allTextContents();
}

test('a Markdown file and a PDF are found by the agent with their pages, and are still there after a reload', async () => {
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([
    { name: 'lake-walk.md', mimeType: 'text/markdown', buffer: notes },
    { name: 'birds.pdf', mimeType: 'application/pdf', buffer: birds },
  ]);
  const rows = await settled(page, 2);
  assert.match(rows[0], /lake-walk\.md.*MARKDOWN.*Ready/s);
  assert.match(rows[1], /birds\.pdf.*PDF.*3 pages.*Ready/s);

  // The passages of a document, page by page.
  await page.getByTestId('document-text').nth(1).click();
  await page.getByTestId('document-view').locator('[data-testid="passage"][data-page="2"]', { hasText: 'grey heron nests' }).waitFor();
  await page.getByTestId('documents-close').click();

  await script(env.server.origin, scope, [action('documents', 'where do herons nest'), { text: 'Thought: The guide says so.\nFinal Answer: In tall reeds near the lake [1].' }]);
  await ask(page, 'Where do herons nest?');
  await page.locator('[data-testid="event"][data-kind="final_answer"]').waitFor();
  const passage = page.locator('[data-testid="event"][data-kind="tool_result"] [data-testid="passage"]').first();
  assert.equal(await passage.getAttribute('data-page'), '2', 'the best passage is on page 2');
  assert.match(await passage.textContent(), /\[1\] birds\.pdf · page 2.*grey heron nests in tall reeds/s);
  // What the model was sent is that passage, with its source.
  const sent = await requests(env.server.origin, scope);
  const second = JSON.stringify(sent.at(-1).body.messages);
  assert.match(second, /\[1\] birds\.pdf · page 2/);
  assert.match(sent[0].body.messages[0].content, /documents: Searches the person's own documents[^\n]*"lake-walk\.md", "birds\.pdf"/);
  // The answer's [1] opens that passage in its document, marked.
  await page.locator('.bubble.assistant').getByTestId('citation').click();
  await page.locator('[data-testid="document-view"] .passage.cited', { hasText: 'grey heron nests' }).waitFor();
  await page.getByTestId('documents-close').click();

  await page.reload();
  await openDocuments(page);
  const kept = await settled(page, 2);
  assert.match(kept.join('\n'), /lake-walk\.md.*Ready[\s\S]*birds\.pdf.*Ready/);
  await page.getByTestId('documents-close').click();
  await script(env.server.origin, scope, [action('documents', 'causeway tide'), { text: 'Final Answer: Two hours after high tide [1].' }]);
  await ask(page, 'When does the causeway flood?');
  await page.locator('[data-testid="event"][data-kind="final_answer"]').last().waitFor();
  const found = page.locator('[data-testid="event"][data-kind="tool_result"]').last().locator('[data-testid="passage"]').first();
  assert.match(await found.textContent(), /lake-walk\.md · § Tides.*two hours after high tide/s, 'the stored index answers after a reload');
  assert.deepEqual(errors, []);
  await context.close();
});

test('each bad file says what is wrong on its own row, and the good one beside them is read', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([
    { name: 'empty.md', mimeType: 'text/markdown', buffer: Buffer.alloc(0) },
    { name: 'photo.txt', mimeType: 'text/plain', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]) },
    { name: 'broken.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\nthis is not really a PDF at all') },
    { name: 'scan.pdf', mimeType: 'application/pdf', buffer: pdf([['x'], ['y']], { textless: true }) },
    { name: 'locked.pdf', mimeType: 'application/pdf', buffer: pdf([['secret']], { encrypt: true }) },
    { name: 'picture.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    { name: 'good.md', mimeType: 'text/markdown', buffer: Buffer.from('# Good\n\nThis one is fine.') },
  ]);
  const rows = await settled(page, 7);
  const row = (name) => rows.find((r) => r.includes(name)) || '';
  assert.match(row('empty.md'), /empty: there is nothing to read/);
  assert.match(row('photo.txt'), /not text, whatever its name says/);
  assert.match(row('broken.pdf'), /could not be read .*damaged/);
  assert.match(row('scan.pdf'), /no text to read: its pages are images/);
  assert.match(row('locked.pdf'), /protected by a password/);
  assert.match(row('picture.png'), /Files of this kind are not read/);
  assert.match(row('good.md'), /Ready/);
  await page.getByTestId('document').filter({ hasText: 'scan.pdf' }).getByTestId('document-remove').click();
  await page.getByTestId('document').filter({ hasText: 'scan.pdf' }).waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('document').count(), 6);
  await context.close();
});

test('a newer page upgrading the documents database is not held up: this one lets go and says to reload', async () => {
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([{ name: 'a.md', mimeType: 'text/markdown', buffer: Buffer.from('# A\n\nSomething.') }]);
  await settled(page, 1);
  // What a newer release would do from another tab: open the database at a higher version.
  const upgraded = await page.evaluate(() => new Promise((resolve) => {
    const request = indexedDB.open('thoughtline-documents', 99);
    request.onupgradeneeded = () => {};
    request.onblocked = () => resolve('blocked');
    request.onsuccess = () => { request.result.close(); resolve('upgraded'); };
    request.onerror = () => resolve(`failed: ${request.error}`);
  }));
  assert.equal(upgraded, 'upgraded', 'the page let go of its connection');
  assert.match(await page.getByTestId('documents-problem').textContent(), /A newer Thoughtline was opened in another tab: reload/);
  await context.close();
});

test('meaning search: off until turned on, says where passages go, finds a passage that shares no word with the question, and is kept', async () => {
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  const embedded = async () => (await fetch(`${env.server.origin}/s/${scope}/__embeddings`)).json();
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([{ name: 'lake-walk.md', mimeType: 'text/markdown', buffer: notes }]);
  await settled(page, 1);
  assert.equal(await page.getByTestId('documents-meaning').isChecked(), false, 'off until turned on');
  assert.deepEqual(await embedded(), [], 'nothing is sent to be embedded before');
  assert.match(await page.getByTestId('documents-meaning-where').textContent(), /sent to http:\/\/127\.0\.0\.1:\d+\/s\/[\w-]+\/v1\/embeddings, on this computer/);
  assert.equal(await page.getByTestId('documents-meaning').isDisabled(), true, 'a model is named first');
  // A model the server does not have: the row says why, and the box is unticked again.
  await page.getByTestId('documents-meaning-model').fill('no-such-model');
  // Clicked, not checked: the box may be unticked again before a check could see it ticked.
  await page.getByTestId('documents-meaning').click();
  await page.getByTestId('document-meaning').filter({ hasText: /Not searchable by meaning: .*answered 404.*not offer embeddings/ }).waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid="documents-meaning"]').checked);
  await page.getByTestId('documents-meaning-model').fill('ideas-3');
  await page.getByTestId('documents-meaning').check();
  await page.getByTestId('document-meaning').filter({ hasText: 'Searchable by meaning (ideas-3)' }).waitFor();
  const sent = (await embedded()).filter((r) => r.model === 'ideas-3');
  assert.ok(sent.length > 0);
  assert.equal(sent[0].authorization, 'Bearer sk-test', 'the key goes to its own provider');
  assert.ok(sent.flatMap((r) => r.texts).some((t) => t.includes('car park by the boathouse')));

  // After a reload the vectors are read back, not asked for again.
  await page.reload();
  await openDocuments(page);
  await page.getByTestId('document-meaning').filter({ hasText: 'Searchable by meaning (ideas-3)' }).waitFor();
  assert.equal(await page.getByTestId('documents-meaning').isChecked(), true);
  const before = (await embedded()).length;
  await page.getByTestId('documents-close').click();
  await script(env.server.origin, scope, [action('documents', 'vehicle'), { text: 'Final Answer: By the boathouse, until dusk [1].' }]);
  await ask(page, 'Where can I leave the vehicle?');
  await page.locator('[data-testid="event"][data-kind="final_answer"]').waitFor();
  const result = page.locator('[data-testid="event"][data-kind="tool_result"]').last();
  assert.match(await result.textContent(), /found by words and by meaning \(ideas-3\)/);
  assert.match(await result.locator('[data-testid="passage"]').first().textContent(), /§ Parking.*car park by the boathouse/s, '"vehicle" is not in the passage: found by meaning');
  const after = await embedded();
  assert.deepEqual(after.slice(before).map((r) => r.texts), [['vehicle']], 'only the query was sent');
  // The browser logs the 404 of the model it does not have; nothing else.
  assert.deepEqual(errors.filter((e) => !/status of 404 .*\/v1\/embeddings/.test(e)), []);
  await context.close();
});

test('meaning search with a remote provider says passages leave this computer, and stays off', async () => {
  const remote = (scopeUrl, base) => ({ ...loopbackSettings(scopeUrl, base), preset: 'openai', base_url: 'https://api.openai.example/v1' });
  const { page, context } = await openApp(env.browser, env.server.origin, { seed: remote });
  await openDocuments(page);
  assert.match(await page.getByTestId('documents-meaning-where').textContent(), /sent to https:\/\/api\.openai\.example\/v1\/embeddings to be turned into vectors: they leave this computer\. Off until you turn it on/);
  assert.equal(await page.getByTestId('documents-meaning').isChecked(), false);
  await context.close();
});

test('a full store is said on the row, the document stays searchable with Save again, and nothing stored before is lost', async () => {
  // Room for a small document, not for a large one with its index.
  const { context, page, cdp, scope } = await openWithQuota(env.browser, env.server.origin, `docs-quota-${process.pid}`, 600_000);
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([{ name: 'small.md', mimeType: 'text/markdown', buffer: notes }]);
  await settled(page, 1);
  // Words that are all different, so the file, its text and its index do not fit.
  const big = Array.from({ length: 40_000 }, (_, i) => `word${i.toString(36)}`).join(' ');
  await page.getByTestId('documents-add').setInputFiles([{ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.from(`# Big\n\n${big}\n\nThe secret harbour is Portmeirion.`) }]);
  const row = page.getByTestId('document').filter({ hasText: 'big.txt' });
  await page.locator('[data-testid="document"][data-state="not-saved"]').waitFor({ timeout: 30_000 });
  assert.match(await row.textContent(), /Searchable on this page until it is closed, but not saved: this browser's storage for the site is full/);
  // Still searchable here.
  await page.getByTestId('documents-close').click();
  await script(env.server.origin, scope, [action('documents', 'secret harbour'), { text: 'Final Answer: Portmeirion [1].' }]);
  await ask(page, 'Which harbour?');
  await page.locator('[data-testid="event"][data-kind="final_answer"]').waitFor();
  assert.match(await page.locator('[data-testid="event"][data-kind="tool_result"] [data-testid="passage"]').first().textContent(), /big\.txt[\s\S]*Portmeirion/);
  // Room again: Save again writes it; after a reload both are there.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: env.server.origin });
  await openDocuments(page);
  await row.getByTestId('document-save').click();
  await page.locator('[data-testid="document"][data-state="not-saved"]').waitFor({ state: 'detached' });
  await page.reload();
  await openDocuments(page);
  const kept = await settled(page, 2);
  assert.match(kept.join('\n'), /small\.md.*Ready[\s\S]*big\.txt.*Ready/);
  await context.close();
});

test('a file past 50 MB is refused on its own row before it is read', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  // Playwright hands over buffers of at most 50 MB: a file on disk is given by its path.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-'));
  const file = path.join(dir, 'huge.txt');
  fs.writeFileSync(file, Buffer.alloc(50 * 1024 * 1024 + 1, 'a'));
  const fine = path.join(dir, 'fine.md');
  fs.writeFileSync(fine, notes);
  const { page, context, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([file, fine]);
  const rows = await settled(page, 2);
  assert.match(rows.find((r) => r.includes('huge.txt')), /50\.0 MB[\s\S]*too large to read: 52428801 bytes, over the 50 MB/);
  assert.match(rows.find((r) => r.includes('fine.md')), /Ready/);
  fs.rmSync(dir, { recursive: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('an evaluation names the documents each case is about, and a cites case passes only on the expected passage', async () => {
  const { page, context, scope, errors } = await openApp(env.browser, env.server.origin, { seed: loopbackSettings });
  await openDocuments(page);
  await page.getByTestId('documents-add').setInputFiles([
    { name: 'lake-walk.md', mimeType: 'text/markdown', buffer: notes },
    { name: 'birds.pdf', mimeType: 'application/pdf', buffer: birds },
  ]);
  await settled(page, 2);
  await page.getByTestId('documents-close').click();
  await script(env.server.origin, scope, [
    action('documents', 'where do herons nest'), { text: 'Final Answer: In tall reeds [1].' },
    action('documents', 'causeway flood'), { text: 'Final Answer: After high tide [1].' },
  ]);
  const set = [
    { question: 'Where do herons nest?', expected: 'birds.pdf#2', scorer: 'cites', documents: ['birds.pdf'] },
    // About the bird guide only: the causeway is not in it, so nothing it cites is the walk's.
    { question: 'When does the causeway flood?', expected: 'lake-walk.md', scorer: 'cites', documents: 'birds.pdf' },
    { question: 'What does the missing file say?', scorer: 'answered', documents: ['missing.md'] },
  ].map((c) => JSON.stringify(c)).join('\n');
  await page.getByTestId('evaluate').click();
  await page.getByTestId('eval-import').setInputFiles({ name: 'docs.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(set) });
  await page.getByTestId('eval-concurrency').fill('1');
  await page.getByTestId('eval-concurrency').press('Tab');
  await page.getByTestId('eval-run').click();
  await page.waitForFunction(() => /^3 of 3 done/.test(document.querySelector('[data-testid="eval-progress"]')?.textContent ?? ''), null, { timeout: 30_000 });
  const cells = await page.getByTestId('eval-cell').allTextContents();
  assert.match(cells[0], /cites \[1\], birds\.pdf#2/);
  assert.match(cells[1], /cites no passage the run was given/);
  assert.match(cells[2], /"missing\.md", which is not among your documents/);
  assert.deepEqual(await page.getByTestId('eval-pass-rate').allTextContents(), ['1/3 passed']);
  // The second case's search was held to the bird guide.
  const sent = await requests(env.server.origin, scope);
  const second = JSON.stringify(sent[3].body.messages);
  assert.match(second, /No passage of your documents matches \\"causeway flood\\"/);
  assert.equal(sent.length, 4, 'the case about a missing document asked no model');
  assert.deepEqual(errors, []);
  await context.close();
});
