import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import componentConsistency, { isVariantClass, signature } from '../../../metrics/visual/component-consistency.js';
import { JSDOM } from 'jsdom';
import { testMetric } from '../../metric-tester.js';

// logPenalty(I, T) = (1 − log2(1 + I/(T+1))) × 100, with I = inconsistent components, T = components in groups
const penalty = (I: number, T: number) => (1 - Math.log2(1 + I / (T + 1))) * 100;
const ONE_OF_THREE = penalty(1, 3); // 67.81…
const ONE_OF_FOUR = penalty(1, 4); // 73.70…

const card = (title: string, body = '<p class="card-text">Body text.</p>', titleClass = 'card-title') =>
  `<div class="card"><h3 class="${titleClass}">${title}</h3>${body}<a class="btn" href="#">More</a></div>`;

interface Group {
  selector: string;
  members: number;
  consistent: boolean;
  inconsistentMembers: number[];
  differences: Array<{ member: number; kind: string; what: string }>;
}
const groups = (d: Record<string, unknown>) => d.list as Group[];

testMetric(componentConsistency, [
  {
    name: 'a card grid of identical cards is consistent: 100',
    html: `<main><div class="grid">${card('A')}${card('B')}${card('C')}</div></main>`,
    score: 100,
    details: (d) => {
      assert.equal(d.groups, 1);
      assert.equal(groups(d)[0]!.selector, 'body > main > div.grid > div.card');
      assert.equal(groups(d)[0]!.members, 3);
    },
  },
  {
    name: 'a card grid where one card lacks its body and has an image: one inconsistent component of three (I=1, T=3)',
    html: `<div class="grid">${card('A')}${card('B', '<img src="x.png" alt="">')}${card('C')}</div>`,
    score: ONE_OF_THREE,
    details: (d) => {
      assert.equal(d.components, 3);
      assert.equal(d.inconsistentComponents, 1);
      const g = groups(d)[0]!;
      assert.deepEqual(g.inconsistentMembers, [2]);
      assert.equal(g.consistent, false);
      assert.deepEqual(
        g.differences.map((x) => [x.member, x.kind]),
        [[2, 'structure']],
      );
      assert.match(g.differences[0]!.what, /div\(h3,img,a\) instead of div\(h3,p,a\)/);
    },
  },
  {
    name: 'a card whose title has a different size class differs in styling',
    html: `<div class="grid">${card('A', undefined, 'card-title text-xl')}${card('B', undefined, 'card-title text-lg')}${card('C', undefined, 'card-title text-xl')}</div>`,
    score: ONE_OF_THREE,
    details: (d) =>
      assert.deepEqual(
        groups(d)[0]!.differences.map((x) => [x.member, x.kind]),
        [[2, 'style']],
      ),
  },
  {
    name: 'colour and status variants (badge-success/danger, bg-red-500/bg-green-500, active) are not inconsistencies',
    html: `<ul class="tasks">
      <li class="task active"><span class="badge badge-success bg-green-500">Done</span><span class="name">Write</span></li>
      <li class="task"><span class="badge badge-danger bg-red-500">Late</span><span class="name">Test</span></li>
      <li class="task is-done"><span class="badge badge-warning">Soon</span><span class="name">Ship</span></li>
    </ul>`,
    score: 100,
  },
  {
    name: 'inline widths may differ (progress bars), inline font sizes may not',
    html: `<div class="bars">
      <div class="bar"><span class="label">A</span><div class="fill" style="width: 30%; background: red"></div></div>
      <div class="bar"><span class="label">B</span><div class="fill" style="width: 70%; background: blue"></div></div>
    </div>
    <div class="stats">
      <div class="stat"><b class="num" style="font-size: 24px">1</b><i class="cap">x</i></div>
      <div class="stat"><b class="num" style="font-size: 14px">2</b><i class="cap">y</i></div>
    </div>`,
    // 2 groups of 2 components; in the stats group the second differs from the first: I=1, T=4
    score: ONE_OF_FOUR,
    details: (d) => {
      const bad = groups(d).filter((g) => !g.consistent);
      assert.equal(bad.length, 1);
      assert.match(bad[0]!.selector, /div\.stat$/);
      assert.match(bad[0]!.differences[0]!.what, /font-size:14px/);
    },
  },
  {
    name: 'nested lists: a sub-list is not a structural difference; inner lists are groups of their own',
    html: `<ul class="tree">
      <li><span class="n">A</span><span class="c">2</span>
        <ul><li><a href="#">A1</a><span class="c">1</span></li><li><a href="#">A2</a><span class="c">1</span></li></ul></li>
      <li><span class="n">B</span><span class="c">0</span></li>
      <li><span class="n">C</span><span class="c">2</span>
        <ul><li><a href="#">C1</a><span class="c">1</span></li><li><a href="#">C2</a><span class="c">1</span></li></ul></li>
    </ul>`,
    score: 100,
    details: (d) => assert.equal(d.groups, 3),
  },
  {
    name: 'icons with different names but one icon style are consistent; mixing icon sets is not',
    html: `<div class="features">
      <div class="feature"><i class="fa-solid fa-star"></i><h4>Fast</h4></div>
      <div class="feature"><i class="fa-solid fa-heart"></i><h4>Loved</h4></div>
    </div>
    <div class="perks">
      <div class="perk"><i class="fa-solid fa-star"></i><h4>Fast</h4></div>
      <div class="perk"><i class="bi bi-heart"></i><h4>Loved</h4></div>
    </div>`,
    score: ONE_OF_FOUR,
    details: (d) => assert.match(groups(d).find((g) => !g.consistent)!.selector, /div\.perk$/),
  },
  {
    name: 'form rows with an input, a select or a textarea have the same structure',
    html: `<form><div class="field"><label>Name</label><input></div><div class="field"><label>Kind</label><select><option>a</option></select></div>
      <div class="field"><label>Note</label><textarea></textarea></div></form>`,
    score: 100,
  },
  {
    name: 'components, not groups, are counted: one odd card among twelve plus one odd item of a pair is I=2 of T=14 (not 2 of 2 groups)',
    html: `<div class="grid">${Array.from({ length: 11 }, (_, i) => card(`C${i}`)).join('')}${card('odd', '<img src="x.png" alt="">')}</div>
      <ul class="pair"><li class="row"><b class="k">a</b><i class="v">1</i></li><li class="row"><b class="k">b</b><u class="v">2</u></li></ul>`,
    score: penalty(2, 14), // 81.9…; counting groups would give penalty(2, 2) = 26.3
    details: (d) => {
      assert.deepEqual([d.components, d.inconsistentComponents, d.groups, d.inconsistentGroups], [14, 2, 2, 2]);
      assert.ok(Math.abs(penalty(2, 14) - 81.94) < 0.01 && Math.abs(penalty(2, 2) - 26.3) < 0.01);
    },
  },
  {
    name: 'half the cards of one grid differing costs more than one odd card: I=3 of T=6 (a group count would say 1 of 1)',
    html: `<div class="grid">${card('A')}${card('B', '<img src="x.png" alt="">')}${card('C')}${card('D', '<img src="y.png" alt="">')}${card('E')}${card('F', '<img src="z.png" alt="">')}</div>`,
    score: penalty(3, 6), // 48.5…
    details: (d) => assert.deepEqual(groups(d)[0]!.inconsistentMembers, [2, 4, 6]),
  },
  {
    name: 'a page of paragraphs and class-less sections has no repeated components: unscorable',
    html: '<section><h2>A</h2><p>x</p></section><section><h2>B</h2><ul><li>1</li></ul></section><p>Text <b>bold</b> <i>it</i></p>',
    unscorable: 'no repeated components',
  },
  {
    name: 'a grid that JavaScript fills at run time is not in the static DOM: unscorable',
    html: '<div id="grid"></div><script>for (const n of [1,2,3]) grid.innerHTML += `<div class="card"><h3>${n}</h3><p>x</p></div>`;</script>',
    unscorable: /static DOM/,
  },
  {
    name: 'lists of plain one-link items are not components (fewer than 2 children each)',
    html: '<nav><ul><li><a href="#a">A</a></li><li><a href="#b">B</a></li><li><a href="#c">C</a></li></ul></nav>',
    unscorable: 'no repeated components',
  },
]);

describe('component-consistency helpers', () => {
  it('signature collapses runs of equal siblings and ignores inline text formatting', () => {
    const { document } = new JSDOM(
      '<div id="a"><h3>T</h3><p>Some <b>bold</b> text</p><span class="tag">1</span><span class="tag">2</span><span class="tag">3</span></div>',
    ).window;
    assert.equal(signature(document.getElementById('a')!), 'div(h3,p,span+)');
  });
  it('variant classes', () => {
    assert.equal(isVariantClass('badge-success', ['badge', 'badge-success']), true);
    assert.equal(isVariantClass('card--featured', []), true);
    assert.equal(isVariantClass('fa-star', []), true);
    assert.equal(isVariantClass('fa-solid', []), false);
    assert.equal(isVariantClass('text-blue-600', []), true);
    assert.equal(isVariantClass('text-xl', []), false);
    assert.equal(isVariantClass('card-title', ['card-title']), false);
  });
});
