/** The main-world agent's settings, set once at install from what the probe sends (see ../../page-script.ts). */
export interface AgentConfig {
  /** Epoch milliseconds of virtual time 0. */
  epochMs: number;
  frameMs: number;
  /** At most this many callbacks per `advance` (a timer storm stops there). */
  maxFires: number;
  /** At most this many real milliseconds per `advance`. */
  maxAdvanceRealMs: number;
  /** At most this many real milliseconds per `advance` waiting for the page's requests (network.ts), not counted above. */
  maxNetworkWaitMs: number;
}

export const agentConfig = {} as AgentConfig;

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The page's window, untyped: the agent replaces and wraps its properties. */
export const w = window as any;
/* eslint-enable @typescript-eslint/no-explicit-any */
