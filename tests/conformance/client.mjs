// The client the official MCP conformance suite tests, run by it as
//   conformance client --command "node tests/conformance/client.mjs" --scenario <name>
// is the page itself, in Chromium (tests/e2e/conformance.test.mjs runs the suite). The suite
// starts its scenario's server and runs this with the server's address last and the scenario
// in MCP_CONFORMANCE_SCENARIO. Here the page is opened (served by the loopback server at
// THOUGHTLINE_ORIGIN), the server added and connected in Settings as a person would, and, where
// the scenario has a tool, a scripted model calls it in a run; a server's question is answered
// as its form stands (the server's defaults). Exits 1 when the page could not do its part.
import { launch, openApp, script, loopbackSettings, action, ask } from '../e2e/harness.mjs';
import { connect, signInThroughWindow } from '../e2e/mcp-settings.mjs';

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const origin = process.env.THOUGHTLINE_ORIGIN;
if (!origin) {
  console.error('THOUGHTLINE_ORIGIN must name the loopback server that serves the page (tests/server/loopback.mjs)');
  process.exit(2);
}

/** The tool each scenario's server offers to be called, with its input. */
const CALLS = {
  tools_call: { tool: 'add_numbers', input: { a: 5, b: 3 } },
  'elicitation-sep1034-client-defaults': { tool: 'test_client_elicitation_defaults', input: {} },
  'sse-retry': { tool: 'test_reconnection', input: {} },
  // Its server wants a wider scope for a call than for listing tools: a second sign-in.
  'auth/scope-step-up': { tool: 'test-tool', input: {} },
};
// What the scenario gives its client beside the address (a pre-registered client's ID and
// secret), entered in Settings as a person would.
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');

const browser = await launch();
let code = 0;
try {
  const { page, scope, errors } = await openApp(browser, origin, { seed: loopbackSettings });
  let status = await connect(page, serverUrl, { clientId: context.client_id, clientSecret: context.client_secret });
  console.log(`connect: ${status.text}`);
  if (!status.ok && /needs you to sign in/.test(status.text)) {
    // Signed in as a person would: Sign in, and the window it opens, until it closes.
    await signInThroughWindow(page, page.getByTestId('mcp-sign-in'));
    await page.waitForFunction(() => !/Connecting|needs you to sign in/.test(document.querySelector('[data-testid="mcp-status-0"]')?.textContent ?? 'Connecting'), null, { timeout: 20_000 });
    status = { text: await page.getByTestId('mcp-status-0').textContent(), ok: (await page.getByTestId('mcp-status-0').getAttribute('class')) === 'ok' };
    console.log(`after sign-in: ${status.text} (${await page.getByTestId('mcp-auth-state').textContent()})`);
  }
  if (!status.ok) throw new Error(`the page did not connect: ${status.text}`);
  const call = CALLS[scenario];
  if (call) {
    await page.getByTestId('settings-close').click();
    await script(origin, scope, [action(call.tool, call.input), { text: 'Thought: That is all.\nFinal Answer: done' }]);
    await ask(page, `Call ${call.tool}`);
    // Until the run ends; a question from the server on the way is sent as it stands, a call
    // that asks first is allowed (a tool listed only after a sign-in asks), and a sign-in the
    // run waits for is made through its window.
    const asked = page.getByTestId('elicitation');
    const approval = page.getByTestId('approval-once');
    const signIn = page.getByTestId('run-sign-in');
    const ended = page.locator('.bubble.assistant, .bubble.problem');
    const deadline = Date.now() + 60_000;
    while (!(await ended.count())) {
      if (Date.now() > deadline) throw new Error(`the run did not end within 60 s; its steps: ${(await page.getByTestId('event').allTextContents()).map((t) => t.slice(0, 120)).join(' | ')}`);
      if (await asked.count()) await page.getByTestId('elicitation-accept').click();
      if (await approval.count()) await approval.click();
      if ((await signIn.count()) && (await signIn.isEnabled().catch(() => false))) {
        await signInThroughWindow(page, signIn);
        console.log('signed in again, from the Sign in of the waiting run');
        await page.getByTestId('sign-in-wait').waitFor({ state: 'detached', timeout: 10_000 });
      }
      await page.waitForTimeout(100);
    }
    const steps = page.locator('[data-testid="event"][data-kind^="tool_"], [data-testid="event"][data-kind="server_asked"]');
    for (const step of await steps.all()) console.log(`${await step.getAttribute('data-kind')}: ${(await step.textContent()).slice(0, 300)}`);
  }
  if (errors.length) console.log(`page errors:\n${errors.join('\n')}`);
} catch (e) {
  code = 1;
  console.error(e.message);
} finally {
  await browser.close();
}
process.exit(code);
