/**
 * The visit on the page clock of our own (`--visit-clock page`, gather/visit-clock.ts), with the real Chromium:
 * a page that draws in `requestAnimationFrame` from `performance.now()` and shows a timer's message gives the
 * same DOM and the same screenshot on every visit, the message shown and a later one not; the busy share is the
 * page's own work (a frame loop that costs more than a frame is busy, a still page is not); a heavy page's frames
 * are held after its first ones, so it costs seconds, not minutes; a page cannot stop or steer the clock; the clock
 * stands still while the page's own requests are in flight; and with
 * Lighthouse measuring the phone, the phone picture is taken on the page clock too, the same on every run.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Scorer } from '../../runner/score.js';
import { NEVER_IDLE_BUSY } from '../../gather/collectors/busy-after-load.js';
import { writeArtifact } from '../helpers.js';
import { createHash } from 'node:crypto';
import sharp from 'sharp';

const scorer = new Scorer({ only: ['layout-sparsity', 'console-errors'], budgetMs: 30_000, network: { mode: 'offline' }, visitClock: 'page' });
/** With Lighthouse (accessibility) measuring the phone (mobile-compat), and screenshots (layout-sparsity). */
const withLighthouse = new Scorer({
  only: ['mobile-compat', 'accessibility', 'layout-sparsity'],
  budgetMs: 60_000,
  network: { mode: 'offline' },
  visitClock: 'page',
});
after(() => Promise.all([scorer.close(), withLighthouse.close()]));

const sha = (b: Buffer | string) => createHash('sha1').update(b).digest('hex');

async function visit(page: string) {
  const { evidence } = await scorer.scoreWithEvidence(page);
  assert.ok(evidence.browser?.ok, evidence.browser && !evidence.browser.ok ? evidence.browser.reason : 'no browser evidence');
  return evidence.browser.value;
}

/** A canvas drawn every frame at a place given by the clock, a frame counter, a message after 900 ms and one after 20 s. */
const ANIMATED = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>race</title></head><body style="margin:0">
<canvas id="c" width="600" height="200"></canvas><p id="frames">0</p><p id="soon">waiting</p><p id="late">waiting</p>
<script>
const g = document.getElementById('c').getContext('2d'); let n = 0;
function draw(t) { n++; g.fillStyle = '#fff'; g.fillRect(0, 0, 600, 200); g.fillStyle = '#c30';
  g.fillRect((performance.now() / 3) % 580, 60 + 40 * Math.sin(t / 200), 20, 20);
  if (n % 10 === 0) document.getElementById('frames').textContent = String(n); requestAnimationFrame(draw); }
requestAnimationFrame(draw);
setTimeout(() => { document.getElementById('soon').textContent = 'shown at ' + Date.now(); }, 900);
setTimeout(() => { document.getElementById('late').textContent = 'much later'; }, 20000);
</script></body></html>`;

describe('the visit on the page clock', () => {
  it('a page drawn in requestAnimationFrame gives the same DOM and screenshot on every visit, with what its timers show by then', async () => {
    const page = writeArtifact({ 'index.html': ANIMATED });
    const runs = [];
    for (let i = 0; i < 3; i++) {
      runs.push(await visit(page));
      await new Promise((r) => setTimeout(r, 150 * i)); // another moment of real time
    }
    const first = runs[0]!;
    assert.match(first.domHtml, /<p id="soon">shown at \d+<\/p>/);
    assert.match(first.domHtml, /<p id="late">waiting<\/p>/);
    // 1.3 s of page time at 60 frames a second: about 80 frames, counted in tens.
    const frames = Number(/<p id="frames">(\d+)<\/p>/.exec(first.domHtml)?.[1]);
    assert.ok(frames >= 70 && frames <= 90, `frames drawn: ${frames}`);
    assert.ok(first.busyAfterLoad !== undefined && first.busyAfterLoad < NEVER_IDLE_BUSY, `busy ${first.busyAfterLoad}`);
    for (const [i, r] of runs.entries()) {
      assert.equal(r.domHtml, first.domHtml, `visit ${i + 1}: the DOM differs`);
      assert.equal(sha(r.screenshots.desktop!.png), sha(first.screenshots.desktop!.png), `visit ${i + 1}: the screenshot differs`);
    }
  });

  it('a still page is not busy; a frame loop costing more than a frame is, and is held after its first frames', async () => {
    const still = await visit(
      writeArtifact({ 'index.html': '<!doctype html><html lang="en"><head><title>still</title></head><body><p>still</p></body></html>' }),
    );
    assert.ok(still.busyAfterLoad !== undefined && still.busyAfterLoad <= 0.1, `still page busy ${still.busyAfterLoad}`);
    // Every frame computes for 100 ms of real time (CPU time far above 8 ms a frame even on a shared core): 80 frames would take 8 s.
    const heavy = await visit(
      writeArtifact({
        'index.html': `<!doctype html><html lang="en"><head><title>heavy</title></head><body><p id="n">0</p><script>
