/**
 * The network contract (SPEC "Behaviour users expect"): what a page under test may reach in each network mode, and
 * the log every request leaves. gather/sandbox/ enforces it; metrics read the log from the browser
 * evidence; the score document and every results row record the mode and the CDN libraries served.
 *
 * Modes (`--network <mode>` on score, batch and norms):
 * - `cdn` (default): the artifact's own files, plus requests to well-known CDNs answered from a local cache
 *   filled from the npm registry (cdn/); everything else is blocked and logged.
 * - `offline`: only the artifact's own files (CDN requests are withheld, and logged as withheld).
 * - `live`: the artifact, plus GET/HEAD requests to an allow-list of hosts (default: the well-known CDN hosts)
 *   fetched from the real internet.
 * - `record:<dir>`: like `live`, and every response let through is written into `<dir>`.
 * - `replay:<dir>`: the artifact, plus exactly the responses recorded in `<dir>`; nothing else. The same page
 *   then scores the same on another day and another machine.
 */

export const NETWORK_MODES = ['cdn', 'offline', 'live', 'record', 'replay'] as const;
export type NetworkModeId = (typeof NETWORK_MODES)[number];
export const DEFAULT_NETWORK_MODE: NetworkModeId = 'cdn';

export interface NetworkSettings {
  mode: NetworkModeId;
  /** `record` and `replay`: the archive directory. */
  dir?: string;
  /** `live` and `record`: hosts let through (default: the well-known CDN hosts). */
  allowHosts?: string[];
  /** `cdn`: the CDN cache directory (default: the user's cache directory, cdn/). */
  cdnCache?: string;
}

/** The mode as one short string for outputs: `cdn`, `offline`, `record:<dir>` ... */
export function describeNetwork(s: NetworkSettings): string {
  return s.dir ? `${s.mode}:${s.dir}` : s.mode;
}

/**
 * Which part of gathering made a request: each runs in a browser context of its own. `fidelity` is the candidate
 * rendered at the fidelity viewports, `reference` the page it should reproduce (its own site and log), `runtime` the
 * page watched while it runs and is used (gather/runtime/).
 */
export type SandboxPhase = 'visit' | 'mobile' | 'lighthouse' | 'interaction' | 'reference' | 'fidelity' | 'runtime';

/**
 * What the sandbox did with a request: served from the artifact, from the CDN cache, from a replay archive,
 * fetched live, or blocked.
 */
export type NetworkDisposition = 'artifact' | 'cdn' | 'replay' | 'live' | 'blocked';

/** One request a page (or the browser for it) made, as the sandbox saw and answered it. */
export interface NetworkEntry {
  phase: SandboxPhase;
  method: string;
  /** Full URL (cut at 2000 characters). */
  url: string;
  /**
   * What the request was for, from Chrome's `Sec-Fetch-Dest` header: `document` (top-level navigation), `iframe`,
   * `script`, `style`, `image`, `font`, `empty` (fetch/XHR), `websocket`, `serviceworker` ...; `tunnel` for a
   * CONNECT to a port the sandbox never opens (the request inside is not seen).
   */
  destination: string;
  disposition: NetworkDisposition;
  /** The status the page got (absent when the connection was refused). */
  status?: number;
  /** Why it was blocked, or why the CDN answered 404 (shown to users). */
  reason?: string;
  /** The CDN package and exact version served (`chart.js@4.4.1`). */
  library?: string;
  /**
   * Withheld by webgrade (offline mode, or a CDN file the cache could not serve): the page's author would have
   * got it, so what breaks because of it is not the page's defect.
   */
  withheld?: boolean;
  /** A top-level navigation away from the artifact, answered with 204 No Content so that the page stays. */
  navigationKept?: boolean;
  /**
   * Requested by the browser on its own (the favicon probe; Chrome's own services, such as "folae"), not by the
   * page: gather/page-requests.ts decides, and such entries are kept apart from the page's log
   * (`BrowserEvidence.browserNetwork`).
   */
  browserMade?: boolean;
  /** Why the entry counts as the browser's (with `browserMade`). */
  browserReason?: string;
  /** The `Sec-Fetch-Site` header as sent (absent when Chrome sent none: a plain-http destination). */
  fetchSite?: string;
  /** An `Origin` or `Referer` header came with the request: something of a page initiated it. */
  referred?: boolean;
  /** Milliseconds the sandbox took to produce the answer (artifact file, CDN cache, archive, live fetch). */
  ms?: number;
}

/** What the score document and every results row record about the network (SPEC "Network modes"). */
export interface NetworkRecord {
  mode: string;
  /** Every CDN library served while gathering, `package@version`, sorted. */
  libraries: string[];
  /** The page's requests blocked (not withheld) and withheld, over every phase. */
  blocked: number;
  withheld: number;
  /** Requests the browser made on its own (refused like any other, counted for no metric). */
  browserOwn?: number;
}

/** The record of the page's requests (`log`, the browser's own left out) and how many the browser made itself. */
export function networkRecord(settings: NetworkSettings, log: readonly NetworkEntry[], browserOwn = 0): NetworkRecord {
  const own = log.filter((e) => !e.browserMade);
  const libraries = [...new Set(own.map((e) => e.library).filter((l): l is string => !!l))].sort();
  return {
    mode: describeNetwork(settings),
    libraries,
    blocked: own.filter((e) => e.disposition === 'blocked' && !e.withheld).length,
    withheld: own.filter((e) => e.withheld).length,
    ...(browserOwn ? { browserOwn } : {}),
  };
}
