/** The in-page probe's settings, set once by `probeInit` before anything is installed. */
export interface ProbeConfig {
  /** Epoch milliseconds of virtual time 0. */
  epochMs: number;
  seed: number;
  frameMs: number;
  /** At most this many callbacks per `advance` (a timer storm stops there). */
  maxFires: number;
  /** At most this many real milliseconds per `advance`. */
  maxAdvanceRealMs: number;
  /** Elements fingerprinted per snapshot (document order; the rest are folded into one record). */
  maxElements: number;
}

export const cfg = {} as ProbeConfig;

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The page's window, untyped: the probe replaces and wraps its properties. */
export const w = window as any;
/* eslint-enable @typescript-eslint/no-explicit-any */
