/**
 * Hostile-page bench (issue 15): what each hostile fixture costs against its time budget. Every page of
 * fixtures/hostile/ plus pages made at run time (too big to commit: a 50 MB file, a page nested 100 000 levels
 * deep, 80 000 paragraphs for copywriting) is scored once with every rule metric of the study suite (browser
 * session, Lighthouse, static metrics; judges need a model and are left out) by one Scorer, as `webgrade score`
 * would; after each, a clean page is scored to check that the browser is still usable. Prints one table row per
 * page: the budget, the wall time, its share of the budget, how many metrics were unscorable, and the first
 * fault or reason.
 *
 *   node dist/bench/hostile.js [--budget 20] [--only id,id] [--pages a.html,b.html]
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { suiteMetrics } from '../metrics/registry.js';
import { Scorer } from '../runner/score.js';
import { printable } from '../lib/text.js';
import { benchArgs } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/hostile.js [--budget 20] [--only id,id] [--pages a.html,b.html]', {
  budget: { type: 'number', default: 20 },
  only: { type: 'string' },
  pages: { type: 'string' },
});

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', '..', 'fixtures');
const budgetS = args.budget;
const only =
  args.only?.split(',') ??
  suiteMetrics('study')
    .filter((m) => m.kind !== 'judge')
    .map((m) => m.id);
const pick = args.pages?.split(',');

/** Pages made at run time (never committed): name → path. */
function generated(tmp: string): Array<[string, string]> {
  const big = join(tmp, 'big-file');
  mkdirSync(big);
  writeFileSync(
    join(big, 'index.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>big file</title></head><body><p>A 50 MB file.</p><img src="big.bin" alt="big"><script>fetch('big.bin').then((r) => r.arrayBuffer());</script></body></html>`,
  );
  writeFileSync(join(big, 'big.bin'), Buffer.alloc(50 * 1024 * 1024, 1));
  const deep = join(tmp, 'deep-100k.html');
  writeFileSync(
    deep,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>deep</title></head><body>${'<div>'.repeat(100_000)}deep${'</div>'.repeat(100_000)}</body></html>`,
  );
  const words = join(tmp, 'paragraphs-80k.html');
  const para = (i: number) => `<p>Sign in to your account and log in again to manage the e-mail and email settings, item ${i}.</p>`;
  writeFileSync(
    words,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>words</title></head><body>${Array.from({ length: 80_000 }, (_, i) => para(i)).join('\n')}</body></html>`,
  );
  return [
    ['50 MB file (generated)', big],
    ['nested 100 000 deep (generated)', deep],
    ['80 000 paragraphs (generated)', words],
  ];
}

const tmp = mkdtempSync(join(tmpdir(), 'webgrade-hostile-bench-'));
try {
  const pages: Array<[string, string]> = [
    ...readdirSync(join(fixtures, 'hostile'))
      .filter((n) => n.endsWith('.html'))
      .sort()
      .map((n): [string, string] => [n, join(fixtures, 'hostile', n)]),
    ...generated(tmp),
  ].filter(([name]) => !pick || pick.some((p) => name.startsWith(p)));

  const scorer = new Scorer({ only, budgetMs: budgetS * 1000 });
  const table = new Table({
    head: ['page', 'budget s', 'took s', '% of budget', 'unscorable', 'browser usable after', 'first fault / reason'],
    style: { head: [], border: [] },
  });
  try {
    for (const [name, path] of pages) {
      const t = performance.now();
      let took: number;
      let unscorable = '-';
      let note = '';
      try {
        const { doc, evidence } = await scorer.scoreWithEvidence(path);
        took = (performance.now() - t) / 1000;
        const un = doc.metrics.filter((m) => m.score === null);
        unscorable = `${un.length}/${doc.metrics.length}`;
        const faults = evidence.browser?.ok ? evidence.browser.value.faults : [];
        note = faults[0] ?? un[0]?.reason ?? '';
      } catch (err) {
        took = (performance.now() - t) / 1000;
        note = `error: ${(err as Error).message}`;
      }
      const next = await scorer.score(join(fixtures, 'browser', 'clean-1000.html'));
      const usable = next.metrics.find((m) => m.id === 'console-errors')?.score === 100 ? 'yes' : 'NO';
      table.push([name, budgetS, took.toFixed(1), `${Math.round((100 * took) / budgetS)}%`, unscorable, usable, printable(note).slice(0, 70)]);
      process.stderr.write(`${name}: ${took.toFixed(1)} s\n`);
    }
  } finally {
    await scorer.close();
  }
  process.stdout.write(`${only.length} metrics (${only.join(', ')}), budget ${budgetS} s per page\n${table.toString()}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
