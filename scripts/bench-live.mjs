// Browser benchmark (prints figures, asserts nothing): a live 200-step ReAct run in the release
// page, driven through the loopback server. Each step's reply streams in 6-character SSE chunks
// and calls Wikipedia (pointed at the loopback, which answers from the recorded fixtures), whose
// observation is bounded to 4,000 characters; step 201 answers. Prints the longest task, frame
// times while the run streams, the time from a reply's last byte to its trace row, and the heap.
//   node scripts/bench-live.mjs        (after `scripts/build` into dist/)
//   node scripts/bench-live.mjs --profile   also samples the CPU after step 100 and prints the
//                                            functions that take the most time (slows the run)
//   node scripts/bench-live.mjs --timeline  also records the renderer's timeline after step 100 and
//                                            prints where its main thread went (style, layout,
//                                            paint, script), which a CPU profile calls "(program)"
import { startServer, launch, openApp, script, loopbackSettings } from '../tests/e2e/harness.mjs';

const STEPS = 200;
const LATE = 100; // the goal: no task over 50 ms after this step

/** Step `s`'s reply: a thought of ~150 characters and a Wikipedia lookup with its own input. */
function reply(s) {
  const thought = `Thought: This is step ${s} of a long run. The article so far does not settle the question, `
    + `so I will read about topic number ${s} on Wikipedia next.`;
  const call = JSON.stringify({ action: 'wikipedia', action_input: `topic ${s}` });
  return { text: `${thought}\nAction:\n\`\`\`json\n${call}\n\`\`\`` };
}

// Runs in the page before the app: records long tasks, when each chat reply's body ended (as the
// page's JavaScript sees the last byte), and the wasm instance's memory (outside the JS heap).
function instrument() {
  const w = window;
  w.__bench = { long: [], replyEnds: [], rows: [], frames: [], memory: null };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const a = e.attribution?.[0];
      w.__bench.long.push({ start: e.startTime, duration: e.duration, attribution: a ? `${a.containerType}:${a.name}` : '' });
    }
  }).observe({ type: 'longtask', buffered: true });
  const fetch0 = w.fetch.bind(w);
  w.fetch = async (input, init) => {
    const res = await fetch0(input, init);
    // A string, a URL (the page's parts are fetched with one) or a Request.
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes('/chat/completions') || !res.body) return res;
    // Pass the body through unchanged, noting the moment its stream closes.
    const tap = new TransformStream({ flush() { w.__bench.replyEnds.push(performance.now()); } });
    return new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const orig = WebAssembly[name].bind(WebAssembly);
    WebAssembly[name] = async (...args) => {
      const out = await orig(...args);
      const exports = (out.instance ?? out).exports;
      if (exports?.memory) w.__bench.memory = exports.memory;
      return out;
    };
  }
  // The moment the n-th `llm_response` row is in the DOM (rows re-rendered keep the count).
  const seen = { n: 0 };
  // Counts only when such a row was added, so the bench itself does not query on every token.
  const isReply = (node) => node.nodeType === 1 && node.matches('li[data-kind="llm_response"]');
  new MutationObserver((records) => {
    if (!records.some((r) => [...r.addedNodes].some(isReply))) return;
    const n = document.querySelectorAll('li[data-kind="llm_response"]').length;
    const now = performance.now();
    while (seen.n < n) { seen.n++; w.__bench.rows.push(now); }
  }).observe(document, { childList: true, subtree: true });
}

const quantile = (xs, q) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const PROFILE = process.argv.includes('--profile');
const TIMELINE = process.argv.includes('--timeline');
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

