/**
 * Requirement-tests benchmark: what a test costs.
 *
 * 1. Scripted tests: every artifact of a runs folder (default fixtures/requirement-tests/runs, with its
 *    reqs.jsonl) scored `--repeats` times with only `requirement-tests`; per test the real milliseconds from the
 *    restore of the start state to the after-screenshot (median, p90, largest), and per artifact the seconds of
 *    the whole scoring (context, tests, close); and whether the repeats gave the same verdicts.
 * 2. The agent: one natural-language test on the working fixture against a local chat-completions server that
 *    answers a fixed script (two steps, then a verdict), with vision on: calls, the characters of text and the
 *    image bytes sent per call (a rough token estimate: characters / 4, plus the vision tokens of one
 *    1280-wide screenshot at "high" detail), the session's seconds, then the replay of its recording: seconds
 *    and calls (none).
 *
 * 3. Six tests per page (`--six`, alone with `--six-only`): six realistic tests on every `--every`-th corpus page
 *    (../shared/corpus/llm-tools/pages) and on the four heavy fixtures (fixtures/heavy/): a generic set any page
 *    can run (start-up errors, motion over a second, the first control's effect on the screen, a running jump on
 *    the keys, a resize, a page that holds still), of which a heavy fixture swaps two for its own (its canvas moves,
 *    a Shift-drag, a Burst click ...). Per page the seconds of its tests (their browser context included), median,
 *    p90 and largest, with the date and the load average before and after (issue goal: p90 ≤ 15 s).
 *
 *   node dist/bench/requirement-tests.js [--runs DIR --requirements FILE] [--repeats 3] [--six [--six-only] [--every 10]]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRequirements, type Requirement } from '../core/requirements.js';
import type { Evidence } from '../core/evidence.js';
import type { RequirementTestResult } from '../core/requirement-tests.js';
import { DEFAULT_JUDGE_SETTINGS } from '../judges/settings.js';
import { Scorer } from '../runner/score.js';
import { benchArgs, corpusDir, inputDir } from './common.js';
import { loadavg } from 'node:os';
import type { RequirementTest } from '../core/requirement-tests.js';

const { values: args } = benchArgs(
  'usage: node dist/bench/requirement-tests.js [--runs DIR --requirements FILE] [--repeats 3] [--six [--six-only] [--every 10]]',
  {
    runs: { type: 'string' },
    requirements: { type: 'string' },
    repeats: { type: 'number', default: 3 },
    six: { type: 'boolean' },
    'six-only': { type: 'boolean' },
    every: { type: 'number', default: 10 },
  },
);
const fixtures = fileURLToPath(new URL('../../fixtures/requirement-tests/', import.meta.url));
const runs = inputDir(args.runs ?? join(fixtures, 'runs'), 'runs folder');
const reqs = loadRequirements(args.requirements ?? join(fixtures, 'reqs.jsonl'));
const repeats = args.repeats;

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};
const results = (ev: Evidence): RequirementTestResult[] => (ev.requirementTests?.ok ? ev.requirementTests.value.results : []);

async function scripted(): Promise<void> {
  const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'], budgetMs: 120_000, network: { mode: 'offline' } });
  const testMs: number[] = [];
  const pageS: number[] = [];
  const verdicts = new Map<string, string>();
  let unstable = 0;
  let tests = 0;
  try {
    for (let r = 0; r < repeats; r++) {
      for (const model of readdirSync(runs).sort()) {
        for (const entry of readdirSync(join(runs, model)).sort()) {
          const id = entry.replace(/\.html?$/, '');
          const req = reqs.find((x) => x.id === id);
          if (!req?.tests?.length) continue;
          const t = performance.now();
          const { evidence } = await scorer.scoreWithEvidence(join(runs, model, entry), { requirement: req });
          pageS.push((performance.now() - t) / 1000);
          for (const res of results(evidence)) {
            testMs.push(res.ms);
            if (r === 0) tests++;
            const key = `${model}/${id}/${res.id}`;
            const v = String(res.passed);
            if (verdicts.has(key) && verdicts.get(key) !== v) unstable++;
            verdicts.set(key, v);
          }
        }
      }
    }
  } finally {
    await scorer.close();
  }
  console.log(`scripted: ${tests} tests on ${pageS.length / repeats} artifacts, ${repeats} repeats`);
  console.log(`  ms per test (restore to after-screenshot): median ${q(testMs, 0.5)}, p90 ${q(testMs, 0.9)}, max ${Math.max(...testMs)}`);
  console.log(`  seconds per artifact (context, all its tests, close): median ${q(pageS, 0.5).toFixed(2)}, max ${Math.max(...pageS).toFixed(2)}`);
  console.log(`  verdicts that differed between repeats: ${unstable}`);
}

/** A chat-completions server answering a fixed agent script; records request sizes. */
async function scriptServer(): Promise<{ url: string; sizes: Array<{ text: number; image: number }>; close(): void }> {
  const answers = [
    { action: 'step', step: { type: { label: 'New item' }, text: 'milk' }, why: 'add it' },
    { action: 'step', step: { click: 'Add' }, why: 'submit' },
    { action: 'verdict', passed: true, evidence: 'milk is listed', expect: [{ visible: 'milk' }] },
  ];
  const sizes: Array<{ text: number; image: number }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const parsed = JSON.parse(body) as {
        model: string;
        messages: Array<{ content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }>;
      };
      let text = 0;
      let image = 0;
      for (const m of parsed.messages) {
        if (typeof m.content === 'string') text += m.content.length;
        else for (const p of m.content) p.type === 'text' ? (text += p.text!.length) : (image += Math.round(((p.image_url?.url.length ?? 0) * 3) / 4));
      }
      sizes.push({ text, image });
      const content = JSON.stringify(answers[Math.min(sizes.length - 1, answers.length - 1)]);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: parsed.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: Math.round(text / 4), completion_tokens: Math.round(content.length / 4) },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, sizes, close: () => server.close() };
}

