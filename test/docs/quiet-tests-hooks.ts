/**
 * A module resolve hook (node:module `register`) for reading the metric test tables without running tests: a
 * compiled metric test that imports `node:test` gets a module whose functions do nothing, so its own
 * `describe`/`it` blocks never start, while `testMetric` records its table (test/docs/metric-pages.ts). Only
 * files under dist/test/metrics/ are redirected.
 */
const NAMES = ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach', 'run', 'only', 'skip', 'todo'];
const STUB =
  'data:text/javascript,' +
  encodeURIComponent(
    `const noop = () => {};\nexport { ${NAMES.map((n) => `noop as ${n}`).join(', ')} };\n` +
      `export const mock = new Proxy({}, { get: () => noop });\nexport default noop;\n`,
  );

interface ResolveContext {
  parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  if ((specifier === 'node:test' || specifier === 'test') && context.parentURL?.includes('/dist/test/metrics/')) return { url: STUB, shortCircuit: true };
  return next(specifier, context);
}
