import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import navigationReachability from '../../../metrics/interaction/navigation-reachability.js';
import { testMetric } from '../../metric-tester.js';
import { referenceRoutes, routeName } from '../../../metrics/lib/reference-routes.js';
import { writeArtifact } from '../../helpers.js';
import { control, interactionEvidence, link, recorded } from './synthetic.js';

testMetric(navigationReachability, [
  {
    name: "recorded: a two-page site with a link to a missing page and a missing anchor: 3 of 5 lead to a view (the about page's Home link included)",
    html: '<p>x</p>',
    evidence: { interaction: recorded('site') },
    score: 60,
    details: (d) => {
      const reasons = (d.dangling as Array<{ text: string; reason: string }>).map((x) => `${x.text}: ${x.reason}`).sort();
      assert.deepEqual(reasons, ['Contact: missing anchor #contact', 'Pricing: missing local file /pricing.html (HTTP 404)']);
    },
  },
  {
    name: 'recorded: tabs: the forgotten tab changes nothing in any view it was tried in',
    html: '<p>x</p>',
    evidence: { interaction: recorded('tabs') },
    near: [66.67, 0.01],
    details: (d) =>
      assert.deepEqual(
        (d.dangling as Array<{ selector: string; reason: string }>).map((x) => [x.selector, x.reason]),
        [['#tab-team', 'changes nothing']],
      ),
  },
  {
    name: '100 × leading / tried; untried links are listed, not counted',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [
          control(0, { nav: 'tab' }),
          control(1, { nav: 'tab' }),
          control(2, { nav: 'hash-route', kind: 'link', href: 'http://127.0.0.1:1/index.html#/about' }),
          control(3, { nav: 'tab' }),
        ],
        navigation: { views: [], links: [link(0, true), link(1, true), link(2, false, 'hash route #/about changes nothing')], untried: [3] },
      }),
    },
    near: [66.67, 0.01],
    details: (d) => {
      assert.equal((d.untried as unknown[]).length, 1);
      assert.equal((d.dangling as Array<{ href: string }>)[0]!.href, '/index.html#/about');
    },
  },
  { name: 'unscorable without in-app navigation', html: '<p>x</p>', evidence: { interaction: recorded('todo') }, unscorable: /no in-app navigation/ },
  {
    name: 'unscorable when no link could be tried',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0, { nav: 'tab' })],
        navigation: { views: [], links: [], untried: [0], truncated: "the probe's time budget ran out" },
      }),
    },
    unscorable: /none of the 1 in-app link could be tried/,
  },
]);

// With a reference (issue 36): UI2App's denominator is the routes the reference has, and no navigation scores 0.
const REFERENCE = writeArtifact({
  'index.html': '<nav><a href="about.html">About</a> <a href="#/contact">Contact</a> <a href="#top">Top</a> <a href="https://example.com/">Elsewhere</a></nav>',
  'about.html': '<a href="team/">Team</a> <a href="index.html">Home</a>',
  'team/index.html': '<p>The team</p>',
});
const reference = { path: REFERENCE, kind: 'artifact' as const };
const view = (path: string, hash = '', depth = 1) => ({
  key: `${path}${hash}|x|3`,
  path,
  hash,
  textHash: 'x',
  elements: 3,
  text: '',
  anchorExists: false,
  depth,
});
const START = view('/index.html', '', 0);

describe('reference routes', () => {
  it('names routes by address: extension, index and trailing slash dropped; hash routes by what follows #/ or #!', () => {
    for (const [path, hash, want] of [
      ['/index.html', '', ''],
      ['/About.html', '', 'about'],
      ['/docs/', '', 'docs'],
      ['/docs/index.htm', '', 'docs'],
      ['/index.html', '#/contact', 'contact'],
      ['/', '#!/a/b', 'a/b'],
      ['/index.html', '#pricing', ''],
    ] as const)
      assert.equal(routeName(path, hash), want, `${path}${hash}`);
  });

  it("reads a reference's routes from its links, breadth first over its HTML files", () => {
    assert.deepEqual(referenceRoutes(reference)?.routes, ['', 'about', 'contact', 'team']);
    assert.equal(referenceRoutes({ path: 'design.png', kind: 'image' }), null);
  });
});

testMetric(navigationReachability, [
  {
    name: "with a reference: UI2App's reachability, reference routes reached / reference routes (entry left out)",
    html: '<p>x</p>',
    evidence: {
      reference,
      interaction: interactionEvidence({
        controls: [control(0, { nav: 'page', kind: 'link' }), control(1, { nav: 'hash-route', kind: 'link' })],
        navigation: {
          startView: START,
          views: [START, view('/about.html'), view('/index.html', '#/contact'), view('/pricing.html')],
          links: [link(0, true), link(1, true)],
          untried: [],
        },
      }),
    },
    near: [66.67, 0.01],
    details: (d) => {
      assert.deepEqual(d.reached, ['about', 'contact']);
      assert.deepEqual(d.missing, ['team']);
      assert.deepEqual(d.otherRoutes, ['pricing']);
      assert.match(String(d.formula), /UI2App/);
      assert.equal((d.linkValidity as { score: number }).score, 100);
    },
  },
  {
    name: 'with a reference: a page with no in-app navigation scores 0 (without one it is unscorable)',
    html: '<p>x</p>',
    evidence: { reference, interaction: recorded('todo') },
    score: 0,
    details: (d) => assert.deepEqual(d.missing, ['about', 'contact', 'team']),
  },
  {
    name: 'with a reference: a page that did not respond scores 0',
    html: '<p>x</p>',
    evidence: { reference, interaction: interactionEvidence({ hung: true }) },
    score: 0,
  },
  {
    name: 'a reference with no route but its entry: link validity, as without a reference',
    html: '<p>x</p>',
    evidence: { reference: { path: writeArtifact({ 'index.html': '<a href="#top">Top</a>' }), kind: 'artifact' }, interaction: recorded('tabs') },
    near: [66.67, 0.01],
    details: (d) => assert.match(String(d.formula), /link validity/),
  },
]);
