/**
 * CSS animations and transitions, Web Animations and SVG (SMIL) animations on the page clock. The probe stops the
 * document timeline (CDP `Animation.setPlaybackRate(0)`, driver.ts), so nothing that runs on it moves by itself;
 * each move of the page clock then moves every running animation by the same time (and a paused one not at all,
 * as the page asked), and every SVG animation container that the page has not paused. So a flower that blooms
 * with CSS keyframes, a logo that grows with SMIL and a canvas drawn from animation frames are at the same moment
 * of their start-up after the settle, on every run and on every machine, and an animation the page starts on a
 * click has run its course by the end of the observation, as a person watching it would see. An animation that
 * reached its end in a move makes the move wait one real frame: its end events (`animationend`,
 * `transitionend`, the `finished` promise) are dispatched then, before anything reads the page.
 *
 * What stays on real time: video and audio, and what the page computes in workers or receives from the network.
 */
import {
  animCurrentTime,
  animEffect,
  animPlaybackRate,
  animPlayState,
  docGetAnimations,
  docQuerySelectorAll,
  effectComputedTiming,
  elQuerySelector,
  nodeListItem,
  nodeListLength,
  NumberIsFinite,
  PromiseCtor,
  realRequestAnimationFrame,
  setAnimCurrentTime,
  settled,
  svgAnimationsPaused,
  svgGetCurrentTime,
  svgSetCurrentTime,
} from './primordials.js';

const SMIL = 'animate, animateTransform, animateMotion, set';

/** Move the running animations `ms` ahead; true when one of them reached its end (its events are due). */
function moveAnimations(ms: number): boolean {
  let ended = false;
  let list: Animation[];
  try {
    list = docGetAnimations(document) as Animation[];
  } catch {
    return false;
  }
  const n = list.length;
  for (let i = 0; i < n; i++) {
    const a = list[i]!;
    try {
      if (animPlayState(a) !== 'running') continue;
      const t = animCurrentTime(a) as number | null;
      if (typeof t !== 'number' || !NumberIsFinite(t)) continue;
      const rate = animPlaybackRate(a) as number;
      const next = t + ms * (NumberIsFinite(rate) ? rate : 1);
      setAnimCurrentTime(a, next);
      const effect = animEffect(a);
      const end = effect ? (effectComputedTiming(effect) as ComputedEffectTiming).endTime : undefined;
      if (typeof end === 'number' && NumberIsFinite(end) && t < end && next >= end) ended = true;
    } catch {
      /* an animation we cannot move stays where it is */
    }
  }
  return ended;
}

/** Move every SVG animation container (outermost `svg` with SMIL elements) the page has not paused. */
function moveSmil(ms: number): void {
  const svgs = docQuerySelectorAll(document, 'svg:not(svg svg)');
  const n = nodeListLength(svgs) as number;
  for (let i = 0; i < n; i++) {
    const svg = nodeListItem(svgs, i) as SVGSVGElement;
    try {
      if (!elQuerySelector(svg, SMIL) || svgAnimationsPaused(svg)) continue;
      svgSetCurrentTime(svg, (svgGetCurrentTime(svg) as number) + ms / 1000);
    } catch {
      /* leave it */
    }
  }
}

/** Move the page's animations with the clock; resolves once the end events of those that ended are dispatched. */
export function moveAnimationsBy(ms: number): Promise<void> | undefined {
  if (!(ms > 0)) return undefined;
  const ended = moveAnimations(ms);
  moveSmil(ms);
  if (!ended) return undefined;
  const frame = new PromiseCtor<void>((r) => {
    realRequestAnimationFrame(() => r());
  });
  return settled(frame);
}