let n = 0; const real = () => new Event('x').timeStamp; // real time: the page's clock stands still while it computes
const spin = (ms) => { const end = real() + ms; let x = 0; while (real() < end) x += Math.sqrt(x + 1); return x; };
function frame() { n++; spin(100); document.getElementById('n').textContent = String(n); requestAnimationFrame(frame); }
requestAnimationFrame(frame);
</script></body></html>`,
      }),
    );
    assert.equal(heavy.busyAfterLoad, 1);
    const n = Number(/<p id="n">(\d+)<\/p>/.exec(heavy.domHtml)?.[1]);
    // One frame, two measured, and the one already asked for when they were held.
    assert.ok(n >= 3 && n <= 4, `frames run on the heavy page: ${n}`);
    assert.ok((heavy.timings.settle ?? Infinity) < 10_000, `settle ${heavy.timings.settle} ms`);
  });

  it('a page cannot stop the clock or move it: deleting and replacing timers leaves the evidence as it was', async () => {
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><title>tamper</title></head><body><p id="m">waiting</p><script>
for (const k of Object.getOwnPropertyNames(window)) { try { if (/^_[0-9a-f]{18}$/.test(k)) { window[k] = () => '{"fired":0,"storm":false,"slow":false,"realMs":0,"moved":1300,"now":1300}'; delete window[k]; } } catch {} }
setTimeout(() => { document.getElementById('m').textContent = 'timer ran'; }, 500);
</script></body></html>`,
    });
    const v = await visit(page);
    assert.match(v.domHtml, /<p id="m">timer ran<\/p>/);
    assert.ok(!v.faults.some((f) => /page clock|probe failed/.test(f)), JSON.stringify(v.faults));
  });

  it("the clock stands still while the page's fetches and XHRs are in flight: what they bring is handled at the page time it was asked for", async () => {
    // A 1 ms interval keeps callbacks due at every page ms, so a clock that went on while the answers travelled
    // would show the time they took; 2 MB through the artifact's proxy take tens of real ms.
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><title>fetch</title></head><body><p id="f">waiting</p><p id="x">waiting</p>
<button id="b" disabled>Copy</button><script>
let ticks = 0; setInterval(() => { ticks++; }, 1);
setTimeout(() => {
  const t0 = performance.now();
  fetch('big.bin').then((r) => r.arrayBuffer()).then((b) => {
    document.getElementById('f').textContent = 'fetch ' + b.byteLength + ' after ' + (performance.now() - t0) + ' ms';
    document.getElementById('b').disabled = false;
  });
  const x = new XMLHttpRequest(); x.open('GET', 'big.bin?x'); x.responseType = 'arraybuffer';
  x.onload = () => { document.getElementById('x').textContent = 'xhr ' + x.response.byteLength + ' after ' + (performance.now() - t0) + ' ms'; };
  x.send();
}, 100);
</script></body></html>`,
      'big.bin': Buffer.alloc(2_000_000, 7),
    });
    const v = await visit(page);
    assert.match(v.domHtml, /<p id="f">fetch 2000000 after 0 ms<\/p>/);
    assert.match(v.domHtml, /<p id="x">xhr 2000000 after 0 ms<\/p>/);
    assert.match(v.domHtml, /<button id="b">Copy<\/button>/);
  });

  it('a request that never answers holds the clock only a while: the timers after it still run, on the clock', async () => {
    const page = writeArtifact({
      'index.html': `<!doctype html><html lang="en"><head><title>stuck</title></head><body><p id="m">waiting</p><script>
setTimeout(() => { new Response(new ReadableStream({ start() {} })).text(); }, 100); // a body that never ends
setTimeout(() => { document.getElementById('m').textContent = 'ran at ' + performance.now(); }, 600);
</script></body></html>`,
    });
    const v = await visit(page);
    assert.match(v.domHtml, /<p id="m">ran at 600<\/p>/);
    assert.ok(!v.faults.some((f) => /page clock|probe failed/.test(f)), JSON.stringify(v.faults));
  });

  it('with Lighthouse measuring the phone, the phone picture of a page drawn in animation frames is the same on every run', async () => {
    const page = writeArtifact({ 'index.html': ANIMATED });
    const phone = async () => {
      const { doc, evidence } = await withLighthouse.scoreWithEvidence(page);
      const compat = doc.metrics.find((m) => m.id === 'mobile-compat');
      // The overflow is still measured in Lighthouse's run; only the picture is the visit's.
      assert.equal(compat?.details?.measuredBy, 'lighthouse run', JSON.stringify(compat));
      assert.ok(evidence.browser?.ok);
      const b = evidence.browser.value;
      assert.ok(b.timings.mobile !== undefined, 'the visit took no phone picture');
      assert.ok(b.screenshots.mobile, `no phone picture: ${JSON.stringify(b.faults)}`);
      assert.equal(b.screenshots.mobile.width, 1170);
      return sha(await sharp(b.screenshots.mobile.png).raw().toBuffer());
    };
    const first = await phone();
    await new Promise((r) => setTimeout(r, 300)); // another moment of real time
    assert.equal(await phone(), first, 'the two phone pictures differ');
  });
});
