/**
 * Every benchmark of bench/ runs: each compiled script on a tiny input (one or two of the repository's fixture
 * pages; the Design2Code corpus for fidelity and fidelity-ocr, which have no fixture of that shape) must exit 0 and
 * print its figure lines. The figures' values are not checked: they depend on the machine, and README's come from a
 * quiet one. A benchmark that cannot run here (exit code 3: its corpus, redis-server or tesseract.js is absent) is
 * skipped with the reason it printed.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CANNOT_RUN } from '../../bench/common.js';
import { corpusDir, fixture, repoRoot, runScript, tempDir } from '../helpers.js';
import { redisServerBinary } from '../queue/redis-server.js';
import { sandboxSkip } from '../project/tools.js';

interface Smoke {
  name: string;
  args: string[];
  /** Lines the benchmark prints on stdout, one pattern each, all of which must be there. */
  figures: RegExp[];
  /** Why it cannot run here, when that is known before starting it. */
  skip?: () => string | undefined;
}

const d2c = join(corpusDir, 'design2code');
const needsD2c = () => (existsSync(join(d2c, 'references')) ? undefined : `the Design2Code corpus (${d2c}) is absent`);
const stabilityOut = join(tempDir('webgrade-bench-smoke-'), 'stability');
/** Two small, still pages of fixtures/browser, for the benchmarks that take the first pages of a folder. */
const pagesDir = tempDir('webgrade-bench-pages-');
for (const page of ['icons-consistent.html', 'no-dead-css.html']) copyFileSync(fixture('browser', page), join(pagesDir, page));
const num = String.raw`-?[\d.]+|NaN|n/a`;

