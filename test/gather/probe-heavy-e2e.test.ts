/**
 * The probe's baselines on heavy pages (fixtures/probe-heavy/scene.html: a canvas scene whose every frame costs
 * millions of iterations, and its variants), in the real browser: a heavy page held to the page clock with nothing
 * on real time gets no second identical baseline (R2), and says why; one with a video, an audio context or requests
 * of its own after load keeps it; one with nothing to act on draws the later sample's frame once, in its baseline,
 * and takes no later sample when its first view shows a scene.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { InteractionEvidence } from '../../core/browser-evidence.js';
import { LAST_SAMPLE_MS } from '../../gather/interaction/probe/discover.js';
import { PROBE_HEAVY_FRAME_MS } from '../../gather/interaction/probe/limits.js';
import { Scorer } from '../../runner/score.js';
import { fixture, tempDir } from '../helpers.js';

/** The variants of fixtures/probe-heavy/scene.html, each what its name says added to (or taken from) the scene. */
const SCENE = readFileSync(fixture('probe-heavy', 'scene.html'), 'utf8');
const VARIANTS: Record<string, (page: string) => string> = {
  'scene-button': (p) => p,
  'scene-video': (p) => p.replace('<!-- more elements -->', '<video id="v" muted width="4" height="4"></video>'),
  // An oscillator through an analyser, as music visualisers are built: an audio graph runs on real time.
  'scene-synth': (p) =>
    p.replace('// more script', 'const audio = new AudioContext(); const osc = audio.createOscillator(); osc.connect(audio.createAnalyser()); osc.start();'),
  // Its own address fetched every 200 ms of its clock: the network takes part in what it shows.
  'scene-polling': (p) =>
    p.replace('// more script', "setInterval(() => fetch(location.href).then((r) => r.text()).then((t) => { document.title = 'polled ' + t.length; }), 200);"),
  // An image added half a page second after load, in the settle before the baseline: images do not hold the clock.
  'scene-late-image': (p) =>
    p.replace('// more script', "setTimeout(() => { const i = new Image(); i.src = location.href + '?picture'; document.body.append(i); }, 500);"),
  'scene-alone': (p) => p.replace(/<div id="ui">.*<\/div>/, ''),
  // The same, its frames (as costly) drawing nothing but the background for its first two page seconds: a scene
  // that starts late, read again later.
  'scene-alone-late': (p) =>
    VARIANTS['scene-alone']!(p).replace(
      'const h = (t / 20) % 360;',
      "if (t < 2000) { ctx.fillStyle = '#102'; ctx.fillRect(0, 0, canvas.width, canvas.height); requestAnimationFrame(frame); return; }\n    const h = (t / 20) % 360;",
    ),
};
const dir = tempDir('webgrade-probe-heavy-');

const scorer = new Scorer({ suite: 'extended', only: ['control-liveness', 'render-validity'], network: { mode: 'offline' }, judge: undefined });
after(() => scorer.close());

async function probe(name: string) {
  const file = join(dir, `${name}.html`);
  writeFileSync(file, VARIANTS[name]!(SCENE));
  const { doc, evidence } = await scorer.scoreWithEvidence(file);
  assert.ok(evidence.interaction?.ok, JSON.stringify(evidence.interaction));
  const ev = (evidence.interaction as { value: InteractionEvidence }).value;
  // Every page here is heavy: its frames adapted in its first settle (without that, nothing below is tested).
  assert.equal(ev.settings.frameMs, PROBE_HEAVY_FRAME_MS, `${name} was not taken as heavy: ${JSON.stringify(ev.settings)}`);
  const score = (id: string) => doc.metrics.find((m) => m.id === id)!;
  return { ev, liveness: score('control-liveness'), render: score('render-validity') };
}

/** Reloads of the entry page the probe made (its first load is not one). */
const restores = (ev: InteractionEvidence) => ev.network?.filter((e) => /\.html$/.test(new URL(e.url).pathname)).length ?? NaN;

describe('the second baseline on heavy pages', () => {
  it('a heavy scene with a button and nothing on real time: no R2, the reason logged, the button still found live', async () => {
    const { ev, liveness } = await probe('scene-button');
    assert.match(ev.unstableUnchecked ?? '', /nothing in it runs on real time/);
    assert.equal(ev.unstable, undefined);
    assert.equal(liveness.score, 100, JSON.stringify(liveness.details));
    // First load, the plain baseline's reload, the button's restore: three loads of the page, not four.
    assert.equal(restores(ev), 3, JSON.stringify(ev.network?.map((e) => e.url)));
  });

  it('the same scene with a video element keeps R2 (media plays on real time)', async () => {
    const { ev } = await probe('scene-video');
    assert.equal(ev.unstableUnchecked, undefined);
    assert.equal(restores(ev), 4, JSON.stringify(ev.network?.map((e) => e.url)));
  });

  it('the same scene with an audio context keeps R2 (an audio graph runs on real time; Chrome reports it)', async () => {
    const { ev } = await probe('scene-synth');
    assert.equal(ev.unstableUnchecked, undefined);
    assert.equal(restores(ev), 4, JSON.stringify(ev.network?.map((e) => e.url)));
  });

  it('the same scene polling its server keeps R2 (what it shows depends on network timing)', async () => {
    const { ev } = await probe('scene-polling');
    assert.equal(ev.unstableUnchecked, undefined);
  });
});

describe('the second baseline on heavy pages that load after their load', () => {
  it('an image added in the settle before the baseline keeps R2 (its arrival is on real time)', async () => {
    const { ev } = await probe('scene-late-image');
    assert.equal(ev.unstableUnchecked, undefined);
  });
});

describe('the later sample on a heavy page with nothing to act on', () => {
  it('a scene that starts late is read again once, at LAST_SAMPLE_MS, in the frame its baseline ends on, and renders', async () => {
    const { ev, render } = await probe('scene-alone-late');
    assert.deepEqual(
      ev.firstView?.samples?.map((s) => s.atMs),
      [LAST_SAMPLE_MS],
    );
    assert.equal(ev.unstableUnchecked, undefined, 'nothing to compare: no R2 to skip');
    assert.equal(render.score, 100, JSON.stringify(render.details));
    assert.match(String(render.details.scene), /at 4\.0 s of the page clock/);
  });

  it('a scene shown in the first view is not read again (the first frame that shows one decides render-validity)', async () => {
    const { ev, render } = await probe('scene-alone');
    assert.equal(ev.firstView?.samples, undefined, JSON.stringify(ev.firstView?.samples?.map((s) => s.atMs)));
    assert.equal(render.score, 100, JSON.stringify(render.details));
    assert.match(String(render.details.scene), /at 1\.0 s of the page clock/);
  });
});
