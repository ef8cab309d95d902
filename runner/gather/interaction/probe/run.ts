/**
 * One run of the probe on one page: the state its phases share (the evidence being written, the driver, the
 * budget, the controls and baselines found) and the steps every phase uses (calls bounded by the budget, the
 * settle, the restore of the start state, reading a document reached by navigation).
 */
import type { BrowserContext } from 'puppeteer-core';
import type { Artifact } from '../../../../core/artifact/model.js';
import type { InteractionControl, InteractionEvidence, InteractionSettings, InteractionView } from '../../../../core/browser-evidence.js';
import { withTimeout } from '../../time.js';
import { ProbeDriver, type Window } from '../driver.js';
import { EVAL_MS, FINISH_RESERVE_MS, INTERACTION_DEFAULTS, NETWORK_QUIET_CAP_MS, PROBE_CONFIG, RELOAD_TIMEOUT_MS, RESTORE } from './limits.js';
import type { Baseline, Navigated } from './page-answers.js';
import { sampleFile } from './samples.js';
import { gate } from '../../step-gate.js';

export interface ProbeOptions {
  /** performance.now() by which the probe must be over. */
  deadline: number;
  /** performance.now() when the probe's work began (its browser context created): the budget counts from here. */
  started?: number;
  /** At most this long for the first load's load event (default FIRST_LOAD_TIMEOUT_MS). */
  firstLoadMs?: number;
  settings?: Partial<Omit<InteractionSettings, 'restore'>>;
}

/** The probe's budget is used up: the phase in progress stops and the run finishes. */
export class OutOfBudget extends Error {}

export class ProbeRun {
  readonly t0 = performance.now();
  readonly settings: InteractionSettings;
  /** performance.now() by which the steps must be over (the finish has FINISH_RESERVE_MS after it). */
  readonly deadline: number;
  readonly timings: Record<string, number> = {};
  readonly faults: string[] = [];
  readonly unavailable: Record<string, string> = {};
  readonly ev: InteractionEvidence;
  d!: ProbeDriver;
  /** An action was cut by the budget while the page may still be running its handler. */
  busy = false;
  /** Reloads then wait less for the load event. */
  firstLoadTimedOut = false;
  controls: InteractionControl[] = [];
  /** The controls acted on (at most `maxControls`). */
  chosen: InteractionControl[] = [];
  /** The controls' selectors in the entry document (null for the keyboard), tagged after each restore. */
  selectors: Array<string | null> = [];
  /** The page has a text field (then the baselines are run on a filled form). */
  hasTextField = false;
  plainBase!: Baseline;
  /** The baseline actions are compared with (filled when the page has text fields). */
  ref!: Baseline;
  /** Paths that differ between two identical runs: never an effect. */
  unstable: string[] = [];
  /** Paths left out of every view (they change by themselves or are unstable). */
  ignoreInViews: string[] = [];
  /** The view after each control's action (navigation reuses it). */
  readonly viewAfter = new Map<number, InteractionView>();
  /** Field index → the controls whose action made the page read its value. */
  readonly readsOf = new Map<number, Set<number>>();

  constructor(
    readonly context: BrowserContext,
    readonly artifact: Artifact,
    readonly origin: string,
    readonly entryUrl: string,
    readonly opts: ProbeOptions,
  ) {
    this.settings = { ...INTERACTION_DEFAULTS, ...opts.settings, restore: RESTORE };
    const hardDeadline = Math.min(opts.deadline, (opts.started ?? this.t0) + this.settings.budgetMs);
    this.deadline = hardDeadline - FINISH_RESERVE_MS;
    this.ev = { settings: this.settings, controls: [], actions: [], navigation: { views: [], links: [], untried: [] }, loadErrors: [], filled: [], timings: this.timings, faults: this.faults, unavailable: this.unavailable };
  }

  /** A new page for the probe (the first, or after a hung one). */
  async openPage(): Promise<void> {
    this.d = new ProbeDriver(this.context, this.origin, PROBE_CONFIG, sampleFile);
    await this.d.open();
  }

  left(): number {
    return this.deadline - performance.now();
  }

  bound(ms: number): number {
    return Math.max(1, Math.min(ms, this.left()));
  }

  /** Add the real milliseconds since `since` to the timing `name`. */
  mark(name: string, since: number): void {
    this.timings[name] = (this.timings[name] ?? 0) + Math.round(performance.now() - since);
  }

  /** Call the in-page probe within the budget; OutOfBudget when none is left. */
  call<T>(fn: string, args: unknown[], ms = EVAL_MS): Promise<T> {
    if (this.left() <= 0) throw new OutOfBudget('the probe\'s time budget is used up');
    return this.d.call<T>(fn, args, this.bound(ms));
  }

  quiet(since?: number): Promise<boolean> {
    return this.d.networkQuiet(Math.min(NETWORK_QUIET_CAP_MS, this.left()), since);
  }

  /** SETTLE virtual ms of the page clock, with the network quiet before and after. */
  async settle(): Promise<void> {
    await this.quiet();
    await this.call('advance', [this.settings.settleMs]);
    await this.quiet();
  }

  /** Restore the start state: storage cleared, the entry page loaded again and settled, controls tagged. */
  async restore(url = this.entryUrl, tagSelectors: Array<string | null> = this.selectors): Promise<{ missing: number[]; status?: number }> {
    await gate.step('probe restore');
    const t = performance.now();
    const d = this.d;
    await d.takeCoverage(this.bound(EVAL_MS)).catch(() => undefined);
    // localStorage and sessionStorage are cleared by the page script; the rest through the browser, when used.
    const deep = await d.call<boolean>('clearSession', [], this.bound(1000)).catch(() => true);
    if (deep) await withTimeout(d.cdp.send('Storage.clearDataForOrigin', { origin: this.origin, storageTypes: 'cookies,local_storage,indexeddb,websql,cache_storage,service_workers,file_systems' }), this.bound(EVAL_MS), 'clear storage').catch(() => undefined);
    const nav = await d.navigate(url, this.bound(this.firstLoadTimedOut ? 2000 : RELOAD_TIMEOUT_MS));
    if (nav.error) throw new Error(`reload failed: ${nav.error}`);
    await this.settle();
    const missing = await this.call<number[]>('tag', [tagSelectors]);
    this.mark('restore', t);
    return nav.status !== undefined ? { missing, status: nav.status } : { missing };
  }

  /** Wait (a bounded number of polls) until the document reached by navigation has loaded. */
  private async loaded(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const ready = await this.d.eval<string>('document.readyState', this.bound(1000), 'ready state').catch(() => 'loading');
      if (ready === 'complete') break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** After a navigation during an action: wait for the new document, settle it, and read its view. */
  async afterNavigation(w: Window): Promise<Navigated> {
    const last = w.documents[w.documents.length - 1]!;
    const status = this.d.statusOfLoader(last.loaderId);
    const out: Navigated = { url: last.url, ...(status !== undefined ? { status } : {}) };
    try {
      await withTimeout(this.loaded(), this.bound(RELOAD_TIMEOUT_MS), 'navigation load');
      const hasProbe = await this.d.eval<boolean>('!!window.__wgProbe', this.bound(1000), 'probe present');
      if (hasProbe) {
        await this.settle();
        out.view = await this.call<InteractionView>('view', [status]);
      }
    } catch {
      /* a document we cannot read (an error page, a download): its status says what it was */
    }
    return out;
  }

  /** The paths of `base` that change by themselves, with the hash they have at the end of its OBSERVE. */
  versus(base: Baseline): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of base.spontaneous) out[p] = base.after[p] ?? '-';
    return out;
  }
}
