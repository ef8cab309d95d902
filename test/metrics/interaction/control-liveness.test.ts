import assert from 'node:assert/strict';
import { it } from 'node:test';
import sharp from 'sharp';
import controlLiveness from '../../../metrics/interaction/control-liveness.js';
import { missing } from '../../../core/evidence.js';
import { testMetric, buildEvidence, evaluateCase } from '../../metric-tester.js';
import { action, control, interactionEvidence, recorded } from './synthetic.js';

testMetric(controlLiveness, [
  { name: 'recorded: every control of the todo app responds: 100', html: '<p>x</p>', evidence: { interaction: recorded('todo') }, score: 100 },
  {
    name: "recorded: the dead form's fields and submit button are inert: 0",
    html: '<p>x</p>',
    evidence: { interaction: recorded('dead-form') },
    score: 0,
    details: (d) => assert.deepEqual((d.inert as Array<{ selector: string }>).map((x) => x.selector).sort(), ['#email', '#name', '#subscribe']),
  },
  {
    name: 'recorded: of three tabs the forgotten one is inert (the selected one responds after another tab)',
    html: '<p>x</p>',
    evidence: { interaction: recorded('tabs') },
    near: [66.67, 0.01],
    details: (d) => {
      assert.deepEqual(
        (d.inert as Array<{ selector: string }>).map((x) => x.selector),
        ['#tab-team'],
      );
      assert.ok(
        (d.liveControls as Array<{ after?: string }>).some((x) => x.after === 'Pro'),
        'the Basic tab responded after Pro',
      );
    },
  },
  {
    name: 'recorded: the arrow keys drive the canvas game',
    html: '<p>x</p>',
    evidence: { interaction: recorded('canvas-game') },
    score: 100,
    details: (d) => assert.equal((d.effectsByKind as Record<string, number>).canvas, 1),
  },
  {
    name: 'recorded: arrow keys that undo each other are live (each key is held and read on its own)',
    html: '<p>x</p>',
    evidence: { interaction: recorded('opposite-keys') },
    score: 100,
    details: (d) => assert.match(JSON.stringify(d.liveControls), /had an effect/),
  },
  {
    name: 'recorded: a game loop that moves the player while a key is held is live',
    html: '<p>x</p>',
    evidence: { interaction: recorded('held-keys') },
    score: 100,
    details: (d) => assert.match(JSON.stringify(d.liveControls), /ArrowRight had an effect/),
  },
  {
    name: 'recorded: keys that move nothing on an animated canvas are inert (the animation only goes on)',
    html: '<p>x</p>',
    evidence: { interaction: recorded('dead-keys') },
    score: 0,
    details: (d) => assert.equal((d.inert as Array<{ text: string }>)[0]!.text, 'key listeners on the page'),
  },
  {
    name: 'recorded: Restart on an animation is live',
    html: '<p>x</p>',
    evidence: { interaction: recorded('restart-animation') },
    score: 100,
    details: (d) => assert.equal((d.effectsByKind as Record<string, number>).canvas, 1),
  },
  {
    name: 'recorded: a click on a canvas that spawns particles is live',
    html: '<p>x</p>',
    evidence: { interaction: recorded('canvas-spawn') },
    score: 100,
    details: (d) => assert.equal((d.effectsByKind as Record<string, number>).canvas, 1),
  },
  {
    name: 'recorded: buttons that only make a sound or copy to the clipboard are live',
    html: '<p>x</p>',
    evidence: { interaction: recorded('sound-copy') },
    score: 100,
    details: (d) => {
      const by = d.effectsByKind as Record<string, number>;
      assert.equal(by.audio, 2);
      assert.equal(by.clipboard, 1);
    },
  },
  {
    name: 'recorded: a link to a missing anchor changes only the address: inert; an existing anchor is live',
    html: '<p>x</p>',
    evidence: { interaction: recorded('site') },
    score: 50,
    details: (d) => assert.equal((d.inert as Array<{ text: string }>)[0]!.text, 'Contact'),
  },
  {
    name: 'live / acted: 3 of 4 live scores 75; the inert one listed with its crop file',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1), control(2), control(3)],
        actions: [action(0, ['dom']), action(1, ['request']), action(2, ['focus', 'scroll']), action(3, [], { crop: Buffer.from('png') })],
      }),
    },
    score: 75,
    details: (d) => assert.deepEqual(d.inert, [{ selector: '#c3', text: 'Control 3', kind: 'button', action: 'click', crop: 'interaction-crop-3.png' }]),
  },
  {
    name: 'a control after which the page hung counts as acted on and not live',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ controls: [control(0), control(1)], actions: [action(0, ['dom']), action(1, [], { outcome: 'hung' })] }) },
    score: 50,
  },
  {
    name: 'controls not found again, timed out or failed are left out and listed',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1), control(2), control(3)],
        actions: [
          action(0, ['dom']),
          action(1, [], { outcome: 'not-found' }),
          action(2, [], { outcome: 'timeout' }),
          action(3, [], { outcome: 'failed', note: 'x' }),
        ],
      }),
    },
    score: 100,
    details: (d) => assert.equal((d.leftOut as unknown[]).length, 3),
  },
  {
    name: 'an inert control whose second chance the budget did not reach is undecided: left out and listed, not inert',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        controls: [control(0), control(1), control(2)],
        actions: [action(0, ['dom']), action(1, [], { undecided: "the probe's time budget ran out before its second chance" }), action(2, [])],
      }),
    },
    score: 50,
    details: (d) => {
      assert.deepEqual(
        (d.inert as Array<{ selector: string }>).map((x) => x.selector),
        ['#c2'],
      );
      assert.deepEqual(
        (d.leftOut as Array<{ selector: string; outcome: string }>).map((x) => [x.selector, x.outcome]),
        [['#c1', 'undecided']],
      );
    },
  },
  { name: 'unscorable without controls', html: '<p>x</p>', evidence: { interaction: interactionEvidence({}) }, unscorable: /no controls/ },
  {
    name: 'links to other pages are not controls here (navigation-reachability follows them)',
    html: '<p>x</p>',
    evidence: { interaction: interactionEvidence({ controls: [control(0, { kind: 'page-link', acted: false, nav: 'page' })] }) },
    unscorable: /no controls/,
  },
  { name: 'unscorable when the probe failed', html: '<p>x</p>', evidence: { interaction: missing('Chrome died') }, unscorable: 'Chrome died' },
]);

