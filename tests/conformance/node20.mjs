// Loaded into the conformance suite's process (`node --import`) on Node 20: the suite takes
// `globSync` from `fs` at start-up (Node 22 has it), for its `tier-check` command alone, which
// is not used here. Its imports of `fs` get Node's module plus a `globSync` that says so.
import { register } from 'node:module';

if (!('globSync' in (await import('node:fs')))) {
  register('./node20-hooks.mjs', import.meta.url);
}
