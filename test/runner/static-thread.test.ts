/**
 * The static metrics run in the scorer's worker thread, under the artifact's budget: a page whose static
 * analysis outlasts the budget gets "time budget …" for what did not finish (and the run ends on time), a
 * thread that dies (out of memory) makes them unscorable with the cause, an artifact gone from disk likewise,
 * and one thread serves many artifacts. Nothing here starts a browser.
 */
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { ArtifactParseError } from '../../core/artifact/model.js';
import { Scorer } from '../../runner/score.js';
import { runMetric } from '../../runner/run-metric.js';
import { StaticThread } from '../../runner/static-thread.js';
import { findMetric } from '../../metrics/registry.js';
import type { MetricDefinition } from '../../core/metric.js';
import type { Gatherer } from '../../core/gatherer.js';
import { runCli, tempDir, writeSingleFile } from '../helpers.js';

const STATIC = ['error-handling', 'lint', 'component-consistency', 'copywriting', 'comment-rate'];

/** A page of `n` small cards (about 45 bytes each): 300 000 make a 13 MB page whose DOM takes minutes. */
function bigPage(n: number): string {
  const p = writeSingleFile('');
  const rows = Array.from({ length: n }, (_, i) => `<div class="c"><b>${i}</b><i>x</i></div>`).join('\n');
  writeFileSync(p, `<!doctype html><html><head><title>big</title></head><body>\n${rows}\n<script>/* c */ var x = 1;</script></body></html>`);
  return p;
}

describe('static metrics in the worker thread', () => {
  const scorer = new Scorer({ only: STATIC, gatherers: [] });
  after(() => scorer.close());

  it('one thread scores many artifacts, with the same results as scoring on the calling thread', async () => {
    const pages = [
      writeSingleFile(
        '<!doctype html><title>a</title><ul><li class="i"><b>1</b><i>a</i></li><li class="i"><b>2</b><i>b</i></li></ul><script>// note\nfetch("/x").then((r) => r.json());</script>',
      ),
      writeSingleFile('<!doctype html><title>b</title><p onclick="nope()">Hello there, reader.</p><style>p { colr: red }</style>'),
    ];
    const inline = new Scorer({ only: STATIC, gatherers: [], staticThread: false });
    try {
      for (const p of pages) {
        const threaded = await scorer.score(p);
        const here = await inline.score(p);
        const strip = (d: typeof threaded) => d.metrics.map((m) => ({ ...m, ms: 0 }));
        assert.deepEqual(strip(threaded), strip(here));
        assert.ok(threaded.timings.static !== undefined, JSON.stringify(threaded.timings));
      }
    } finally {
      await inline.close();
    }
    assert.equal((scorer as unknown as { staticThread: StaticThread }).staticThread.starts, 1);
  });

  it('a page whose static analysis outlasts the budget: unscorable "time budget …", on time, and the thread serves the next page', async () => {
    const tight = new Scorer({ only: STATIC, gatherers: [], budgetMs: 2_000 });
    try {
      const page = bigPage(300_000);
      const t = performance.now();
      const doc = await tight.score(page);
      const ms = performance.now() - t;
      assert.ok(ms < 2_000 + 10_000, `took ${Math.round(ms)} ms`);
      for (const m of doc.metrics) {
        assert.equal(m.score, null, m.id);
        assert.match(m.reason ?? '', /^time budget of 2 s exceeded (while|before)/, m.id);
      }
      // The stopped thread is replaced at once; give the new one time to load its modules (not counted).
      await new Promise((r) => setTimeout(r, 8_000));
      const next = await tight.score(writeSingleFile('<!doctype html><title>ok</title><p>Fine.</p>'));
      assert.notEqual(next.metrics.find((m) => m.id === 'comment-rate')?.score, null);
    } finally {
      await tight.close();
    }
  });

  it('a thread that runs out of memory: unscorable with the cause, and a new thread for the next job', async () => {
    // 128 MB: the thread's own imports need about 45 MB (48 left a small page crashing on a loaded machine), while
    // jsdom's DOM of the big page runs out even at 256 MB.
    const thread = new StaticThread({ heapMb: 128 });
    try {
      const metrics = STATIC.map((id) => findMetric(id)!);
      const job = (path: string) => ({ path, metrics, checkNetwork: false, deadline: performance.now() + 120_000, budgetMs: 120_000 });
      const out = await thread.run(job(bigPage(200_000)));
      for (const m of metrics) {
        const r = out.results.get(m.id)!;
        assert.equal(r.score, null);
        assert.match(r.reason ?? '', /^static analysis failed: its worker thread (crashed|exited)/);
      }
      const ok = await thread.run(job(writeSingleFile('<!doctype html><title>ok</title><p>Fine.</p>')));
      assert.notEqual(ok.results.get('comment-rate')!.score, null, ok.results.get('comment-rate')!.reason);
      assert.equal(thread.starts, 2);
    } finally {
      await thread.terminate();
    }
  });

  it("an artifact gone from disk before the thread reads it: unscorable with the loader's message", async () => {
    const thread = new StaticThread();
    try {
      const dir = tempDir();
      const p = `${dir}/gone.html`;
      const out = await thread.run({
        path: p,
        metrics: [findMetric('comment-rate')!],
        checkNetwork: false,
        deadline: performance.now() + 60_000,
        budgetMs: 60_000,
      });
      assert.match(out.results.get('comment-rate')!.reason ?? '', /no such file/);
      assert.ok(out.parseError);
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await thread.terminate();
    }
  });

  it('a parse failure is a metric\'s reason as it stands, not "metric failed"', async () => {
    const throwing: MetricDefinition = {
      ...findMetric('comment-rate')!,
      score: () => {
        throw new ArtifactParseError('the page could not be parsed (boom)');
      },
    };
    const r = await runMetric(throwing, { artifact: {} as never, options: { checkNetwork: false } });
    assert.deepEqual([r.score, r.reason], [null, 'the page could not be parsed (boom)']);
  });
});

