// Settings → Tools → MCP servers, as a person uses them: shared by the MCP tests and the
// conformance suite's client (tests/conformance/client.mjs).

/** Adds a server in Settings → Tools → MCP servers and presses Connect; returns its status text.
 *  Its tools are then set to "Always allow" unless `ask` (new tools ask before each call). */
export async function connect(page, url, { secret = '', clientId = '', clientSecret = '', index = 0, ask = false } = {}) {
  await page.getByTestId('settings-toggle').click();
  if (!(await page.getByTestId('mcp-servers').evaluate((e) => e.open))) await page.getByTestId('mcp-servers').locator('summary').click();
  if (!(await page.getByTestId(`mcp-url-${index}`).count())) await page.getByTestId('mcp-add').click();
  await page.getByTestId(`mcp-url-${index}`).fill(url);
  await page.getByTestId(`mcp-url-${index}`).press('Tab');
  if (secret) {
    await page.getByTestId(`mcp-secret-${index}`).fill(secret);
    await page.getByTestId(`mcp-secret-${index}`).press('Tab');
  }
  for (const [what, value] of [['client-id', clientId], ['client-secret', clientSecret]]) {
    if (!value) continue;
    await page.getByTestId(`mcp-${what}-${index}`).fill(value);
    await page.getByTestId(`mcp-${what}-${index}`).press('Tab');
  }
  return pressConnect(page, index, { ask });
}

export async function pressConnect(page, index = 0, { ask = false } = {}) {
  const status = page.getByTestId(`mcp-status-${index}`);
  await page.getByTestId(`mcp-connect-${index}`).click();
  await page.waitForFunction((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    return el && el.textContent && !el.textContent.includes('Connecting');
  }, `mcp-status-${index}`, { timeout: 20_000 });
  const result = { text: await status.textContent(), ok: (await status.getAttribute('class')) === 'ok' };
  if (!ask) {
    for (const select of await page.locator(`select[data-testid^="mcp-approval-${index}-"]:enabled`).all()) await select.selectOption('allow');
  }
  return result;
}

/** Presses `button` and follows the sign-in window it opens until it has closed. */
export async function signInThroughWindow(page, button) {
  const [popup] = await Promise.all([page.waitForEvent('popup'), button.click()]);
  await popup.waitForEvent('close', { timeout: 20_000 });
}