async function agent(): Promise<void> {
  const server = await scriptServer();
  const judge = {
    ...DEFAULT_JUDGE_SETTINGS,
    baseURL: server.url,
    apiKey: 'k',
    model: 'bench',
    models: {},
    prices: {},
    cacheDir: mkdtempSync(join(tmpdir(), 'webgrade-bench-agent-')),
  };
  const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'], budgetMs: 120_000, network: { mode: 'offline' }, judge });
  const req: Requirement = {
    id: 'shopping-list',
    requirement: 'A shopping list.',
    tests: [{ id: 'nl', task: 'Add milk to the list.', expected: 'milk is listed.' }],
  };
  const page = join(runs, 'working', 'shopping-list');
  try {
    // Chrome is started by a first scoring without the natural-language test, so that the timing is the session's.
    await scorer.scoreWithEvidence(page, { requirement: { ...req, tests: [{ id: 's', steps: [], expect: [{ noErrors: true }] }] } });
    const t = performance.now();
    const first = results((await scorer.scoreWithEvidence(page, { requirement: req })).evidence)[0];
    const agentS = (performance.now() - t) / 1000;
    const calls = server.sizes.length;
    const t2 = performance.now();
    const again = results((await scorer.scoreWithEvidence(page, { requirement: req })).evidence)[0];
    const replayS = (performance.now() - t2) / 1000;
    const text = server.sizes.map((s) => s.text);
    const image = server.sizes.map((s) => s.image);
    // OpenAI's "high" detail: the image scaled to 768 px on its short side, 170 tokens per 512-px tile plus 85.
    const visionTokens = 85 + 170 * Math.ceil(1229 / 512) * Math.ceil(768 / 512);
    console.log(`agent: 1 natural-language test solved in 2 steps: ${calls} calls, passed ${first?.passed}, ${agentS.toFixed(2)} s`);
    console.log(
      `  per call: text ${q(text, 0.5)} characters (median; ≈ ${Math.round(q(text, 0.5) / 4)} tokens), screenshot ${Math.round(q(image, 0.5) / 1024)} KiB (≈ ${visionTokens} vision tokens at high detail)`,
    );
    console.log(`  replay of the recording: ${server.sizes.length - calls} calls, passed ${again?.passed} (${again?.source}), ${replayS.toFixed(2)} s`);
  } finally {
    await scorer.close();
    server.close();
  }
}

/** The generic six: what a benchmark author can ask of any page (module comment). */
export const GENERIC_SIX: RequirementTest[] = [
  { id: 'no-errors', steps: [], expect: [{ noErrors: true }] },
  { id: 'motion', steps: [{ wait: 1000 }], expect: [{ anyOf: [{ moving: 'screen' }, { still: 'screen' }] }] },
  { id: 'first-control', steps: [{ try: [{ click: { css: 'button, [role=button], a[href], canvas' } }] }], expect: [{ changed: 'screen' }] },
  { id: 'run-jump', steps: [{ keys: ['ArrowRight', ' '], hold: 300 }, { wait: 500 }], expect: [{ changed: 'screen' }] },
  { id: 'resize', steps: [{ resize: { width: 800, height: 600 } }, { wait: 500 }], expect: [{ noErrors: true }, { box: { css: 'body' }, covers: 0.5 }] },
  { id: 'holds', steps: [{ wait: 2000 }], expect: [{ unchanged: 'page' }] },
];

