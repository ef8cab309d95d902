/**
 * The interaction probe in the real browser, on the fixture pages of fixtures/interaction/: the scores the
 * issue asks for, the same result five times, the probe's requests through the sandbox with phase
 * `interaction`, a page that hangs on a click within the budget, saved evidence and pictures, and Lighthouse
 * held until the probe is over. One Scorer (one Chrome) for most of the file.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { InteractionEvidence } from '../../core/browser-evidence.js';
import { Scorer, type ScoreDocument } from '../../runner/score.js';
import { browserGatherers } from '../../gather/browser-gatherers.js';
import { closeGatherers, productGatherers } from '../../runner/gatherers.js';
import { gatherEvidence } from '../../runner/gathering.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import type { Evidence } from '../../core/evidence.js';
import { tallyLiveness } from '../../metrics/interaction/control-liveness.js';
import { PROBE_HEAVY_FRAME_MS } from '../../gather/interaction/probe/limits.js';
import { cpuHogs, fixture, runCli, tempDir } from '../helpers.js';

const BUDGET_MS = 40_000;
const INTERACTION = ['render-validity', 'control-liveness', 'interaction-errors', 'navigation-reachability'];
// The probe's own budget is wall time (15 s): in a fresh clone's run of the whole suite on two cores (2026-11-28) it
// ran out on the tabs page after one of its three controls. These tests are about what the probe finds, so the
// shared scorer's probe gets the time a loaded machine needs; the budget's own behaviour has its tests below.
const scorer = new Scorer({
  suite: 'extended',
  only: [...INTERACTION, 'dead-code'],
  budgetMs: BUDGET_MS,
  network: { mode: 'offline' },
  gatherers: productGatherers({ checkNetwork: false, budgetMs: BUDGET_MS, network: { mode: 'offline' }, interaction: { budgetMs: 30_000 } }),
});
after(() => scorer.close());

const metric = (doc: ScoreDocument, id: string) => {
  const m = doc.metrics.find((x) => x.id === id);
  assert.ok(m, `no ${id}`);
  return m;
};
const page = (name: string) => fixture('interaction', name);
const probeOf = (ev: { interaction?: { ok: boolean } }): InteractionEvidence => {
  assert.ok(ev.interaction?.ok, `no interaction evidence: ${JSON.stringify(ev.interaction)}`);
  return (ev.interaction as { ok: true; value: InteractionEvidence }).value;
};

describe('interaction probe on fixture pages', () => {
  it('a working todo app: rendered, every control live, no errors; dead-code counts its click handlers as used', async () => {
    const doc = await scorer.score(page('todo.html'));
    assert.equal(metric(doc, 'render-validity').score, 100, JSON.stringify(metric(doc, 'render-validity')));
    assert.equal(metric(doc, 'control-liveness').score, 100, JSON.stringify(metric(doc, 'control-liveness').details));
    assert.equal(metric(doc, 'interaction-errors').score, 100);
    assert.equal(metric(doc, 'navigation-reachability').score, null);
    const dead = metric(doc, 'dead-code');
    assert.equal(dead.details.interactionCovered, true);
    assert.ok((dead.details.js as { score: number }).score > 0.95, JSON.stringify(dead.details.js));
  });

  it('a form whose submit button does nothing: its fields and button are inert', async () => {
    const doc = await scorer.score(page('dead-form.html'));
    const m = metric(doc, 'control-liveness');
    assert.equal(m.score, 0, JSON.stringify(m.details));
    assert.deepEqual((m.details.inert as Array<{ selector: string }>).map((x) => x.selector).sort(), ['#email', '#name', '#subscribe']);
  });

  it('tabs of which one is dead: the dead tab is inert and dangling, the selected one responds after another', async () => {
    const doc = await scorer.score(page('tabs.html'));
    const live = metric(doc, 'control-liveness');
    assert.ok(Math.abs(live.score! - 66.67) < 0.01, JSON.stringify(live.details));
    assert.deepEqual(
      (live.details.inert as Array<{ selector: string }>).map((x) => x.selector),
      ['#tab-team'],
    );
    const nav = metric(doc, 'navigation-reachability');
    assert.ok(Math.abs(nav.score! - 66.67) < 0.01, JSON.stringify(nav.details));
    assert.deepEqual(
      (nav.details.dangling as Array<{ selector: string }>).map((x) => x.selector),
      ['#tab-team'],
    );
  });

  it('a canvas game driven by arrow keys: the keyboard control changes the canvas', async () => {
    const { doc, evidence } = await scorer.scoreWithEvidence(page('canvas-game.html'));
    assert.equal(metric(doc, 'control-liveness').score, 100, JSON.stringify(metric(doc, 'control-liveness').details));
    const v = probeOf(evidence);
    const kb = v.controls.find((c) => c.kind === 'keyboard');
    assert.ok(kb, 'no keyboard control');
    assert.deepEqual(kb.keys, ['ArrowDown', 'ArrowLeft', 'ArrowRight', 'ArrowUp']);
    assert.ok(
      v.actions[0]!.effects.some((e) => e.kind === 'canvas'),
      JSON.stringify(v.actions[0]),
    );
    assert.equal(metric(doc, 'render-validity').score, 100);
  });

  it('a link to a missing page and a missing anchor are dangling; the existing page and anchor lead to views', async () => {
    const doc = await scorer.score(page('site'));
    const nav = metric(doc, 'navigation-reachability');
    assert.equal(nav.score, 60, JSON.stringify(nav.details));
    const reasons = (nav.details.dangling as Array<{ reason: string }>).map((x) => x.reason).sort();
    assert.deepEqual(reasons, ['missing anchor #contact', 'missing local file /pricing.html (HTTP 404)']);
  });

  it('a textarea read only on its change event (when it loses focus) is live', async () => {
    const doc = await scorer.score(page('change-on-commit.html'));
    assert.equal(metric(doc, 'control-liveness').score, 100, JSON.stringify(metric(doc, 'control-liveness').details));
  });

  it("buttons that change a frame's srcdoc after a long shared beginning are live", async () => {
    const doc = await scorer.score(page('iframe-preview.html'));
    assert.equal(metric(doc, 'control-liveness').score, 100, JSON.stringify(metric(doc, 'control-liveness').details));
  });

  it('buttons live only once Start was pressed are live: each sibling gets its second chance after Start', async () => {
    const doc = await scorer.score(page('start-first.html'));
    const m = metric(doc, 'control-liveness');
    assert.equal(m.score, 100, JSON.stringify(m.details));
    assert.ok((m.details!.liveControls as Array<{ after?: string }>).filter((x) => x.after === 'Start').length === 3, JSON.stringify(m.details!.liveControls));
  });

  it('a document hidden by html { display: none } is not rendered, though its body holds text', async () => {
    const m = metric(await scorer.score(page('hidden-document.html')), 'render-validity');
    assert.equal(m.score, 0, JSON.stringify(m.details));
    assert.equal(m.details.textChars, 0);
  });

  it('a button that throws: the error is named with its action', async () => {
    const doc = await scorer.score(page('throws.html'));
    const m = metric(doc, 'interaction-errors');
    assert.ok(Math.abs(m.score! - 66.67) < 0.01, JSON.stringify(m.details));
    const e = (m.details.errors as Array<{ action: string; errors: Array<{ message: string }> }>)[0]!;
    assert.match(e.action, /Load settings/);
    assert.match(e.errors[0]!.message, /TypeError: Cannot read properties of null/);
  });

  it('buttons that only play a sound or copy to the clipboard are live', async () => {
    const { doc, evidence } = await scorer.scoreWithEvidence(page('sound-copy.html'));
    assert.equal(metric(doc, 'control-liveness').score, 100, JSON.stringify(metric(doc, 'control-liveness').details));
    const kinds = probeOf(evidence).actions.map((a) =>
      a.effects
        .map((e) => e.kind)
        .sort()
        .join('+'),
    );
    assert.deepEqual(kinds, ['clipboard', 'audio', 'audio']);
  });
});

describe('determinism', () => {
  it('the same page gives the same log five times (a ticking clock, an animated canvas, random dice, a debounced field)', async () => {
    const runs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { doc, evidence } = await scorer.scoreWithEvidence(page('busy.html'));
      const v = probeOf(evidence);
      runs.push(
        JSON.stringify({
          scores: INTERACTION.map((id) => metric(doc, id).score),
          controls: v.controls.map((c) => [c.kind, c.selector]),
          actions: v.actions.map((a) => [a.control, a.action, a.outcome, a.effects, a.errors, a.view]),
          // The first paint's time is a wall-clock measurement reported in the details, not a result (on a loaded
          // machine Chrome has sometimes not reported the paint yet when the first view is read: null).
          // So are the screenshot's pixel counts: CSS animations (this page's spinner) run on real time; the
          // render-validity score read from them is compared above.
          firstView: { ...v.firstView, firstPaintMs: 'measured', screen: 'measured' },
          unstable: v.unstable ?? [],
        }),
      );
    }
    for (const r of runs.slice(1)) assert.equal(r, runs[0]);
    const first = JSON.parse(runs[0]!) as { actions: Array<[number, string, string, Array<{ kind: string }>]>; scores: number[] };
    // The dice button is live, Help is inert: the clock and the stars never count as effects.
    assert.deepEqual(
      first.actions.map((a) => a[3].map((e) => e.kind)),
      [['dom'], [], ['dom', 'value-read']],
    );
  });
});

describe('the probe and the sandbox', () => {
  it("the probe's requests go through the sandbox with phase interaction, and a refused one is logged", async () => {
    const s = new Scorer({ suite: 'extended', only: ['control-liveness', 'console-errors'], budgetMs: BUDGET_MS, network: { mode: 'offline' } });
    const { evidence } = await s.scoreWithEvidence(page('requests-site')).finally(() => s.close());
    const v = probeOf(evidence);
    assert.ok(evidence.browser?.ok);
    const all = evidence.browser.value.network;
    const probe = all.filter((e) => e.phase === 'interaction');
    assert.ok(
      probe.some((e) => e.url.endsWith('/quotes.json') && e.disposition === 'artifact' && e.status === 200),
      JSON.stringify(probe),
    );
    assert.ok(
      probe.some((e) => e.url === 'https://api.quotes.example.com/today' && e.disposition === 'blocked'),
      JSON.stringify(probe),
    );
    assert.ok(!all.some((e) => e.phase !== 'interaction' && /quotes/.test(e.url)), 'a quote request outside the probe');
    assert.deepEqual(
      v.network?.map((e) => e.phase).filter((p) => p !== 'interaction'),
      [],
    );
    const remote = v.actions.find((a) => v.controls[a.control]!.selector === '#remote')!;
    assert.deepEqual(remote.refused, ['https://api.quotes.example.com/today']);
  });

  it('a button that hangs the page: the probe stays within its budget, marks it hung, and the next page is probed', async () => {
    const t = performance.now();
    const { doc, evidence } = await scorer.scoreWithEvidence(page('hang-on-click.html'));
    const ms = performance.now() - t;
    const v = probeOf(evidence);
    // The probe, its browser context included, within its budget (the whole scoring also starts Chrome, loads the page for the visit ...).
    assert.ok(v.timings.withContext! <= v.settings.budgetMs, `the probe took ${v.timings.withContext} ms: ${JSON.stringify(v.timings)}`);
    assert.ok(ms < v.settings.budgetMs + 30_000, `took ${Math.round(ms)} ms`);
    assert.deepEqual(
      v.actions.map((a) => a.outcome),
      ['done', 'hung'],
    );
    assert.equal(metric(doc, 'control-liveness').score, 50);
    assert.equal(metric(doc, 'interaction-errors').score, 50);
    const next = await scorer.score(page('todo.html'));
    assert.equal(metric(next, 'control-liveness').score, 100, 'the browser is usable after the hang');
  });

  it('the budget ending during an action: that control is left out, not called hung, and the probe with its context stays within its budget', async () => {
    // A per-action timeout longer than the budget: the second button (which loops forever) is always cut by the budget.
    const g = browserGatherers({ network: { mode: 'offline' }, interaction: { budgetMs: 8000, actionTimeoutMs: 10_000 } });
    try {
      const evidence: Evidence = { artifact: loadArtifact(page('hang-on-click.html')), options: { checkNetwork: false } };
      await gatherEvidence(g, evidence, { needs: new Set(['interaction']), metrics: [], budgetMs: 60_000 });
      const v = probeOf(evidence);
      assert.ok(v.timings.withContext! <= 8000, `took ${v.timings.withContext} ms with its context: ${JSON.stringify(v.timings)}`);
      assert.deepEqual(
        v.actions.map((a) => a.outcome),
        ['done', 'failed'],
        JSON.stringify(v.actions.map((a) => [a.outcome, a.note])),
      );
      assert.match(v.actions[1]!.note!, /budget ran out during this action/);
      const t = tallyLiveness(v);
      assert.deepEqual([t.live.length, t.hung.length, t.left.length], [1, 0, 1]);
    } finally {
      await closeGatherers(g);
    }
  });

  it('a page that loops forever: not rendered (0), within the budget', async () => {
    const t = performance.now();
    const doc = await scorer.score(fixture('hostile', 'endless-loop.html'));
    assert.ok(performance.now() - t < BUDGET_MS + 10_000);
    const m = metric(doc, 'render-validity');
    assert.equal(m.score, 0, JSON.stringify(m));
    assert.equal(metric(doc, 'control-liveness').score, null);
  });
});

describe('heavy and slow-starting pages', () => {
  it('a light canvas redrawn every frame keeps 16 ms frames with four CPU hogs beside the browser (its cost is CPU time)', async () => {
    // On wall time (before 2026-11-28) a loaded machine made this page "heavy": its frames came 32-48 ms apart and
    // its player jumped a third as high in the same page time.
    const spinning = cpuHogs();
    try {
      const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'language', 'game-no-start-screen.html'));
      const v = probeOf(evidence);
      assert.equal(v.settings.frameMs, undefined, `frames every ${v.settings.frameMs} ms: ${JSON.stringify(v.faults)}`);
    } finally {
      for (const h of spinning) h.kill('SIGKILL');
    }
  });

  it("the fractal: the probe's heavy-page frames from its first settle, its first document kept for the baseline", async () => {
    const { doc, evidence } = await scorer.scoreWithEvidence(fixture('heavy', 'fractal.html'));
    const v = probeOf(evidence);
    // Each of its frames costs well over MAX_FRAME_MS of CPU time (before: 96 ms, after a whole first settle at
    // 16 ms, and a reload for the baseline; then as far apart as one costs, up to PACED_MAX_FRAME_MS).
    assert.equal(v.settings.frameMs, PROBE_HEAVY_FRAME_MS, `frames every ${v.settings.frameMs} ms`);
    assert.equal(v.controls.length, 0);
    assert.equal(v.timings.restore, undefined, 'no reload');
    assert.equal(metric(doc, 'render-validity').score, 100);
  });

  it("a heavy page's restores run two frames and hold the rest of the settle; its frames come again for the action", async () => {
    // Every frame computes 10⁷ square roots (about 120 ms of CPU time here, frames adapted early); the button says
    // how many frames were drawn by the time it is clicked: the restore's settle (1,000 page ms) and PREP (300) before
    // the click. Counted in work, not in real time: frames spinning for 40 real ms got under 64 ms of CPU time in the
    // measured window on a loaded CI machine (2026-11-30), the page was not heavy, and its frames never adapted.
    const dir = tempDir();
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html><html lang="en"><head><title>heavy frames</title></head><body><p id="n">0</p>
<button id="b" type="button">Count frames</button><script>
let drawn = 0;
const work = (n) => { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(x + 1); return x; };
function frame() { drawn++; work(1e7); document.getElementById('n').textContent = String(drawn); requestAnimationFrame(frame); }
requestAnimationFrame(frame);
document.getElementById('b').addEventListener('click', () => alert('frames drawn ' + drawn));
</script></body></html>`,
    );
    const { evidence } = await scorer.scoreWithEvidence(dir);
    const v = probeOf(evidence);
    const frameMs = v.settings.frameMs;
    assert.ok(frameMs !== undefined && frameMs > 16, `frames every ${frameMs} ms: ${JSON.stringify(v.faults)}`);
    const clicks = v.actions.filter((a) => v.controls[a.control]?.text === 'Count frames' && a.outcome === 'done');
    assert.ok(clicks.length > 0, JSON.stringify(v.actions));
    for (const click of clicks) {
      const said = click.effects.map((e) => /frames drawn (\d+)/.exec(e.detail)?.[1]).find((n) => n !== undefined);
      assert.ok(said !== undefined, JSON.stringify(click.effects));
      // Held: two frames in the settle, PREP's frames (the held frame due again at its first), the click's. Not
      // held, the settle alone would draw 1,000 / frameMs frames.
      const most = 2 + Math.ceil(v.settings.prepMs / frameMs) + 1;
      assert.ok(Number(said) <= most, `frames drawn by the click: ${said} (at most ${most})`);
      assert.ok(Number(said) >= 3, `frames drawn by the click: ${said}: PREP's frames did not come`);
    }
  });

  it('a heavy page with nothing to act on draws one frame in its baseline: the frame at its end', async () => {
    // Every frame computes 3·10⁷ square roots (about 350 ms of CPU time here: the first frame alone is past the
    // mark of 64 ms on a machine several times faster) and says how many were drawn. Counted in work, not in real
    // time: a frame spinning for 80 real ms got less than 64 ms of CPU on a loaded machine (a fresh clone's run,
    // 2026-11-29), its cost was measured over four frames, and the start view came after its fifth.
    const dir = tempDir();
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html><html lang="en"><head><title>heavy, no controls</title></head><body><p id="n">frames 0</p><script>
let drawn = 0;
const work = (n) => { let x = 0; for (let i = 0; i < n; i++) x += Math.sqrt(x + 1); return x; };
function frame() { drawn++; work(3e7); document.getElementById('n').textContent = 'frames ' + drawn; history.replaceState(null, '', '#frames' + drawn); requestAnimationFrame(frame); }
requestAnimationFrame(frame);
</script></body></html>`,
    );
    const { evidence } = await scorer.scoreWithEvidence(dir);
    const v = probeOf(evidence);
    assert.equal(v.settings.frameMs, PROBE_HEAVY_FRAME_MS, JSON.stringify(v.faults));
    assert.equal(v.controls.length, 0);
    // The start view is read at the end of the baseline: the first settle's measured frame, the baseline's last. Its
    // frames not held, PREP and OBSERVE (1,300 page ms) would draw five more.
    const drawn = Number(/#frames(\d+)/.exec(v.navigation.startView?.key ?? '')?.[1]);
    assert.ok(drawn >= 2 && drawn <= 3, `frames drawn by the start view: ${JSON.stringify(v.navigation.startView)}`);
  });

  it('a page busy 4 s after its load (a WebAssembly runtime starting) is waited for, not taken as hung', async () => {
    const { evidence } = await scorer.scoreWithEvidence(fixture('requirement-tests', 'slow-start'));
    const v = probeOf(evidence);
    // Before: 2 s for the page to answer after load, then "the page did not respond after load": hung, no first view.
    assert.notEqual(v.hung, true, JSON.stringify(v.faults));
    assert.ok(v.firstView, JSON.stringify(v.unavailable));
    assert.ok(v.firstView.textChars >= 'Slow start Ready'.length, `text ${v.firstView.textChars}`);
  });
});

describe('saved evidence and pictures', () => {
  it('--save-evidence then --from-evidence gives the same interaction scores; crops are PNG files', async () => {
    const dir = tempDir();
    const args = ['score', page('tabs.html'), '--json', '--suite', 'extended', '--network', 'offline', '--only', INTERACTION.join(',')];
    const live = await runCli([...args, '--save-evidence', dir], { timeoutMs: 180_000 });
    assert.equal(live.code, 0, live.stderr);
    assert.ok(existsSync(join(dir, 'interaction-start.png')));
    assert.ok(
      readdirSync(dir).some((f) => /^interaction-crop-\d+\.png$/.test(f)),
      readdirSync(dir).join(' '),
    );
    const replay = await runCli([...args, '--from-evidence', dir]);
    assert.equal(replay.code, 0, replay.stderr);
    const scores = (out: string) => (JSON.parse(out) as ScoreDocument).metrics.map((m) => [m.id, m.score]);
    assert.deepEqual(scores(replay.stdout), scores(live.stdout));
  });

  it('--explain control-liveness --out draws the inert controls boxed on the screenshot', async () => {
    const out = tempDir();
    const r = await runCli(['score', page('dead-form.html'), '--suite', 'extended', '--network', 'offline', '--explain', 'control-liveness', '--out', out], {
      timeoutMs: 180_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(out).sort(), ['control-liveness-crops.png', 'control-liveness-inert.png']);
    assert.match(r.stdout, /3 inert controls boxed in red/);
  });
});

describe('with Lighthouse', () => {
  // console-errors needs the visit: then Lighthouse's run is started early and held while the probe runs.
  const withLighthouse = new Scorer({
    suite: 'extended',
    only: ['control-liveness', 'accessibility', 'console-errors'],
    budgetMs: 60_000,
    network: { mode: 'offline' },
  });
  after(() => withLighthouse.close());

  it('Lighthouse is held until the probe is over (the probe never runs during its measurement)', async () => {
    const { doc, evidence } = await withLighthouse.scoreWithEvidence(page('tabs.html'));
    assert.notEqual(metric(doc, 'accessibility').score, null, metric(doc, 'accessibility').reason);
    assert.ok(Math.abs(metric(doc, 'control-liveness').score! - 66.67) < 0.01);
    assert.ok(evidence.browser?.ok);
    const t = evidence.browser.value.timings;
    // The run went through the hold (0 ms when Lighthouse's own set-up outlasted visit and probe, as on a busy machine).
    assert.ok(t.interaction! > 0 && t.lighthouseHeld !== undefined, JSON.stringify(t));
    // The sandbox logs requests as they arrive: every request of the probe came before the first of Lighthouse's
    // page load (Lighthouse loads the page only once released).
    const phases = evidence.browser.value.network.map((e) => e.phase);
    const lastProbe = phases.lastIndexOf('interaction');
    const firstLighthouse = phases.indexOf('lighthouse');
    assert.ok(lastProbe >= 0 && firstLighthouse >= 0, phases.join(' '));
    assert.ok(lastProbe < firstLighthouse, `a probe request after Lighthouse started loading: ${phases.join(' ')}`);
  });
});
