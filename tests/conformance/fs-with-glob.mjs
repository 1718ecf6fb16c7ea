// Node's `fs`, with the `globSync` of Node 22 that the conformance suite's `tier-check` needs
// (node20.mjs): here it only says it is missing.
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('globSync needs Node 22 or later (used by the suite\'s tier-check only)');
}
