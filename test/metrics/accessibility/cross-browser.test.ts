import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import crossBrowser, { supportIn } from '../../../metrics/accessibility/cross-browser.js';
import type { MetricDetails } from '../../../core/metric.js';
import type { BcdNode } from '../../../metrics/accessibility/used-features.js';
import { testMetric } from '../../metric-tester.js';

const page = (style: string, script = '') =>
  `<!doctype html><html><head><title>t</title><style>${style}</style></head><body><p>hi</p>${script ? `<script>${script}</script>` : ''}</body></html>`;
const incompatible = (d: MetricDetails) => (d.incompatible as Array<{ feature: string; unsupportedIn: string[] }>).map((i) => i.feature);
/** score = 100 × (features − bad) / features, computed from the details' own count. */
const oneBad = (feature: string) => (d: MetricDetails, o: { score: number | null }) => {
  assert.deepEqual(incompatible(d), [feature]);
  const n = d.features as number;
  assert.equal(o.score, Math.round((10000 * (n - 1)) / n) / 100);
};

testMetric(crossBrowser, [
  { name: 'a page of long-supported features scores 100', html: page('p { display: grid; color: red; }'), score: 100 },
  {
    name: 'field-sizing (Chrome 123, Firefox 152, Safari 26.2) fails the May 2024 targets: one bad feature of n',
    html: page('textarea { field-sizing: content; }'),
    details: oneBad('css.properties.field-sizing'),
  },
  {
    name: 'the same property inside @supports is guarded: not held against the page',
    html: page('@supports (field-sizing: content) { textarea { field-sizing: content; } }'),
    score: 100,
    details: (d) => assert.ok((d.guarded as string[]).includes('css.properties.field-sizing')),
  },
  {
    name: 'a JS API that Firefox ships only behind a flag (navigator.share) is unsupported there',
    html: page('p{color:red}', 'document.querySelector("p").onclick = () => navigator.share({ title: "x" });'),
    details: (d) => {
      const bad = d.incompatible as Array<{ feature: string; unsupportedIn: string[] }>;
      assert.deepEqual(
        bad.map((b) => b.feature),
        ['api.Navigator.share'],
      );
      assert.deepEqual(bad[0]!.unsupportedIn, ['firefox 126']);
    },
  },
  {
    name: 'feature detection guards a JS API (if (navigator.share) ...)',
    html: page('p{color:red}', 'if (navigator.share) { navigator.share({ title: "x" }); }'),
    score: 100,
    details: (d) => assert.ok((d.guarded as string[]).includes('api.Navigator.share')),
  },
  {
    name: 'members of navigator.clipboard are looked up on the Clipboard interface',
    html: page('p{color:red}', 'navigator.clipboard.writeText("x").catch(() => {});'),
    score: 100,
    details: (d) => assert.equal((d.features as number) > 0, true),
  },
  {
    name: 'pointer cursors are not checked on touch browsers, and font stacks are fallbacks',
    html: page('button { cursor: pointer; font-family: ui-sans-serif, system-ui, sans-serif; }'),
    score: 100,
  },
  {
    name: 'without a browser session the static DOM is read, and the details say so',
    html: page('p{color:red}'),
    details: (d) => assert.equal(d.domSource, 'static'),
  },
]);

describe('supportIn (BCD support statements against a target version)', () => {
  const node = (support: unknown): BcdNode => ({ __compat: { support } });
  const cases: Array<[string, unknown, string, string]> = [
    ['a version at or below the target', { chrome: { version_added: '120' } }, '125', 'yes'],
    ['a later version', { chrome: { version_added: '126' } }, '125', 'no'],
    ['version_added true', { chrome: { version_added: true } }, '125', 'yes'],
    ['version_added false', { chrome: { version_added: false } }, '125', 'no'],
    ['a "≤" version', { chrome: { version_added: '≤79' } }, '125', 'yes'],
    ['only behind a flag', { chrome: { version_added: '100', flags: [{}] } }, '125', 'no'],
    ['only with a prefix', { chrome: { version_added: '100', prefix: '-webkit-' } }, '125', 'no'],
    ['removed before the target', { chrome: { version_added: '50', version_removed: '100' } }, '125', 'no'],
    ['removed after the target', { chrome: { version_added: '50', version_removed: '130' } }, '125', 'yes'],
    ['a partial implementation', { chrome: { version_added: '50', partial_implementation: true } }, '125', 'partial'],
    ['a full statement beside a partial one', { chrome: [{ version_added: '50', partial_implementation: true }, { version_added: '110' }] }, '125', 'yes'],
    ['no data for the browser', {}, '125', 'yes'],
    ['dotted versions compare numerically', { safari: { version_added: '17.10' } }, '17.5', 'no'],
  ];
  for (const [name, support, target, expected] of cases) {
    it(`${name} → ${expected}`, () => {
      const browser = Object.keys(support as object)[0] ?? 'chrome';
      assert.equal(supportIn(node(support), browser, target), expected);
    });
  }
});