it('control-liveness draws the inert controls boxed on the start-state screenshot, and their crops', async () => {
  const png = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#ffffff' } })
    .png()
    .toBuffer();
  const crop = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const c = {
    name: 'pictures',
    html: '<p>x</p>',
    evidence: {
      interaction: interactionEvidence({
        screenshot: { png, width: 200, height: 120, deviceScaleFactor: 1 },
        controls: [control(0, { box: { x: 20, y: 20, width: 60, height: 20 } }), control(1, { box: { x: 20, y: 70, width: 60, height: 20 } })],
        actions: [action(0, ['dom']), action(1, [], { crop })],
      }),
    },
  };
  const outcome = await evaluateCase(controlLiveness, c);
  const pictures = await controlLiveness.illustrate!(buildEvidence(c), outcome);
  assert.deepEqual(
    pictures.map((p) => p.name),
    ['inert', 'crops'],
  );
  const { data, info } = await sharp(pictures[0]!.png).raw().toBuffer({ resolveWithObject: true });
  const px = (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
  const [r, g, b] = px(17, 80); // the red box's left edge around the inert control
  assert.ok(r! > 180 && g! < 80 && b! < 80, `no red box at the inert control: ${px(17, 80)}`);
  const [r2, g2] = px(17, 30); // green around the live one
  assert.ok(g2! > 120 && r2! < 100, `no green box at the live control: ${px(17, 30)}`);
});