const SMOKES: Smoke[] = [
  {
    name: 'static-metrics',
    args: ['--dir', fixture('cdn')],
    figures: [/^\d+ pages from .*; wall [\d.]+ s, median load/m, /^metric\s+min\s+median\s+max\s+scored/m, /^lint\s/m, /^comment-rate\s/m],
  },
  {
    // The cold pass asks the real npm registry (one package here), as the benchmark is meant to.
    name: 'cdn-coverage',
    args: [fixture('cdn', 'chartjs.html')],
    figures: [
      /^pages: 1 scanned/m,
      /^pages whose CDN URLs were all served: \d+\/\d+ = /m,
      /^time: cold [\d.]+ s .* warm [\d.]+ s .* offline [\d.]+ s; answers identical across passes: (true|false)$/m,
      /^cache: [\d.]+ MiB/m,
    ],
  },
  {
    name: 'vision',
    args: ['--pages', '1', '--dir', pagesDir],
    figures: [/^1 pages from /m, /^layout-consistency\s/m, /^placeholder-quality\s/m, /^all five together\s+[\d.]+/m],
  },
  {
    name: 'cpu',
    args: ['--dir', pagesDir, '--suite', 'study', '--concurrency', '1'],
    figures: [
      /^cpu benchmark: 2 pages from .*, suite study, concurrency 1; \d+ cores;/m,
      /^wall [\d.]+ s; machine idle [\d.]+ %; load average/m,
      /^pages: 2 scored of 2; wall per page median [\d.]+ s, p90 [\d.]+ s$/m,
      /^CPU seconds: [\d.]+ in all/m,
      /^ {2}chrome renderer +[\d.]+ s +\d+ % +[\d.]+ s\/page$/m,
      /^ {2}webgrade \(node\) +[\d.]+ s/m,
    ],
  },
  {
    name: 'bare-lighthouse',
    args: [fixture('example')],
    figures: [/example: bare Lighthouse [\d.]+ s; performance (\d+|n\/a), accessibility/],
  },
  {
    name: 'browser-suite',
    args: ['--pages', '1', '--repeats', '1', '--dir', pagesDir],
    figures: [
      /^1 pages from .*; \d+ rule metrics of the study suite;/m,
      new RegExp(String.raw`^median seconds per page: full rule suite (${num}), bare Lighthouse (${num}); ratio (${num}) \(goal ≤ 1\.3\)$`, 'm'),
      /^peak memory \(node \+ both Chromes\): \d+ MiB PSS/m,
      /^where the suite's time goes/m,
      /^score stability: 1 runs of each of 1 pages/m,
    ],
  },
  {
    name: 'hostile',
    args: ['--pages', 'window-close.html'],
    figures: [/^\d+ metrics \(.*\), budget 20 s per page$/m, /window-close\.html/],
  },
  {
    // One heavy fixture and one light corpus page (none when the corpus is absent), no corpus animated pages.
    name: 'heavy-pages',
    args: ['--pages', 'cloth', '--light', '1', '--no-corpus'],
    figures: [
      /^\d+ pages \(1 heavy\), \d+ rule metrics of the study suite/m,
      /^cloth\.html\theavy\t/m,
      /^heavy seconds per page: median [\d.]+, p90/m,
      /^bare Lighthouse with the same settings \(the floor\): median/m,
      /^study rule metrics unscorable for time: \d+/m,
    ],
  },
  {
    name: 'interaction',
    args: ['--pages', '1', '--dir', fixture('interaction')],
    figures: [
      /^probe alone, 1 pages/m,
      /^ {2}seconds per page: median [\d.]+, p90/m,
      /^ {2}controls \d+, actions \d+/m,
      /^ {2}pages with at least one inert control:/m,
    ],
  },
  {
    name: 'first-view',
    args: ['--pages', '1', '--dir', fixture('first-view'), '--no-fixtures'],
    figures: [/^\[1\/1\] canvas-black\.html: render-validity 0/m, /^corpus: 1 pages; the visit's screenshot read on \d+; probe and visit agree on \d+ of \d+/m],
  },
  {
    // The clock page only; the begin-frame mode runs where Debian's chromium-headless-shell is installed. The lines'
    // shape is checked, not their figures: whether the clock repeats is what the benchmark measures (under the test
    // suite's load the begin-frame mode once read 2303 ms for 2300, 2026-11-28).
    name: 'virtual-time',
    args: ['--no-fixtures', '--runs', '2'],
    figures: [
      /^virtual-time benchmark .*, 2 runs per page and mode, 2300 ms of page time$/m,
      /^visit {8}clock page {13}[\d.]+ s {2}screenshots .* clock \{"now":\d+,"frames":\d+,"ticks":\d+\}/m,
      /^virtual-time clock page {13}[\d.]+ s {2}screenshots .* clock \{"now":\d+/m,
      /^begin-frame(: skipped \(.*chromium-headless-shell| +clock page {13}[\d.]+ s {2}screenshots .* clock \{"now":\d+)/m,
    ],
  },
  {
    name: 'visit-clock',
    args: ['--pages', '2', '--dir', pagesDir, '--no-fixtures', '--runs', '2'],
    figures: [
      /^2 pages \(2 corpus, 0 of them animated or canvas\), 2 runs per clock/m,
      /^real: screenshots identical on \d+ of 2, DOM on \d+; visit s median [\d.]+, p90 [\d.]+/m,
      /^page: screenshots identical on \d+ of 2, DOM on \d+; visit s median [\d.]+, p90 [\d.]+/m,
    ],
  },
  {
    name: 'runtime',
    args: ['--pages', 'smooth.html', '--repeats', '1', '--no-concurrency'],
    figures: [/^runtime\/smooth\.html: watch [\d.]+ s, page [\d.]+ s; frame-smoothness/m, /^added cost per page: watch median [\d.]+ s/m],
  },
  {
    name: 'requirement-tests',
    args: ['--repeats', '1'],
    figures: [
      /^scripted: \d+ tests on \d+ artifacts, 1 repeats$/m,
      /^ {2}ms per test \(restore to after-screenshot\): median \d+/m,
      /^agent: 1 natural-language test solved in 2 steps: 3 calls, passed true/m,
      /^ {2}replay of the recording: 0 calls, passed true \(replay\)/m,
    ],
  },
  {
    name: 'fidelity',
    args: ['--pages', '1', '--methods', 'websight'],
    skip: needsD2c,
    figures: [
      /^Design2Code outputs vs their references \(1 pages per method/m,
      /^\| websight \| 1 \|/m,
      /^- reference rendered now: /m,
      /^- scoring both metrics: median/m,
    ],
  },
  {
    name: 'fidelity-checks',
    args: [fixture('fidelity', 'landing.html')],
    figures: [/^resized views vs views loaded fresh at that size, 1 pages: .*visual mean [\d.]+/m],
  },
  {
    name: 'fidelity-ocr',
    args: ['--pages', '1'],
    skip: needsD2c,
    figures: [/^OCR \(tesseract\.js, eng best_int\) on 1 Design2Code references .* per image median [\d.]+ s/m],
  },
  {
    // Installs from the real npm registry into an empty store, and builds in bubblewrap, installed first when
    // missing as the project tests do (on a fresh machine this check used to run before them and skip).
    name: 'projects',
    args: ['--copies', '1', '--npm', '1'],
    skip: sandboxSkip,
    figures: [
      /^pnpm store, filled by the first project: \d+ tarballs/m,
      /^pnpm, 1 warm projects: install median [\d.]+ s.*; downloads 0;/m,
      /^npm cache: cold install [\d.]+ s/m,
    ],
  },
  {
    name: 'batch',
    args: ['--pages', '1', '--dir', pagesDir],
    figures: [
      /^browser: \S+ \(.+\)$/m,
      /^ {2}--concurrency 1: [\d.]+ s, [\d.]+ pages\/min \(0 failed\)$/m,
      /^ {2}--concurrency 2: [\d.]+ s, [\d.]+ pages\/min \(0 failed\)$/m,
      /^ {2}performance: /m,
      /^ {2}best-practices: /m,
    ],
  },
  {
    name: 'stability',
    args: ['--pages', '2', '--models', '2', '--dir', pagesDir, '--out', stabilityOut],
    figures: [
      /^2 pages \(\d+ animated or canvas, \d+ heavy fixtures\), 2 pseudo-models, visit clock (real|page); results in/m,
      /^per-page overall A vs B/m,
      /^pseudo-model order A: /m,
      /^pages per minute: concurrency 1 [\d.]+ and [\d.]+, concurrency 2 [\d.]+/m,
      /^pictures byte-identical A vs B, of 2 pages with a desktop screenshot in both: desktop screenshot \d \([\d.]+ %\), every picture \d/m,
      /^performance moved A→B on \d pages \(goal ≤ 2\)/m,
    ],
  },
  {
    // stability's two runs at concurrency 1, as `npm run bench` gives them.
    name: 'noise-guard',
    args: [join(stabilityOut, 'a-c1.jsonl'), join(stabilityOut, 'b-c1.jsonl'), '--pseudo-models', '2'],
    skip: () => (existsSync(join(stabilityOut, 'b-c1.jsonl')) ? undefined : 'stability did not leave its results'),
    figures: [/^2 runs \(/m, /^k\s+raised\s+page overall move/m, /^default k today: /m],
  },
  {
    // One CDN page; its cold pass fills a fresh cache from the real npm registry.
    name: 'network-modes',
    args: ['--pages', '1', '--cold', '1', '--dir', fixture('cdn')],
    figures: [
      /^pages: 1; requesting CDN files: [01]$/m,
      /^all CDN requests served \(mode cdn\): /m,
      /^metric\s+mean offline\s+mean cdn/m,
      /^seconds per CDN page \(median\): offline /m,
    ],
  },
  {
    // Two pages, so that one is done while the other is held when a worker is killed; a short stall timeout.
    name: 'queue',
    args: ['--pages', '2', '--dir', pagesDir, '--stall-timeout', '5'],
    skip: () => {
      const bin = redisServerBinary();
      return 'skip' in bin ? bin.skip : undefined;
    },
    figures: [
      /^batch --concurrency 1: [\d.]+ s/m,
      /^queue, 1 worker: +[\d.]+ s/m,
      /^queue, 2 workers: +[\d.]+ s/m,
      /^queue overhead per job: median \d+ ms/m,
      /^recovery after SIGKILL \(stall timeout 5 s\)/m,
    ],
  },
  {
    // Only the two fixture pages and one static operator: the runner's path without a browser-heavy mutant.
    name: 'mutate',
    args: ['--pages', '0', '--operators', 'strip-comments'],
    figures: [
      /^webgrade mutate benchmark: 2 pages \(2 fixtures\)/m,
      /^per target metric/m,
      /^comment-rate\s+\d+\s+\d+/m,
      /^per operator/m,
      /^strip-comments\s/m,
    ],
  },
  {
    // Judges answered by a local chat-completions server after 0.2 s; the figures of README come from 8 pages at 15 s.
    name: 'judge-pipeline',
    args: ['--pages', '1', '--delay', '0.2', '--dir', pagesDir],
    figures: [
      /^judge pipeline bench: 1 pages, judges answer after 0\.2 s/m,
      new RegExp(String.raw`^batch without judges: [\d.]+ s, (${num}) pages/min`, 'm'),
      new RegExp(String.raw`^batch with judges: +[\d.]+ s, (${num}) pages/min .*; 5 judge calls, 0 judge metrics unscorable$`, 'm'),
      new RegExp(String.raw`^ratio with/without judges: (${num}) \(goal ≥ 0\.9\)$`, 'm'),
      /^judge calls in flight, every 5 s: [\d ]+ \(most at once: \d+\)$/m,
      /^batch again from the judge cache: .*; 0 judge calls; judge scores identical: true$/m,
      new RegExp(String.raw`^ratio with judges / mean of both without: (${num}) \(goal ≥ 0\.9\)$`, 'm'),
    ],
  },
  {
    // Simulated votes; the figures of docs/arena.md come from 16 populations of 8 models × 80 requirements.
    name: 'arena-pairs',
    args: ['--models', '3', '--requirements', '6', '--steps', '10,20', '--seeds', '1', '--strategies', 'random,arena'],
    figures: [
      /^arena-pairs: 3 models × 6 requirements \(18 pairs\)/m,
      new RegExp(String.raw`^random \| 20 \| (${num}) \| (${num}) \| (${num}) \| \d+%$`, 'm'),
      new RegExp(String.raw`^arena \| 20 \| (${num}) \| (${num}) \| (${num}) \| \d+%$`, 'm'),
      /^votes until the mean misplaced weight is ≤ 0\.2: random .*, arena /m,
    ],
  },
];

async function smoke(t: TestContext, s: Smoke): Promise<void> {
  const why = s.skip?.();
  if (why) {
    t.skip(why);
    return;
  }
  // Generous: on a quiet 2-core machine each takes seconds to a minute or two, but a loaded one can be 5× slower.
  const r = await runScript(join(repoRoot, 'dist', 'bench', `${s.name}.js`), s.args, { timeoutMs: 600_000 });
  if (r.code === CANNOT_RUN) {
    t.skip(r.stderr.trim().split('\n').pop() ?? 'cannot run here');
    return;
  }
  assert.equal(r.code, 0, `${s.name} exited ${r.code}\n${r.stderr.slice(-3000)}`);
  for (const f of s.figures) assert.match(r.stdout, f, `${s.name} printed no line like ${f}\n${r.stdout}`);
}

describe('bench smoke runs (each benchmark on a tiny input)', () => {
  for (const s of SMOKES) it(s.name, (t) => smoke(t, s));
});
