/**
 * component-consistency on wide and class-heavy DOMs: jsdom's `children` collection made reading 20 000
 * siblings take 10 s (quadratic), the `badge badge-success` rule compared every class with every other class of
 * an element, and a spread of every member's child count overflowed the argument stack for groups of more than
 * about 125 000 members (not built here: such a DOM takes a minute to build).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import componentConsistency, { isVariantClass } from '../../../metrics/visual/component-consistency.js';
import { buildEvidence } from '../../metric-tester.js';

describe('component-consistency at scale', () => {
  it('20 000 cards in one group and 40 000 bare siblings score in linear time', async () => {
    const cards = Array.from({ length: 20_000 }, () => '<div class="card"><h3>T</h3><p>B</p></div>').join('');
    const bare = Array.from({ length: 40_000 }, () => '<div>x</div>').join('');
    const evidence = buildEvidence({ html: `<body><section>${cards}</section><main>${bare}</main></body>` });
    void evidence.artifact.dom;
    const t = performance.now();
    const outcome = await componentConsistency.score(evidence);
    const ms = performance.now() - t;
    assert.equal(outcome.score, 100);
    assert.ok(ms < 15_000, `took ${Math.round(ms)} ms`);
  });

  it('an element with 20 000 classes: the prefix rule in linear time, same answers as before', () => {
    const classes = Array.from({ length: 20_000 }, (_, i) => `c${i}`);
    const set = new Set(classes);
    const t = performance.now();
    for (const c of classes) isVariantClass(c, set);
    assert.ok(performance.now() - t < 5_000);
    assert.equal(isVariantClass('badge-success', ['badge', 'badge-success']), true);
    assert.equal(isVariantClass('badge_x', ['BADGE', 'badge_x']), true);
    assert.equal(isVariantClass('badge', ['badge', 'badge-x']), false);
    assert.equal(isVariantClass('card-body', ['card-body']), false);
  });
});
