import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconConsistency from '../../../metrics/visual/icon-consistency.js';
import type { IconInfo } from '../../../core/browser-evidence.js';
import { missing } from '../../../core/evidence.js';
import type { MetricDetails } from '../../../core/metric.js';
import { testMetric } from '../../metric-tester.js';
import { browserEvidence } from '../synthetic-browser.js';
import { fixture, runCli } from '../../helpers.js';

let n = 0;
function icon(over: Partial<IconInfo> = {}): IconInfo {
  n++;
  return {
    selector: `nav > button:nth-of-type(${n}) > svg`,
    type: 'svg',
    set: 'inline-svg',
    width: 20,
    height: 20,
    strokeWidth: 2,
    container: 'nav',
    background: { shape: 'circle', color: 'rgb(224, 231, 255)', padding: 8 },
    rendered: true,
    ...over,
  };
}
const withIcons = (icons: IconInfo[]) => ({ browser: browserEvidence({ icons }) });
const failed =
  (...dims: string[]) =>
  (d: MetricDetails) =>
    assert.deepEqual(
      (d.failedDimensions as Array<{ dimension: string }>).map((f) => f.dimension),
      dims,
    );

testMetric(iconConsistency, [
  {
    name: 'three identical icons in one toolbar: no dimension fails, 100',
    html: '<p>x</p>',
    evidence: withIcons([icon(), icon(), icon()]),
    score: 100,
    details: failed(),
  },
  {
    name: 'two icon sets on the page: icon-set fails, 100 − 25 = 75',
    html: '<p>x</p>',
    evidence: withIcons([icon(), icon({ set: 'emoji', type: 'emoji', strokeWidth: null })]),
    score: 75,
    details: failed('icon-set'),
  },
  {
    name: 'sets are compared across the page, even in different containers',
    html: '<p>x</p>',
    evidence: withIcons([icon({ container: 'header' }), icon({ container: 'footer', set: 'font-awesome', type: 'font' })]),
    score: 75,
  },
  { name: '16 px beside 20 px (ratio 1.25) passes size', html: '<p>x</p>', evidence: withIcons([icon({ width: 16, height: 16 }), icon()]), score: 100 },
  {
    name: '16 px beside 24 px fails size',
    html: '<p>x</p>',
    evidence: withIcons([icon({ width: 16, height: 16 }), icon({ width: 24, height: 24 })]),
    score: 75,
    details: failed('size'),
  },
  {
    name: 'sizes in different containers are not compared',
    html: '<p>x</p>',
    evidence: withIcons([icon({ width: 16, height: 16, container: 'header' }), icon({ width: 32, height: 32, container: 'main' })]),
    score: 100,
  },
  {
    name: 'stroke 1.5 beside 2 passes, 1 beside 2 fails',
    html: '<p>x</p>',
    evidence: withIcons([icon({ strokeWidth: 1 }), icon({ strokeWidth: 1.5 }), icon()]),
    score: 75,
    details: failed('stroke-width'),
  },
  { name: 'filled icons (no stroke) are not compared on stroke', html: '<p>x</p>', evidence: withIcons([icon({ strokeWidth: null }), icon()]), score: 100 },
  {
    name: 'circle beside square chips in another colour with other padding: shape, colour and padding fail, 25',
    html: '<p>x</p>',
    evidence: withIcons([icon(), icon({ background: { shape: 'square', color: 'rgb(254, 226, 226)', padding: 2 } })]),
    score: 25,
    details: failed('background-shape', 'background-colour', 'background-padding'),
  },
  {
    name: 'some icons with a background and others without fails background-shape',
    html: '<p>x</p>',
    evidence: withIcons([icon(), icon({ background: null })]),
    score: 75,
    details: failed('background-shape'),
  },
  {
    name: 'all six dimensions failing scores 0, never below',
    html: '<p>x</p>',
    evidence: withIcons([
      icon({ width: 12, height: 12, strokeWidth: 1 }),
      icon({ set: 'lucide', width: 30, height: 30, strokeWidth: 3, background: { shape: 'square', color: 'red', padding: 1 } }),
    ]),
    score: 0,
  },
  {
    name: 'an icon font that did not load offline counts for the set only: its size is not guessed',
    html: '<p>x</p>',
    evidence: withIcons([
      icon({ set: 'font-awesome', type: 'font', width: 0, height: 0, rendered: false, background: null, strokeWidth: null }),
      icon({ set: 'font-awesome', type: 'font', width: 40, height: 40, background: null, strokeWidth: null }),
    ]),
    score: 100,
    details: (d) => assert.equal(d.unrendered, 1),
  },
  { name: 'a page without icons is unscorable', html: '<p>x</p>', evidence: withIcons([]), unscorable: 'no icons' },
  {
    name: 'a failed browser session is unscorable with its reason',
    html: '<p>x</p>',
    evidence: { browser: missing('browser crashed') },
    unscorable: 'browser crashed',
  },
  {
    name: 'icons not collected (collector timed out) is unscorable with that reason',
    html: '<p>x</p>',
    evidence: { browser: browserEvidence({ unavailable: { icons: 'collector icons timed out' } }) },
    unscorable: 'timed out',
  },
]);

describe('icon-consistency in the real browser', () => {
  it('a toolbar of one icon family scores 100; a toolbar mixing sizes, strokes, chips and an emoji scores 0', async () => {
    const good = await runCli(['score', fixture('browser', 'icons-consistent.html'), '--only', 'icon-consistency', '--json']);
    const bad = await runCli(['score', fixture('browser', 'icons-mixed.html'), '--only', 'icon-consistency', '--json']);
    assert.equal(good.code, 0, good.stderr);
    assert.equal(bad.code, 0, bad.stderr);
    const g = JSON.parse(good.stdout).metrics[0];
    const b = JSON.parse(bad.stdout).metrics[0];
    assert.equal(g.score, 100, JSON.stringify(g.details));
    assert.equal(g.details.icons, 3);
    // icon-set, size, stroke-width, background-shape, background-colour fail; padding differs by 2 px only.
    assert.equal(b.score, 0, JSON.stringify(b.details));
    assert.deepEqual(b.details.sets, ['inline-svg', 'emoji']);
  });
});
