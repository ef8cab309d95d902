/**
 * Child process of the ES module tests: imports the URLs given as JSON in argv[2] through esm-hooks (the cache
 * folder and registry in argv[3], argv[4]) and prints what the test needs: for each URL its export names, and
 * whether the `coreOf*` / `token` values of all modules are one object.
 */
import { register } from 'node:module';

const urls = JSON.parse(process.argv[2]!) as string[];
register('./esm-hooks.js', import.meta.url, { data: { dir: process.argv[3], registry: process.argv[4] } });
const mods: Array<Record<string, unknown>> = [];
for (const u of urls) mods.push((await import(u)) as Record<string, unknown>);
const tokens = mods.flatMap((m) => ['coreOfA', 'coreOfB', 'token'].filter((k) => k in m).map((k) => m[k]));
const out = {
  exports: mods.map((m) => Object.keys(m).sort()),
  oneCore: tokens.length > 1 && tokens.every((t) => t === tokens[0]),
  cores: tokens.length,
  values: mods.map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'))),
  defaults: mods.map((m) => typeof m.default),
};
// WEBGRADE_REACT_CHECK: the first module is React, the second react-dom/server; render a component with a hook,
// which throws "Invalid hook call" when react-dom got another React instance than the page.
if (process.env.WEBGRADE_REACT_CHECK) {
  type R = { createElement: (c: unknown) => unknown; useState: <T>(v: T) => [T] };
  const React = (mods[0]!.default ?? mods[0]) as R;
  const render = mods[1]!.renderToString as (e: unknown) => string;
  (out as Record<string, unknown>).rendered = render(React.createElement(() => React.useState('one react')[0]));
}
process.stdout.write(JSON.stringify(out));
