/**
 * Browser-suite benchmark (issue: browser evidence in one pass). In one run, over N corpus pages:
 *
 * 1. the whole rule-based suite per page (every registered rule metric: one browser session with all
 *    collectors and screenshots, one Lighthouse run, the static metrics) — seconds per page;
 * 2. a bare Lighthouse run of the same page with the same Chrome flags, settings and categories
 *    (bench/bare-lighthouse.ts) — seconds per page;
 * 3. their ratio (median suite ÷ median bare; goal ≤ 1.3), and peak memory over this Node process and every
 *    Chrome process it started, sampled every 250 ms from /proc: the largest sum of RSS (counts memory shared
 *    between Chrome's processes once per process, so it overstates) and the largest sum of PSS (shared pages
 *    split between their sharers: what the machine really holds);
 * 3b. where the suite's time goes: the median of each phase (browser visit setup, load, settle and collection;
 *    Lighthouse inside the suite, which starts during the visit, and how long it was held before measuring
 *    until the visit and its metrics were done; the metrics scored while gathering and those scored after);
 * 4. score stability: the first `--repeat-pages` pages scored `--repeats` more times; standard deviation of
 *    each metric's score across the runs (mean over those pages, and the largest).
 *
 *   node dist/bench/browser-suite.js [--pages 30] [--repeats 5] [--repeat-pages 3] [--dir DIR] [--suite study|extended]
 *
 * The suite is the study suite's rule metrics by default (README's figure: its 19 rule metrics); `--suite extended`
 * measures every rule metric of the extended suite instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { standardDeviation } from 'simple-statistics';
import { SUITES, type SuiteId } from '../core/metric.js';
import { suiteMetrics } from '../metrics/registry.js';
import { Scorer } from '../runner/score.js';
import { bareLighthouse, launchBareChrome } from './bare-lighthouse.js';
import { benchArgs, corpusDir, inputDir, usageError } from './common.js';

const USAGE = 'usage: node dist/bench/browser-suite.js [--pages 30] [--repeats 5] [--repeat-pages 3] [--dir DIR] [--suite study|extended]';
const { values: args } = benchArgs(USAGE, {
  pages: { type: 'number', default: 30 },
  repeats: { type: 'number', default: 5 },
  'repeat-pages': { type: 'number', default: 3 },
  dir: { type: 'string' },
  suite: { type: 'string', default: 'study' },
});
const dir = inputDir(args.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const suiteArg = args.suite;
if (!(SUITES as readonly string[]).includes(suiteArg)) usageError(USAGE, `--suite must be one of ${SUITES.join(', ')}`);
const suiteId = suiteArg as SuiteId;

/** RSS and PSS (bytes) of a process and all its descendants, from /proc. */
function treeMemory(root: number): { rss: number; pss: number } {
  const children = new Map<number, number[]>();
  let rss = 0;
  let pss = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      /* gone */
    }
  }
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(rollup.match(/^Rss:\s+(\d+) kB/m)?.[1] ?? 0) * 1024;
      pss += Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0) * 1024;
    } catch {
      /* gone */
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { rss, pss };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f2 = (x: number) => x.toFixed(2);

async function main(): Promise<void> {
  const count = args.pages;
  const repeats = args.repeats;
  const repeatPages = args['repeat-pages'];
  const pages = readdirSync(dir)
    .filter((f) => /\.html?$/i.test(f))
    .sort()
    .slice(0, count);
  // The Scorer refuses metrics outside its suite, so the ids come from the same suite it is given.
  const ruleIds = suiteMetrics(suiteId)
    .filter((m) => m.kind === 'rule')
    .map((m) => m.id);
  const peak = { rss: 0, pss: 0 };
  const sampler = setInterval(() => {
    const m = treeMemory(process.pid);
    peak.rss = Math.max(peak.rss, m.rss);
    peak.pss = Math.max(peak.pss, m.pss);
  }, 250);
  const phases = new Map<string, number[]>();
  const phase = (name: string, ms: number | undefined) => {
    if (ms !== undefined) phases.set(name, [...(phases.get(name) ?? []), ms / 1000]);
  };
  const suite: number[] = [];
  const bare: number[] = [];
  const runs = new Map<string, Map<string, number[]>>();
  const scorer = new Scorer({ suite: suiteId, only: ruleIds });
  const chrome = await launchBareChrome();
  try {
    for (const page of pages) {
      const file = join(dir, page);
      let t = performance.now();
      const { doc, evidence } = await scorer.scoreWithEvidence(file);
      const s = (performance.now() - t) / 1000;
      t = performance.now();
      let b = NaN;
      try {
        await bareLighthouse(file, chrome);
        b = (performance.now() - t) / 1000;
      } catch (err) {
        process.stderr.write(`bare Lighthouse failed on ${page}: ${(err as Error).message}\n`);
      }
      suite.push(s);
      const bt = evidence.browser?.ok ? evidence.browser.value.timings : {};
      phase('browser visit: setup', bt.setup);
      phase('browser visit: load', bt.load);
      phase('browser visit: in all', bt.total);
      phase('Lighthouse in the suite (from its start)', bt.lighthouse);
      phase('  of which held for the visit to finish', bt.lighthouseHeld ?? 0);
      phase('metrics scored while gathering', doc.timings.scoreWhileGathering ?? 0);
      phase('metrics scored after gathering', doc.timings.score);
      if (Number.isFinite(b)) bare.push(b);
      const perMetric = new Map<string, number[]>();
      for (const m of doc.metrics) if (m.score !== null) perMetric.set(m.id, [m.score]);
      runs.set(page, perMetric);
      process.stderr.write(`${page}: suite ${f2(s)} s, bare Lighthouse ${f2(b)} s\n`);
    }
    for (const page of pages.slice(0, repeatPages)) {
      for (let r = 1; r < repeats; r++) {
        const doc = await scorer.score(join(dir, page));
        for (const m of doc.metrics) if (m.score !== null) runs.get(page)!.get(m.id)?.push(m.score);
      }
    }
  } finally {
    clearInterval(sampler);
    await scorer.close();
    await chrome.close();
  }
  const ms = median(suite);
  const mb = median(bare);
  console.log(
    `${pages.length} pages from ${dir}; ${ruleIds.length} rule metrics of the ${suiteId} suite; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(`median seconds per page: full rule suite ${f2(ms)}, bare Lighthouse ${f2(mb)}; ratio ${f2(ms / mb)} (goal ≤ 1.3)`);
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  console.log(`peak memory (node + both Chromes): ${mib(peak.pss)} PSS (${mib(peak.rss)} RSS, shared pages counted per process)`);
  console.log("\nwhere the suite's time goes (median seconds per page)");
  for (const [name, xs] of phases) console.log(`  ${name.padEnd(40)} ${f2(median(xs))}`);
  console.log(`\nscore stability: ${repeats} runs of each of ${Math.min(repeatPages, pages.length)} pages; standard deviation per metric`);
  console.log('metric                      mean sd   max sd');
  for (const id of ruleIds) {
    const sds = pages
      .slice(0, repeatPages)
      .map((p) => runs.get(p)?.get(id))
      .filter((xs): xs is number[] => !!xs && xs.length >= 2)
      .map((xs) => standardDeviation(xs));
    if (!sds.length) {
      console.log(`${id.padEnd(26)}  ${repeats < 2 ? '(needs --repeats 2 or more)' : '(unscorable on these pages)'}`);
      continue;
    }
    console.log(`${id.padEnd(26)} ${f2(sds.reduce((a, b) => a + b, 0) / sds.length).padStart(7)} ${f2(Math.max(...sds)).padStart(8)}`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