const server = await startServer();
const browser = await launch();
try {
  const { page, context, scope, errors } = await openApp(browser, server.origin, {
    seed: (scopeUrl, base) => ({
      ...loopbackSettings(scopeUrl, base, { wikipedia: { base_url: `${scopeUrl}/wikipedia`, max_chars: 4000 } }),
      agent: { max_iterations: STEPS + 10 },
    }),
  });
  await context.addInitScript(instrument);
  await page.reload();
  await page.locator('html[data-ready]').waitFor({ state: 'attached' });
  const cdp = await context.newCDPSession(page);
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const wasm = await page.evaluate(() => window.__bench.memory?.buffer.byteLength ?? NaN);
    return { js: usedSize / 2 ** 20, wasm: wasm / 2 ** 20 };
  };
  const before = await heap();

  await script(server.origin, scope, [...Array.from({ length: STEPS }, (_, i) => reply(i + 1)), { text: 'Thought: I have read enough.\nFinal Answer: done after a long run.' }]);
  // Frame deltas from the question to the answer.
  await page.evaluate(() => {
    const b = window.__bench;
    b.framing = true;
    let last = performance.now();
    const tick = (now) => {
      b.frames.push({ at: now, delta: now - last });
      last = now;
      if (b.framing) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const t0 = Date.now();
  await page.getByTestId('composer').fill('A question that takes two hundred steps');
  await page.getByTestId('composer').press('Enter');
  if (PROFILE || TIMELINE) {
    await page.waitForFunction((n) => window.__bench.rows.length >= n, LATE, { timeout: 15 * 60_000, polling: 100 });
  }
  if (TIMELINE) {
    await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  }
  if (PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  // The answer, or a run that ended without one (then there is nothing to measure).
  await page.locator('li[data-kind="final_answer"], .bubble.problem').first().waitFor({ timeout: 15 * 60_000 });
  if (await page.locator('.bubble.problem').count()) {
    throw new Error(`the run ended without an answer: ${await page.locator('.bubble.problem').first().textContent()}`);
  }
  const profile = PROFILE ? (await cdp.send('Profiler.stop')).profile : null;
  const timeline = TIMELINE ? JSON.parse((await browser.stopTracing()).toString()) : null;
  const runMs = Date.now() - t0;
  const b = await page.evaluate(() => { window.__bench.framing = false; const { memory, ...rest } = window.__bench; return rest; });
  // Let the last save settle, then measure the heap again.
  await page.waitForTimeout(1000);
  const after = await heap();
  const steps = await page.locator('li[data-kind="tool_result"]').count();

  const lateStart = b.rows[LATE - 1] ?? Infinity; // step LATE's reply row is on screen
  const longest = (xs) => xs.reduce((m, e) => (e.duration > m.duration ? e : m), { duration: 0, start: NaN, attribution: '' });
  const stepAt = (t) => b.rows.filter((r) => r <= t).length;
  const all = longest(b.long);
  const late = longest(b.long.filter((e) => e.start >= lateStart));
  const frames = b.frames.slice(1).map((x) => x.delta);
  const lateFrames = b.frames.slice(1).filter((x) => x.at >= lateStart).map((x) => x.delta);
  const lags = b.replyEnds.slice(0, b.rows.length).map((end, i) => b.rows[i] - end);
  const lateLags = lags.slice(LATE);

  console.log(`live run: ${steps} tool steps + answer (4,000-char observations, 6-char chunks) in ${(runMs / 1000).toFixed(1)} s, ${b.replyEnds.length} replies streamed`);
  // The longtask API reports only tasks over 50 ms, so "none" means none over 50 ms.
  const worst = (e) => (e.duration ? `longest ${f(e.duration, 0)} ms (at step ${stepAt(e.start)}${e.attribution ? `, ${e.attribution}` : ''})` : 'none over 50 ms');
  console.log(`  long tasks (>50 ms): ${b.long.length}; ${worst(all)}`);
  console.log(`  after step ${LATE}: ${b.long.filter((e) => e.start >= lateStart).length} long tasks; ${worst(late)}`);
  console.log(`  frames while streaming: ${frames.length}, median ${f(quantile(frames, 0.5))} ms, p95 ${f(quantile(frames, 0.95))} ms, worst ${f(Math.max(...frames))} ms`);
  // rAF intervals land on vsync (16.67 ms at 60 Hz, measured 16.6-16.8): one that took over
  // 1.5 of them means at least one frame was dropped.
  const dropped = (xs) => xs.filter((d) => d > 25).length;
  console.log(`    after step ${LATE}: median ${f(quantile(lateFrames, 0.5))} ms, p95 ${f(quantile(lateFrames, 0.95))} ms; `
    + `${dropped(lateFrames)} of ${lateFrames.length} intervals dropped a frame (> 25 ms)`);
  console.log(`  last byte of a reply -> its row in the DOM: median ${f(quantile(lags, 0.5))} ms, p95 ${f(quantile(lags, 0.95))} ms, worst ${f(Math.max(...lags))} ms`);
  console.log(`    after step ${LATE}: median ${f(quantile(lateLags, 0.5))} ms, p95 ${f(quantile(lateLags, 0.95))} ms`);
  console.log(`  JS heap (after GC): ${f(before.js)} MB before, ${f(after.js)} MB after (+${f(after.js - before.js)} MB); wasm memory ${f(before.wasm)} -> ${f(after.wasm)} MB (+${f(after.wasm - before.wasm)} MB)`);
  if (profile) {
    // Self time per function over the samples taken after step LATE.
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    profile.samples.forEach((id, i) => {
      const { functionName, url } = byId.get(id).callFrame;
      const name = `${functionName || '(anonymous)'} ${url ? url.split('/').pop() : ''}`.trim();
      self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    });
    const total = [...self.values()].reduce((a, x) => a + x, 0);
    console.log(`  CPU after step ${LATE} (self time, ${f(total, 0)} ms sampled):`);
    for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
      console.log(`    ${f(ms, 0).padStart(7)} ms  ${f((100 * ms) / total)}%  ${name.slice(0, 110)}`);
    }
  }
  if (timeline) {
    // Inclusive time of the renderer main thread's top-level kinds of work (nested events
    // are counted inside their parent, not again).
    const events = (timeline.traceEvents ?? timeline).filter((e) => e.ph === 'X' && e.dur);
    const main = events.find((e) => e.name === 'UpdateLayoutTree' || e.name === 'Layout');
    const thread = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts);
    const sum = new Map();
    const count = new Map();
    let openUntil = 0;
    let task = 0;
    for (const e of thread) {
      if (e.name === 'RunTask') { task += e.dur; continue; }
      if (e.ts < openUntil) continue; // inside an event already counted
      openUntil = e.ts + e.dur;
      sum.set(e.name, (sum.get(e.name) ?? 0) + e.dur / 1000);
      count.set(e.name, (count.get(e.name) ?? 0) + 1);
    }
    const layouts = thread.filter((e) => e.name === 'Layout' && e.args?.beginData);
    const avg = (key) => layouts.reduce((a, e) => a + (e.args.beginData[key] ?? 0), 0) / (layouts.length || 1);
    console.log(`  layouts after step ${LATE}: ${layouts.length}, on average ${f(avg('dirtyObjects'), 0)} of ${f(avg('totalObjects'), 0)} objects dirty`);
    console.log(`  renderer main thread after step ${LATE}: ${f(task / 1000, 0)} ms in tasks; by kind (ms, count, ms each):`);
    for (const [name, ms] of [...sum].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
      console.log(`    ${f(ms, 0).padStart(7)} ms  ${String(count.get(name)).padStart(6)}  ${f(ms / count.get(name), 2).padStart(7)}  ${name}`);
    }
  }
  if (errors.length) console.log(`  page errors: ${errors.slice(0, 3).join(' | ')}`);
} finally {
  await browser.close();
  server.stop();
}
