/**
 * Shared arithmetic of the runtime performance metrics (frame-smoothness, responsiveness, memory-stability): a
 * quantile, a logarithmic scale between a "good" and a "bad" value, and the refresh budget.
 */

/** One display refresh at 60 Hz (ms): a frame whose main-thread work exceeds it misses the next refresh. */
export const FRAME_BUDGET_MS = 1000 / 60;

/** The q-quantile (0–1) of `xs` by the nearest-rank method; NaN for none. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/**
 * 100 at or below `good`, 0 at or above `bad`, logarithmic in between (each doubling of the value costs the same
 * points): the scale of the runtime metrics, whose values span orders of magnitude.
 */
export function logScale(value: number, good: number, bad: number): number {
  if (value <= good) return 100;
  if (value >= bad) return 0;
  return 100 * (1 - Math.log(value / good) / Math.log(bad / good));
}

/** `x` rounded to one decimal. */
export const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * The frame-time strip as SVG markup (DevTools' frames track, read the other way up): one bar per frame, its
 * height the frame's main-thread CPU time, red when it exceeds a 60 Hz refresh, with the refresh line drawn.
 * Numbers only: nothing of the page is written into the markup.
 */
export function frameStripSvg(frames: ReadonlyArray<{ cpuMs: number }>, width: number, height: number): string {
  const top = 24;
  const maxMs = Math.max(50, ...frames.map((f) => (Number.isFinite(f.cpuMs) ? f.cpuMs : 0)));
  const y = (ms: number) => top + (height - top - 4) * (1 - Math.min(ms, maxMs) / maxMs);
  const w = frames.length ? (width - 8) / frames.length : 0;
  const bars = frames
    .map((f, i) => {
      const ms = Number.isFinite(f.cpuMs) ? Math.max(0, f.cpuMs) : 0;
      const h = Math.max(1, height - 4 - y(ms));
      return `<rect x="${(4 + i * w).toFixed(1)}" y="${(height - 4 - h).toFixed(1)}" width="${Math.max(1, w - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="${ms > FRAME_BUDGET_MS ? '#d33' : '#3a8'}"/>`;
    })
    .join('');
  const line = y(FRAME_BUDGET_MS).toFixed(1);
  return (
    bars +
    `<line x1="0" x2="${width}" y1="${line}" y2="${line}" stroke="#333" stroke-dasharray="4 3"/>` +
    `<text x="6" y="${(Number(line) - 4).toFixed(1)}" font-family="DejaVu Sans, sans-serif" font-size="11" fill="#333">16.7 ms (60 Hz)</text>` +
    `<text x="6" y="15" font-family="DejaVu Sans, sans-serif" font-size="12" fill="#000">main-thread CPU per frame, ${frames.length} frames; top = ${Math.round(maxMs)} ms</text>`
  );
}
