/**
 * Six tests per page, before and after: the same six tests in SPEC's floor language (steps click, press, wait,
 * reload; expectations noErrors, changed, count), which every build since requirement tests began can run, on the
 * same pages (the heavy fixtures and every `--every`-th corpus page), scored by the build whose `dist/` is given
 * (`--dist <checkout>/dist` measures another build, e.g. a checkout of the pre-round commit; default this build). Per page the seconds of its six
 * tests (browser context included), median, p90, largest, with the date and the load average, so that one run
 * per build gives the issue's "before vs after" figure for the same work.
 *
 *   node dist/bench/requirement-tests-floor.js [--dist DIR] [--every K]
 */
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, corpusDir } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/requirement-tests-floor.js [--dist DIR] [--every K]', {
  dist: { type: 'string' },
  every: { type: 'number', default: 40 },
});

/** The generic six of bench/requirement-tests.ts said in the floor language (a resize becomes a reload). */
export const FLOOR_SIX = [
  { id: 'no-errors', steps: [], expect: [{ noErrors: true }] },
  { id: 'motion', steps: [{ wait: 1000 }], expect: [{ changed: 'page' }] },
  { id: 'first-control', steps: [{ click: { css: 'button, [role=button], a[href], canvas' } }], expect: [{ changed: 'page' }] },
  { id: 'run-jump', steps: [{ press: 'ArrowRight', hold: 300 }, { press: ' ' }, { wait: 500 }], expect: [{ changed: 'canvas' }] },
  { id: 'reload', steps: [{ reload: true }, { wait: 500 }], expect: [{ noErrors: true }, { count: { css: 'body *' }, min: 1 }] },
  { id: 'holds', steps: [{ wait: 2000 }], expect: [{ count: { css: 'body' }, min: 1 }] },
];

interface Result {
  passed: boolean | null;
}
interface ScorerLike {
  scoreWithEvidence(
    path: string,
    extra: { requirement: { id: string; requirement: string; tests: unknown[] } },
  ): Promise<{ evidence: { requirementTests?: { ok: boolean; value?: { results: Result[] } } } }>;
  close(): Promise<void>;
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};

const dist = resolve(args.dist ?? fileURLToPath(new URL('..', import.meta.url)));
const every = args.every;
const { Scorer } = (await import(join(dist, 'runner', 'score.js'))) as { Scorer: new (o: object) => ScorerLike };
const pages: string[] = [];
const heavy = fileURLToPath(new URL('../../fixtures/heavy/', import.meta.url));
for (const f of readdirSync(heavy).sort()) if (f.endsWith('.html')) pages.push(join(heavy, f));
try {
  const corpus = join(corpusDir, 'llm-tools', 'pages');
  const files = readdirSync(corpus)
    .filter((f) => f.endsWith('.html'))
    .sort();
  for (let i = 0; i < files.length; i += every) pages.push(join(corpus, files[i]!));
} catch {
  console.log('floor six: no corpus; heavy fixtures only');
}
const load0 = loadavg()[0]!;
const started = new Date().toISOString();
const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'] });
const rows: Array<{ name: string; s: number; passed: number; notRun: number }> = [];
try {
  await scorer.scoreWithEvidence(pages[0]!, { requirement: { id: 'warm', requirement: 'warm-up', tests: [FLOOR_SIX[0]] } });
  for (const p of pages) {
    const t = performance.now();
    const { evidence } = await scorer.scoreWithEvidence(p, { requirement: { id: 'six', requirement: 'six tests', tests: FLOOR_SIX } });
    const rs = evidence.requirementTests?.ok ? (evidence.requirementTests.value?.results ?? []) : [];
    rows.push({
      name: p.includes('/heavy/') ? `heavy/${p.split('/').pop()}` : p.split('/').pop()!,
      s: (performance.now() - t) / 1000,
      passed: rs.filter((r) => r.passed).length,
      notRun: rs.filter((r) => r.passed === null).length,
    });
  }
} finally {
  await scorer.close();
}
const all = rows.map((r) => r.s);
const h = rows.filter((r) => r.name.startsWith('heavy/'));
console.log(`floor six with ${dist}: ${rows.length} pages (${h.length} heavy), ${started}, load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`);
console.log(`  seconds per page: median ${q(all, 0.5).toFixed(2)}, p90 ${q(all, 0.9).toFixed(2)}, max ${Math.max(...all).toFixed(2)}`);
console.log(`  heavy: ${h.map((r) => `${r.name.slice(6)} ${r.s.toFixed(1)} s (${r.passed} passed, ${r.notRun} not run)`).join(', ')}`);
console.log(`  tests not run: ${rows.reduce((n, r) => n + r.notRun, 0)} of ${rows.length * 6}`);
