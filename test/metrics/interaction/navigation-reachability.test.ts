import assert from 'node:assert/strict';
import navigationReachability from '../../../metrics/interaction/navigation-reachability.js';
import { testMetric } from '../../metric-tester.js';
import { control, interactionEvidence, link, recorded } from './synthetic.js';

testMetric(navigationReachability, [
  {
    name: 'recorded: a two-page site with a link to a missing page and a missing anchor: 3 of 5 lead to a view (the about page\'s Home link included)',
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
    details: (d) => assert.deepEqual((d.dangling as Array<{ selector: string; reason: string }>).map((x) => [x.selector, x.reason]), [['#tab-team', 'changes nothing']]),
  },
  {
    name: '100 × leading / tried; untried links are listed, not counted',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0, { nav: 'tab' }), control(1, { nav: 'tab' }), control(2, { nav: 'hash-route', kind: 'link', href: 'http://127.0.0.1:1/index.html#/about' }), control(3, { nav: 'tab' })],
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
    evidence: { interaction: interactionEvidence({ controls: [control(0, { nav: 'tab' })], navigation: { views: [], links: [], untried: [0], truncated: 'the probe\'s time budget ran out' } }) },
    unscorable: /none of the 1 in-app link could be tried/,
  },
]);
