// Issue 8's measurement: how many of 10 questions end with a final answer from SmolLM2-135M on
// llama.cpp, with the ReAct text format and with structured output (a JSON schema the server
// turns into a grammar). Runs the real page against the real server; prints a table.
//   node scripts/measure-structured.mjs [--max-iterations 5]
import { startServer, launch, openApp } from '../tests/e2e/harness.mjs';
import { startLlama, llamaSettings, askAndWait, exportedEvents } from '../tests/e2e/llama.mjs';

const QUESTIONS = [
  'Who was Albert Einstein?',
  'What is 25% of 300?',
  'What is the capital of France?',
  'Who created the Python programming language?',
  'What is 17 times 23?',
  'When was the Eiffel Tower built?',
  'What is the boiling point of water in Fahrenheit?',
  'Who wrote Pride and Prejudice?',
  'What is the square root of 144?',
  'What is machine learning?',
];
const arg = process.argv.indexOf('--max-iterations');
const maxIterations = arg > 0 ? Number(process.argv[arg + 1]) : 5;

const server = await startServer();
const browser = await launch();
const llama = await startLlama();
const rows = [];
try {
  for (const structured of [false, true]) {
    let answered = 0;
    let parseErrors = 0;
    let steps = 0;
    for (const q of QUESTIONS) {
      const { page, context } = await openApp(browser, server.origin, {
        seed: (scopeUrl) => llamaSettings(llama.base, scopeUrl, { stream: true, structured, maxIterations }),
      });
      const outcome = await askAndWait(page, q);
      const events = await exportedEvents(page);
      const final = events.find((e) => e.kind.final_answer);
      const ok = Boolean(final) && final.kind.final_answer.source !== 'last_answer';
      answered += ok ? 1 : 0;
      parseErrors += events.filter((e) => e.kind.parse_failed).length;
      steps += events.filter((e) => e.kind.llm_request?.purpose === 'step').length;
      const stop = outcome.tones.find((t) => t.startsWith('run_stopped'));
      console.log(`${structured ? 'structured' : 'text      '} | ${ok ? 'answer ' : 'no     '} | ${stop} | ${q}${final ? ` → ${JSON.stringify(final.kind.final_answer.answer.slice(0, 80))}` : ''}`);
      await context.close();
    }
    rows.push({ mode: structured ? 'ReAct + structured output' : 'ReAct (text)', answered, parseErrors, steps });
  }
} finally {
  await browser.close();
  server.stop();
  llama.stop();
}
console.log(`\nSmolLM2-135M-Instruct Q4_1 on llama-cpp-python, ${QUESTIONS.length} questions, max ${maxIterations} steps each`);
console.log('| mode | runs ending with a final answer | format errors | model steps |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.mode} | ${r.answered} / ${QUESTIONS.length} | ${r.parseErrors} | ${r.steps} |`);
