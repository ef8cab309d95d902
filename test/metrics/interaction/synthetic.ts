/** Synthetic and recorded interaction-probe evidence for the interaction metric tests (no browser). */
import { readFileSync } from 'node:fs';
import type { InteractionAction, InteractionControl, InteractionEffect, InteractionEvidence, NavigationResult } from '../../../core/browser-evidence.js';
import { gathered, type Gathered } from '../../../core/evidence.js';
import { fixture } from '../../helpers.js';
import { INTERACTION_DEFAULTS } from '../../../gather/interaction/probe/limits.js';

/** The probe's own defaults, as a real run records them. */
const SETTINGS: InteractionEvidence['settings'] = { ...INTERACTION_DEFAULTS, restore: 'reload' };

export function interactionEvidence(over: Partial<InteractionEvidence> = {}): Gathered<InteractionEvidence> {
  return gathered({
    settings: SETTINGS,
    firstView: {
      elements: 12,
      textChars: 120,
      visuals: 0,
      visualsByKind: { svg: 0, img: 0, canvas: 0, video: 0 },
      blankCanvases: 0,
      interactive: 3,
      firstPaintMs: 80,
      errorsBeforeRender: [],
      loaded: true,
    },
    controls: [],
    actions: [],
    navigation: { views: [], links: [], untried: [] },
    loadErrors: [],
    filled: [],
    timings: {},
    faults: [],
    ...over,
  });
}

export function control(index: number, over: Partial<InteractionControl> = {}): InteractionControl {
  return {
    index,
    kind: 'button',
    selector: `#c${index}`,
    tag: 'button',
    text: `Control ${index}`,
    box: { x: 10, y: 10 + 40 * index, width: 80, height: 30 },
    acted: true,
    ...over,
  };
}

export function action(controlIndex: number, effects: Array<InteractionEffect['kind']> = [], over: Partial<InteractionAction> = {}): InteractionAction {
  return { control: controlIndex, action: 'click', outcome: 'done', effects: effects.map((kind) => ({ kind, detail: kind })), errors: [], ms: 100, ...over };
}

export function link(controlIndex: number, leads: boolean, reason?: string): NavigationResult {
  return {
    control: controlIndex,
    tries: [{ from: '/index.html|a|3', to: leads ? '/index.html|b|4' : '/index.html|a|3' }],
    leads,
    ...(reason ? { reason } : {}),
  };
}

/**
 * An interaction log recorded by the probe on one of fixtures/interaction/ (test/metrics/interaction/recorded/,
 * written by `node dist/test/metrics/interaction/record.js`; images left out).
 */
export function recorded(name: string): Gathered<InteractionEvidence> {
  return gathered(JSON.parse(readFileSync(fixture('interaction', 'recorded', `${name}.json`), 'utf8')) as InteractionEvidence);
}
