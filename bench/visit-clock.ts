/**
 * The visit's two clocks compared (issue 45): each page visited `--runs` times (default 2) with the visit on real
 * time (`--visit-clock real`, the default) and on the page clock of our own from the first byte (`page`,
 * gather/visit-clock.ts), the visit gatherer alone (browser evidence and screenshots, nothing else). Per page and
 * clock: whether the desktop screenshot and the DOM are byte-identical over the runs, the busy share after load
 * (never idle from NEVER_IDLE_BUSY), the visit's real seconds (median) and its settle's. Then per clock: pages
 * with identical screenshots, identical DOM, median and p90 seconds.
 *
 * Pages: the heavy fixtures (fixtures/heavy/) and the first `--pages` corpus pages with a CSS animation,
 * `requestAnimationFrame` or a canvas (name order), then other corpus pages up to `--pages` in all.
 *
 *   node dist/bench/visit-clock.js [--pages 20] [--runs 2] [--clocks real,page] [--dir DIR] [--no-fixtures] [--out DIR]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { quantile, median } from 'simple-statistics';
import type { Evidence } from '../core/evidence.js';
import { browserGatherers } from '../gather/browser-gatherers.js';
import { NEVER_IDLE_BUSY } from '../gather/collectors/busy-after-load.js';
import type { VisitClockMode } from '../core/visit-clock.js';
import { loadArtifact } from '../lib/artifact/load.js';
import { closeGatherers } from '../runner/gatherers.js';
import { gatherEvidence } from '../runner/gathering.js';
import { benchArgs, corpusDir, inputDir, usageError } from './common.js';

const USAGE = 'usage: node dist/bench/visit-clock.js [--pages 20] [--runs 2] [--clocks real,page] [--dir DIR] [--no-fixtures] [--out DIR]';
const { values } = benchArgs(USAGE, {
  pages: { type: 'number', default: 20 },
  runs: { type: 'number', default: 2 },
  clocks: { type: 'string', default: 'real,page' },
  dir: { type: 'string' },
  'no-fixtures': { type: 'boolean' },
  out: { type: 'string' },
});
const clocks = values.clocks.split(',').map((c) => c.trim());
for (const c of clocks) if (c !== 'real' && c !== 'page') usageError(USAGE, `unknown clock "${c}" (real, page)`);
if (values.runs < 2) usageError(USAGE, '--runs must be at least 2');

const dir = inputDir(values.dir ?? join(corpusDir, 'llm-tools', 'pages'));
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.html'))
  .sort();
const moving = all.filter((f) => /@keyframes|requestAnimationFrame|<canvas/.test(readFileSync(join(dir, f), 'utf8')));
const corpus = [...moving, ...all.filter((f) => !moving.includes(f))]
  .slice(0, values.pages)
  .map((f) => ({ name: f.replace(/\.html$/, ''), path: join(dir, f) }));
const pages = [...corpus];
if (!values['no-fixtures']) {
  const heavy = join(import.meta.dirname, '..', '..', 'fixtures', 'heavy');
  for (const f of readdirSync(heavy)
    .filter((x) => x.endsWith('.html'))
    .sort())
    pages.push({ name: `heavy/${f.replace(/\.html$/, '')}`, path: join(heavy, f) });
}

const hash = (b: Buffer | string | undefined) => (b === undefined ? '-' : createHash('sha1').update(b).digest('hex').slice(0, 12));

interface Visit {
  shot: string;
  dom: string;
  busy: number | undefined;
  seconds: number;
  settle: number;
  faults: string[];
}

const results = new Map<string, Map<string, Visit[]>>();
const loads: number[] = [];
for (const clock of clocks) {
  const g = browserGatherers({ network: { mode: 'cdn' }, visitClock: clock as VisitClockMode });
  const byPage = new Map<string, Visit[]>();
  results.set(clock, byPage);
  try {
    for (let run = 0; run < values.runs; run++)
      for (const p of pages) {
        const evidence: Evidence = { artifact: loadArtifact(p.path), options: { checkNetwork: false } };
        const t = performance.now();
        await gatherEvidence(g, evidence, { needs: new Set(['browser', 'screenshot']), metrics: [], budgetMs: 60_000 });
        const seconds = (performance.now() - t) / 1000;
        loads.push(loadavg()[0]!);
        const b = evidence.browser;
        const v: Visit = b?.ok
          ? {
              shot: hash(b.value.screenshots.desktop?.png),
              dom: hash(b.value.domHtml),
              busy: b.value.busyAfterLoad,
              seconds,
              settle: ((b.value.timings.settle ?? 0) + (b.value.timings['page clock'] ?? 0) + (b.value.timings['pause clock'] ?? 0)) / 1000,
              faults: b.value.faults,
            }
          : { shot: '-', dom: '-', busy: undefined, seconds, settle: 0, faults: [b?.reason ?? 'no browser evidence'] };
        if (values.out && b?.ok && b.value.screenshots.desktop) {
          const d = join(values.out, clock, p.name);
          mkdirSync(d, { recursive: true });
          writeFileSync(join(d, `run-${run + 1}.png`), b.value.screenshots.desktop.png);
        }
        byPage.set(p.name, [...(byPage.get(p.name) ?? []), v]);
        process.stderr.write(`${clock} run ${run + 1} ${p.name}: ${seconds.toFixed(2)} s, busy ${v.busy?.toFixed(2) ?? '-'}, shot ${v.shot}\n`);
      }
  } finally {
    await closeGatherers(g);
  }
}

const same = (vs: Visit[], k: 'shot' | 'dom') => vs.every((v) => v[k] !== '-' && v[k] === vs[0]![k]);
console.log(
  `${pages.length} pages (${corpus.length} corpus, ${moving.filter((f) => corpus.some((c) => c.name === f.replace(/\.html$/, ''))).length} of them animated or canvas), ${values.runs} runs per clock; load average median ${median(loads).toFixed(2)}`,
);
console.log('');
console.log(`page${' '.repeat(36)}${clocks.map((c) => `${c}: shot dom busy   s`.padEnd(30)).join('')}`);
for (const p of pages) {
  const cells = clocks.map((c) => {
    const vs = results.get(c)!.get(p.name)!;
    const busy = vs.map((v) => v.busy).filter((x): x is number => x !== undefined);
    const idle = busy.length ? (busy.some((x) => x >= NEVER_IDLE_BUSY) ? `${Math.max(...busy).toFixed(2)}!` : Math.max(...busy).toFixed(2)) : '-';
    return `${c}: ${same(vs, 'shot') ? 'same' : 'DIFF'} ${same(vs, 'dom') ? 'same' : 'DIFF'} ${idle.padStart(5)} ${median(vs.map((v) => v.seconds))
      .toFixed(2)
      .padStart(5)}`.padEnd(30);
  });
  console.log(`${p.name.slice(0, 38).padEnd(40)}${cells.join('')}`);
}
console.log('');
for (const c of clocks) {
  const vs = pages.map((p) => results.get(c)!.get(p.name)!);
  const secs = vs.flat().map((v) => v.seconds);
  const settles = vs.flat().map((v) => v.settle);
  const behind = vs.filter((x) => x.some((v) => v.faults.some((f) => f.includes('clock fell behind')))).length;
  console.log(
    `${c}: screenshots identical on ${vs.filter((x) => same(x, 'shot')).length} of ${pages.length}, DOM on ${vs.filter((x) => same(x, 'dom')).length}; ` +
      `visit s median ${median(secs).toFixed(2)}, p90 ${quantile(secs, 0.9).toFixed(2)}; settle s median ${median(settles).toFixed(2)}, p90 ${quantile(settles, 0.9).toFixed(2)}; clock fell behind on ${behind}`,
  );
}
