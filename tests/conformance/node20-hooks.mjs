// Module hooks (node20.mjs): the conformance suite's `fs` is Node's, with a `globSync` added.
const SUITE = '/@modelcontextprotocol/conformance/';

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(SUITE)) {
    return { url: new URL('./fs-with-glob.mjs', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
