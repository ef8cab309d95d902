/**
 * Mutation benchmark (issue 20): every operator over the fixture pages and a deterministic sample of corpus pages,
 * through the product's own runner (mutate/run.ts: original and mutants scored by one set of gatherers). Prints,
 * per target metric, how many mutants of its own operators it could judge (the operator applied and the metric
 * was scorable and above 0 on the original), how many it detected, the rate (goal ≥ 90 %), and the false moves
 * (non-target metrics that moved and are not named as collateral), then the same per operator, and every miss
 * with its page and scores so a reader can tell a blind metric from an edit that changed nothing visible.
 *
 *   node dist/bench/mutate.js [--pages 10] [--scope targets|all] [--repeats 1] [--suite extended]
 *        [--operators a,b] [--out results.jsonl] [--json]
 *   node dist/bench/mutate.js --from results.jsonl      (the tables of an earlier, possibly interrupted, run)
 *
 * Pages: fixtures/mutate/rich and fixtures/example, then `--pages` corpus pages, half from
 * ../shared/corpus/llm-tools/pages and half from ../shared/corpus/design2code/predictions (every model's
 * folder), each the first by the SHA-1 of its path (a fixed, order-free sample). `--scope targets` (default)
 * scores each mutant only on its targets and the metrics their evidence gives for free: about 3–4 minutes a page
 * on a loaded 2-core machine against 6–8 for `all`; false moves are then measured among those metrics only.
 * The default of 10 corpus pages (12 in all, about an hour; README's detection rates come from such a run) keeps a
 * default run practical: 20 (22 pages) would take about two hours at README's 5 minutes a page.
 * `--out` appends one JSON line per page (the `webgrade mutate --json` document) for later analysis.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteId } from '../core/metric.js';
import { reportJson } from '../mutate/report.js';
import { judgeable, MutationRunner, type MutationReport, type Scope } from '../mutate/run.js';
import { benchArgs, usageError } from './common.js';

const USAGE =
  'usage: node dist/bench/mutate.js [--pages 10] [--scope targets|all] [--repeats 1] [--suite extended] [--operators a,b] [--out results.jsonl] [--json]\n' +
  '       node dist/bench/mutate.js --from results.jsonl';
const { values: args } = benchArgs(USAGE, {
  pages: { type: 'number', default: 10 },
  scope: { type: 'string', default: 'targets' },
  repeats: { type: 'number', default: 1 },
  suite: { type: 'string', default: 'extended' },
  operators: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  from: { type: 'string' },
});
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const corpus = join(root, '..', 'shared', 'corpus');
const nPages = args.pages;
const scope = args.scope as Scope;
const repeats = args.repeats;
const suite = args.suite as SuiteId;
const operators = args.operators?.split(',');
const out = args.out;
const json = args.json;
if (!Number.isInteger(nPages) || nPages < 0) usageError(USAGE, `--pages must be a whole number ≥ 0, got ${nPages}`);
if (!['targets', 'all'].includes(scope)) usageError(USAGE, `--scope must be targets or all, got ${scope}`);

const sha = (s: string) => createHash('sha1').update(s).digest('hex');

/** The first `n` HTML files under `dirs` by the SHA-1 of their path relative to the corpus. */
function sample(dirs: string[], n: number): string[] {
  const files: string[] = [];
  for (const d of dirs) if (existsSync(d)) for (const f of readdirSync(d)) if (f.endsWith('.html')) files.push(join(d, f));
  return files.sort((a, b) => sha(relative(corpus, a)).localeCompare(sha(relative(corpus, b)))).slice(0, n);
}

const d2c = join(corpus, 'design2code', 'predictions');
const llm = sample([join(corpus, 'llm-tools', 'pages')], Math.ceil(nPages / 2));
const design = sample(existsSync(d2c) ? readdirSync(d2c).map((m) => join(d2c, m)) : [], Math.floor(nPages / 2));
// the two sources alternate, so a run stopped early still has pages of both
const pages = [join(root, 'fixtures', 'mutate', 'rich'), join(root, 'fixtures', 'example'), ...llm.flatMap((p, i) => (design[i] ? [p, design[i]!] : [p]))];

interface Tally {
  judged: number;
  detected: number;
  notApplied: number;
  unjudgeable: number;
  /** The target could not be scored on the mutant (on this machine: Lighthouse timing out under load). */
  mutantUnscorable: number;
  falseMoves: Map<string, number>;
  expectedMoves: number;
  misses: string[];
}
const tally = () => ({
  judged: 0,
  detected: 0,
  notApplied: 0,
  unjudgeable: 0,
  mutantUnscorable: 0,
  falseMoves: new Map<string, number>(),
  expectedMoves: 0,
  misses: [] as string[],
});
const byMetric = new Map<string, Tally>();
const byOperator = new Map<string, Tally>();
const get = (m: Map<string, Tally>, k: string) => m.get(k) ?? (m.set(k, tally()), m.get(k)!);
const failures: string[] = [];