/** Each heavy fixture's own two tests (they replace the generic motion and first-control tests). */
const HEAVY_OWN: Record<string, RequirementTest[]> = {
  fractal: [
    { id: 'zooms', steps: [], expect: [{ moving: { css: 'canvas' } }] },
    { id: 'fills', steps: [], expect: [{ box: { css: 'canvas' }, covers: 0.9 }] },
  ],
  particles: [
    { id: 'burst', steps: [{ click: 'Burst' }], expect: [{ changed: 'canvas' }] },
    { id: 'storm', steps: [], expect: [{ moving: 'canvas' }] },
  ],
  'three-scene': [
    { id: 'spins', steps: [], expect: [{ moving: 'screen' }] },
    { id: 'scene', steps: [], expect: [{ pixels: 'screen', region: { fx: 0.25, fy: 0.25, fw: 0.5, fh: 0.5 }, differs: { fx: 0, fy: 0, fw: 0.1, fh: 0.1 } }] },
  ],
  cloth: [
    { id: 'waves', steps: [], expect: [{ moving: { css: 'canvas' } }] },
    {
      id: 'cut',
      steps: [{ drag: { css: 'canvas' }, at: { fx: 0.3, fy: 0.3 }, to: { dx: 300, dy: 0 }, modifiers: ['Shift'] }],
      expect: [{ changed: 'canvas' }],
    },
  ],
};

async function six(): Promise<void> {
  const every = args.every;
  const corpus = join(corpusDir, 'llm-tools', 'pages');
  const pages: Array<{ path: string; name: string; tests: RequirementTest[] }> = [];
  try {
    const files = readdirSync(corpus)
      .filter((f) => f.endsWith('.html'))
      .sort();
    for (let i = 0; i < files.length; i += every) pages.push({ path: join(corpus, files[i]!), name: files[i]!, tests: GENERIC_SIX });
  } catch {
    console.log(`six: the corpus is not at ${corpus}; heavy fixtures only`);
  }
  const heavy = fileURLToPath(new URL('../../fixtures/heavy/', import.meta.url));
  for (const [name, own] of Object.entries(HEAVY_OWN))
    pages.push({ path: join(heavy, `${name}.html`), name: `heavy/${name}`, tests: [GENERIC_SIX[0]!, ...own, ...GENERIC_SIX.slice(3)] });
  const load0 = loadavg()[0]!;
  const started = new Date().toISOString();
  const scorer = new Scorer({ suite: 'extended', only: ['requirement-tests'] });
  const secs: Array<{ name: string; s: number; notRun: number; passed: number; tests: string; whyNot: string[] }> = [];
  try {
    // Chrome's start is not a page's cost: one page first, not counted.
    await scorer.scoreWithEvidence(pages[0]!.path, { requirement: { id: 'warm', requirement: 'warm-up', tests: [GENERIC_SIX[0]!] } });
    for (const p of pages) {
      const t = performance.now();
      const { evidence } = await scorer.scoreWithEvidence(p.path, { requirement: { id: 'six', requirement: 'six tests', tests: p.tests } });
      const rs = results(evidence);
      secs.push({
        name: p.name,
        s: (performance.now() - t) / 1000,
        notRun: rs.filter((r) => r.passed === null).length,
        passed: rs.filter((r) => r.passed).length,
        tests: rs.map((r) => `${r.id} ${r.passed === null ? 'not run' : (r.ms / 1000).toFixed(1)}`).join(', '),
        whyNot: rs.filter((r) => r.passed === null).map((r) => `${p.name} ${r.id}: ${(r.reason ?? '').slice(0, 80)}`),
      });
    }
  } finally {
    await scorer.close();
  }
  const all = secs.map((x) => x.s);
  const heavyS = secs.filter((x) => x.name.startsWith('heavy/'));
  console.log(
    `six tests per page: ${secs.length} pages (${secs.length - heavyS.length} corpus, every ${every}th; ${heavyS.length} heavy fixtures), ${started}, load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
  );
  console.log(
    `  seconds per page (context, six tests, close): median ${q(all, 0.5).toFixed(2)}, p90 ${q(all, 0.9).toFixed(2)}, max ${Math.max(...all).toFixed(2)}`,
  );
  console.log(`  heavy fixtures: ${heavyS.map((x) => `${x.name.slice(6)} ${x.s.toFixed(1)} s (${x.passed} passed, ${x.notRun} not run)`).join(', ')}`);
  for (const x of heavyS) console.log(`    ${x.name.slice(6)}: ${x.tests} (seconds per test)`);
  console.log(`  tests not run (time limit or budget): ${secs.reduce((n, x) => n + x.notRun, 0)} of ${secs.length * 6}`);
  for (const w of secs.flatMap((x) => x.whyNot)) console.log(`    not run: ${w}`);
  const slow = [...secs].sort((a, b) => b.s - a.s).slice(0, 3);
  console.log(`  slowest: ${slow.map((x) => `${x.name} ${x.s.toFixed(1)} s`).join(', ')}`);
}

if (!args['six-only']) {
  await scripted();
  await agent();
}
if (args.six || args['six-only']) await six();