describe('score on a page nested 100 000 levels deep', () => {
  it('exits 0 with every static metric scored or unscorable with a reason (it used to end with exit 1)', async () => {
    const n = 100_000;
    const p = writeSingleFile(`<!doctype html><html><body>${'<div>'.repeat(n)}<p>Deep text here.</p>${'</div>'.repeat(n)}</body></html>`);
    const r = await runCli(['score', p, '--only', STATIC.join(','), '--json'], { timeoutMs: 180_000 });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { metrics: Array<{ id: string; score: number | null; reason?: string }> };
    assert.deepEqual(doc.metrics.map((m) => m.id).sort(), [...STATIC].sort());
    for (const m of doc.metrics) assert.ok(m.score !== null || (m.reason ?? '').length > 3, JSON.stringify(m));
    assert.notEqual(doc.metrics.find((m) => m.id === 'comment-rate')!.score, null);
  });
});

describe('the warm-up job', () => {
  it('scores the warm-up page with every static metric in the thread that serves the next artifact, and leaves no file', async () => {
    const thread = new StaticThread();
    try {
      const metrics = STATIC.map((id) => findMetric(id)!);
      const parent = tempDir();
      const warm = await thread.warm(metrics, parent);
      for (const id of STATIC) assert.equal(typeof warm.results.get(id)?.score, 'number', `${id}: ${warm.results.get(id)?.reason}`);
      assert.deepEqual(readdirSync(parent), [], 'the warm-up page and its folder are removed');
      const page = writeSingleFile('<!doctype html><title>after</title><p>Hello there, reader.</p>');
      const out = await thread.run({ path: page, metrics, checkNetwork: false, deadline: performance.now() + 60_000, budgetMs: 60_000 });
      assert.equal(typeof out.results.get('lint')?.score, 'number');
      assert.equal(thread.starts, 1, 'one thread for the warm-up and the artifact');
    } finally {
      await thread.terminate();
    }
  });

  it("Scorer.warmUp warms each scope of the gatherers the selected metrics need, once; not the others'", async () => {
    const warmed: string[] = [];
    const scope = (id: string) => ({
      id,
      within: <T>(_e: unknown, work: () => Promise<T>) => work(),
      end: async () => undefined,
      close: async () => undefined,
      warm: async () => {
        warmed.push(id);
      },
    });
    const shared = scope('shared');
    const gatherer = (id: string, provides: string[], s: ReturnType<typeof scope>) => ({
      meta: { id, provides, fills: provides, scope: s },
      gather: async () => ({}),
      close: async () => undefined,
    });
    // The static metrics need the source and its DOM; nothing selected needs the browser.
    const gatherers = [gatherer('a', ['source'], shared), gatherer('b', ['dom'], shared), gatherer('c', ['browser'], scope('browser'))];
    const scorer = new Scorer({ only: STATIC, gatherers: gatherers as unknown as Gatherer[] });
    try {
      assert.equal(typeof (await scorer.warmUp()), 'number');
      assert.deepEqual(warmed, ['shared']);
    } finally {
      await scorer.close();
    }
  });
});