function add(report: MutationReport, page: string): void {
  for (const o of report.operators) {
    const op = get(byOperator, o.id);
    if (!o.applied) {
      op.notApplied++;
      for (const t of o.targets) if (!o.skippedTargets?.[t]) get(byMetric, t).notApplied++;
      continue;
    }
    for (const m of o.moved) {
      if (m.expected) {
        op.expectedMoves++;
        continue;
      }
      op.falseMoves.set(m.id, (op.falseMoves.get(m.id) ?? 0) + 1);
      for (const t of Object.keys(o.detected))
        get(byMetric, t).falseMoves.set(`${m.id} (${o.id})`, (get(byMetric, t).falseMoves.get(`${m.id} (${o.id})`) ?? 0) + 1);
    }
    for (const t of Object.keys(o.detected)) {
      const mt = get(byMetric, t);
      if (!judgeable(o, t)) {
        mt.unjudgeable++;
        continue;
      }
      if (o.notes?.[t]?.startsWith('unscorable on the mutant')) {
        // not a miss and not a detection: listed with its reason, left out of the rate
        mt.mutantUnscorable++;
        mt.misses.push(`(not judged) ${o.id} on ${page}: ${o.notes[t]}`);
        continue;
      }
      mt.judged++;
      op.judged++;
      if (o.detected[t]) {
        mt.detected++;
        op.detected++;
      } else {
        const s = o.scores[t];
        const miss = `${o.id} on ${page}: ${s?.base ?? 'n/a'} → ${s?.mutant ?? 'n/a'}${o.notes?.[t] ? ` (${o.notes[t]})` : ''}`;
        mt.misses.push(miss);
        op.misses.push(`${t}: ${miss}`);
      }
    }
  }
}

const pct = (a: number, b: number) => (b ? `${Math.round((100 * a) / b)}%` : 'n/a');
const moves = (m: Map<string, number>) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}×${v}`)
    .join(', ') || '—';

const nameOf = (p: string) => (p.startsWith('/') ? (relative(root, p).startsWith('..') ? relative(corpus, p) : relative(root, p)) : p);
const from = args.from;
if (from) {
  // summarise the JSON lines of an earlier (possibly interrupted) run instead of running
  for (const line of readFileSync(from, 'utf8').split('\n').filter(Boolean)) {
    const doc = JSON.parse(line) as MutationReport & { page: string };
    add(doc, doc.page);
  }
  pages.splice(
    0,
    pages.length,
    ...readFileSync(from, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { page: string }).page),
  );
}
const runner = from
  ? null
  : new MutationRunner({ suite, scope, repeats, ...(operators ? { operators } : {}), progress: (l) => process.stderr.write(`  ${l}\n`) });
const t0 = performance.now();
try {
  for (const [i, p] of (runner ? pages : []).entries()) {
    const name = nameOf(p);
    process.stderr.write(`[${i + 1}/${pages.length}] ${name} (${((performance.now() - t0) / 60000).toFixed(1)} min)\n`);
    try {
      const report = await runner!.run(p);
      add(report, name);
      if (out) appendFileSync(out, JSON.stringify({ page: name, ...reportJson(report) }) + '\n');
    } catch (err) {
      failures.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
} finally {
  await runner?.close();
}
const minutes = (performance.now() - t0) / 60000;

if (json) {
  const obj = (m: Map<string, Tally>) =>
    Object.fromEntries([...m].map(([k, t]) => [k, { ...t, rate: t.judged ? t.detected / t.judged : null, falseMoves: Object.fromEntries(t.falseMoves) }]));
  console.log(JSON.stringify({ pages: pages.length, scope, repeats, suite, minutes, metrics: obj(byMetric), operators: obj(byOperator), failures }, null, 2));
} else {
  console.log(
    `webgrade mutate benchmark: ${pages.length} pages (${pages.map(nameOf).filter((p) => p.startsWith('fixtures')).length} fixtures), scope ${scope}, repeats ${repeats}, suite ${suite}, ${minutes.toFixed(1)} min`,
  );
  console.log('\nper target metric (mutants of its own operators; judged = applied, scorable and above 0 on the original)');
  console.log('(n/a: the operator did not apply; unjudg.: unscorable or at 0 on the original; mut.null: unscorable on the mutant, left out of the rate)');
  console.log(
    `${'metric'.padEnd(26)}${'detected'.padStart(9)}${'judged'.padStart(8)}${'rate'.padStart(6)}${'n/a'.padStart(5)}${'unjudg.'.padStart(8)}${'mut.null'.padStart(9)}  false moves`,
  );
  for (const [k, t] of [...byMetric].sort((a, b) => a[0].localeCompare(b[0])))
    console.log(
      `${k.padEnd(26)}${String(t.detected).padStart(9)}${String(t.judged).padStart(8)}${pct(t.detected, t.judged).padStart(6)}${String(t.notApplied).padStart(5)}${String(t.unjudgeable).padStart(8)}${String(t.mutantUnscorable).padStart(9)}  ${moves(t.falseMoves)}`,
    );
  console.log('\nper operator');
  for (const [k, t] of byOperator)
    console.log(
      `${k.padEnd(22)} ${pct(t.detected, t.judged).padStart(5)} of ${String(t.judged).padStart(3)} judged, not applied ${t.notApplied}, expected moves ${t.expectedMoves}, false moves: ${moves(t.falseMoves)}`,
    );
  console.log('\nmisses');
  for (const [k, t] of byMetric) for (const m of t.misses) console.log(`  ${k}: ${m}`);
  if (failures.length) console.log(`\nfailed pages:\n  ${failures.join('\n  ')}`);
}
