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
 *   node dist/bench/requirement-tests.js [--runs DIR --requirements FILE] [--repeats N]
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
import { inputDir } from './common.js';

function sarg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const fixtures = fileURLToPath(new URL('../../fixtures/requirement-tests', import.meta.url));
const runs = inputDir(sarg('--runs') ?? join(fixtures, 'runs'), 'runs folder');
const reqs = loadRequirements(sarg('--requirements') ?? join(fixtures, 'reqs.jsonl'));
const repeats = Number(sarg('--repeats') ?? 3);

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

await scripted();
await agent();
