/**
 * The keyboard control, played as a player plays: each key the page listens for is held on its own (keydown,
 * frames of the page clock run, an auto-repeat keydown, more frames, keyup) and the page is read at the end of
 * that key's window, before the next key goes down. A key whose window changed nothing left the page where a
 * run without any key would be at that moment, so the next key starts from the start state's course as if
 * restored; the first key with an effect makes the control live and ends the action (so opposite keys never
 * undo each other, and a loop that moves the player while a key is held sees it held for frames).
 *
 * Each window is compared with the no-action baseline at the same page-clock time (`Baseline.at`: what changes
 * by itself, an animation or a game loop, is compared with where it would be without the key, never with the
 * start), so a key that only lets the animation continue is inert.
 */
import type { InteractionControl, InteractionEffect } from '../../../core/browser-evidence.js';
import type { Window } from '../window.js';
import { differing, effectsOf } from './effects.js';
import { DEFAULT_KEYS, keyName } from './keys.js';
import { KEY_HOLD_MS, KEY_WINDOW_MS } from './limits.js';
import type { Baseline, Navigated, PostResult } from './page-answers.js';
import type { ProbeRun } from './run.js';

/** The keys the keyboard control plays, in order. */
export const playedKeys = (c: InteractionControl): string[] => c.keys ?? DEFAULT_KEYS;

/** Virtual ms after PREP at which each of `n` keys is read (the baseline snapshots the same moments). */
export const keyCheckpoints = (n: number): number[] => Array.from({ length: n }, (_, k) => (k + 1) * KEY_WINDOW_MS);

/** The baseline's hashes at `ms` after PREP for the paths that changed by then without an action. */
export function versusAt(base: Baseline, ms: number): Record<string, string> {
  const at = base.at?.[ms];
  if (!at) return {};
  const out: Record<string, string> = {};
  for (const p of differing(base.before, at)) out[p] = at[p] ?? '-';
  return out;
}

export interface Played {
  action: string;
  effects: InteractionEffect[];
  post: PostResult | null;
  navigated: Navigated | null;
  /** The key whose window had an effect. */
  key?: string;
}

/** Hold `key` for KEY_HOLD_MS of the page clock, then let its window run out. */
async function hold(run: ProbeRun, key: string): Promise<void> {
  await run.d.keyDown(key);
  await run.advance(KEY_HOLD_MS / 2);
  await run.d.keyDown(key);
  await run.advance(KEY_HOLD_MS / 2);
  await run.d.keyUp(key);
  await run.advance(KEY_WINDOW_MS - KEY_HOLD_MS);
}

/** Play each key in window `w` (PREP already passed); stops at the first key with an effect. */
export async function playKeys(run: ProbeRun, c: InteractionControl, base: Baseline, w: Window): Promise<Played> {
  const keys = playedKeys(c);
  const checkpoints = keyCheckpoints(keys.length);
  await run.call('blur', []);
  const tried: string[] = [];
  for (const [i, key] of keys.entries()) {
    tried.push(keyName(key));
    await hold(run, key);
    await run.quiet();
    const navigated = w.documents.length ? await run.afterNavigation(w) : null;
    const post = navigated ? null : await run.post({ exclude: null, acted: null, ignore: run.unstable, versus: versusAt(base, checkpoints[i]!) });
    const effects = effectsOf(w, post, navigated, base);
    if (effects.length || navigated || i === keys.length - 1) {
      const action = `hold each key ${KEY_HOLD_MS} ms: ${tried.join(' ')}${effects.length ? ` (${keyName(key)} had an effect)` : ''}`;
      return { action, effects, post, navigated, ...(effects.length ? { key } : {}) };
    }
  }
  return { action: 'no keys', effects: [], post: null, navigated: null };
}
