/**
 * Operators for the runtime performance metrics (issue 44): the defects a player feels while the page runs.
 * Each inserts the running feature with its defect (an animation, a key handler, a timer), so it applies to any
 * page, also one that animates nothing and listens to no key (`inserts`: judged on the inserted feature alone
 * there, mutate/run.ts).
 *
 * The seeded work is counted in loop iterations, never in `performance.now()` or `Date` time: the probe runs a
 * page on a paused page clock, where a loop waiting for the clock to move would never end. The work is bounded
 * (a number of frames, of key presses, of timer ticks), so that a mutant costs the scorer seconds, not minutes.
 * No comment marks the insert: comment-rate would move.
 */
import { applied, type MutationOperator } from '../operator.js';

/** A loop of `n` iterations that the JIT cannot drop (its result is kept on window). */
const spin = (n: string) => `for (var i = 0, x = 0; i < ${n}; i++) x = (x + i) % 1009; window.__wgMutantSink = x;`;

export const jankyAnimation: MutationOperator = {
  id: 'janky-animation',
  targets: ['frame-smoothness'],
  collateral: ['performance', 'dead-code'],
  inserts: true,
  // 2·10⁷ iterations: about 80 ms of CPU a frame on the 2-core VM of 2026-11-29 (five refreshes; a machine three times
  // faster still misses one), few enough that a page given a quarter of a core still draws three frames in the
  // runtime watch's one-second window (at 3·10⁷ CI's page drew 5 on under half a core).
  description: 'an animation-frame loop inserted that spends 2·10⁷ loop iterations (tens of ms) of main-thread work in each of its first 600 frames',
  apply(_page, edit) {
    edit.insertAtBodyEnd(
      `<script>(function () { var n = 0; function frame() { ${spin('2e7')} if (++n < 600) requestAnimationFrame(frame); } requestAnimationFrame(frame); })();</script>`,
    );
    return applied('inserted an animation-frame loop whose every frame costs several refreshes of main-thread work');
  },
};

export const slowKeyHandler: MutationOperator = {
  id: 'slow-key-handler',
  targets: ['responsiveness'],
  collateral: ['dead-code', 'performance'],
  inserts: true,
  description: 'a keydown listener inserted on the document that spends 10⁸ loop iterations (about 100 ms or more) on each of its first 5 key presses',
  apply(_page, edit) {
    edit.insertAtBodyEnd(
      `<script>(function () { var n = 0; document.addEventListener('keydown', function () { if (n++ < 5) { ${spin('1e8')} } }); })();</script>`,
    );
    return applied('inserted a keydown listener that blocks the main thread for about 100 ms or more');
  },
};

export const leakingTimer: MutationOperator = {
  id: 'leaking-timer',
  targets: ['memory-stability'],
  collateral: ['dead-code', 'performance'],
  inserts: true,
  description: 'a 100 ms timer inserted that keeps a new 400 KB array on each tick (4 MB a second, 240 MB a minute) for its first 200 ticks',
  apply(_page, edit) {
    edit.insertAtBodyEnd(
      `<script>(function () { var kept = (window.__wgMutantKept = []), n = 0; var t = setInterval(function () { kept.push(new Array(50000).fill(Math.random())); if (++n >= 200) clearInterval(t); }, 100); })();</script>`,
    );
    return applied('inserted a timer that keeps 4 MB more every second');
  },
};

export const RUNTIME_OPERATORS: readonly MutationOperator[] = [jankyAnimation, slowKeyHandler, leakingTimer];
