/**
 * Phase 4, in-app navigation, breadth first: every navigation element (links to other files, fragments, hash
 * routes, tabs, nav buttons, `#` links in navigation) is tried from the start view (reusing the control's
 * action when it was acted on), then from each new view reached (up to `navDepth` steps, `maxViews` views and
 * `maxNavActions` tries), until each led somewhere or every reached view was tried.
 */
import type { InteractionControl, InteractionView, NavigationResult } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { TimeoutError, withTimeout } from '../../time.js';
import { act } from './act.js';
import { observe } from './actions.js';
import { EVAL_MS } from './limits.js';
import { OutOfBudget, type ProbeRun } from './run.js';

/** How to reach a view: the document loaded (default the entry), then the controls acted on in turn. */
interface ViewPath {
  url?: string;
  steps: number[];
}

type QueuedView = InteractionView & { depth: number; route: ViewPath };

class NavCap extends Error {}
class NavBudget extends Error {}

/** Why a try did not lead anywhere, or undefined when it did. */
function judgeTry(
  c: InteractionControl,
  from: InteractionView,
  to: InteractionView | null,
  status: number | undefined,
  navigated: boolean,
  note?: string,
): { leads: boolean; reason?: string } {
  if (navigated || (to && to.path !== from.path)) {
    if (status !== undefined && status >= 400)
      return { leads: false, reason: `missing local file ${(c.href ?? to?.path ?? '').replace(/^https?:\/\/[^/]+/, '')} (HTTP ${status})` };
    return { leads: true };
  }
  if (!to) return { leads: false, reason: note ?? 'nothing could be read after it' };
  const contentChanged = to.textHash !== from.textHash || to.elements !== from.elements;
  if (c.nav === 'anchor') {
    const leads = to.anchorExists || contentChanged;
    return leads ? { leads } : { leads, reason: `missing anchor ${c.href?.replace(/^[^#]*/, '') ?? to.hash}` };
  }
  if (c.nav === 'hash-route') {
    const leads = contentChanged || to.anchorExists;
    return leads ? { leads } : { leads, reason: `hash route ${c.href?.replace(/^[^#]*/, '') ?? ''} changes nothing` };
  }
  return contentChanged ? { leads: true } : { leads: false, reason: 'changes nothing' };
}

/** The search's state: the views found, the queue of views to search from, each control's tries. */
class NavSearch {
  private readonly entryPath: string;
  private readonly views = new Map<string, QueuedView>();
  private readonly queue: QueuedView[] = [];
  private readonly results = new Map<number, NavigationResult>();
  private readonly byHref = new Map<string, { to: InteractionView | null; status?: number }>();
  private tries = 0;

  constructor(
    private readonly run: ProbeRun,
    private readonly startView: InteractionView,
  ) {
    this.entryPath = new URL(run.entryUrl).pathname;
    this.views.set(startView.key, { ...startView, depth: 0, route: { steps: [] } });
  }

  private get controls(): InteractionControl[] {
    return this.run.controls;
  }

  navControls(): InteractionControl[] {
    return this.controls.filter((c) => c.nav);
  }

  private docOf(c: InteractionControl): string {
    return c.page ?? this.entryPath;
  }

  private selectorsOf(doc: string): Array<string | null> {
    return this.controls.map((c) => (c.kind === 'keyboard' || this.docOf(c) !== doc ? null : c.selector));
  }

  private result(i: number): NavigationResult {
    let r = this.results.get(i);
    if (!r) this.results.set(i, (r = { control: i, tries: [], leads: false }));
    return r;
  }

  /** Judge one try of control `c` from view `from`, reaching `to` (null: no readable document). */
  judge(c: InteractionControl, from: InteractionView, to: InteractionView | null, status: number | undefined, navigated: boolean, note?: string): void {
    const r = this.result(c.index);
    r.tries.push({ from: from.key, to: to?.key ?? null, ...(status !== undefined ? { status } : {}), ...(note ? { note } : {}) });
    if (r.leads) return;
    const { leads, reason } = judgeTry(c, from, to, status, navigated, note);
    if (leads) {
      r.leads = true;
      delete r.reason;
      if (to && !this.views.has(to.key)) this.enqueue(c, from, to);
    } else if (reason) r.reason = reason;
  }

  /** A new view reached from `from` by `c`: searched from later. */
  private enqueue(c: InteractionControl, from: InteractionView, to: InteractionView): void {
    const fromV = this.views.get(from.key) ?? this.views.get(this.startView.key)!;
    const docUrl = (c.href ?? '').replace(/#.*$/, '');
    const route: ViewPath =
      to.path !== from.path
        ? { url: docUrl || new URL(to.path, this.run.entryUrl).href, steps: [] }
        : { ...(fromV.route.url ? { url: fromV.route.url } : {}), steps: [...fromV.route.steps, c.index] };
    const v: QueuedView = { ...to, depth: fromV.depth + 1, route };
    this.views.set(to.key, v);
    this.queue.push(v);
  }

  /** Reach view `v` by its route (controls tagged); false when a step's control was missing. */
  private async reach(v: QueuedView): Promise<boolean> {
    const run = this.run;
    const doc = v.route.url ? new URL(v.route.url).pathname : this.entryPath;
    await run.restore(v.route.url, this.selectorsOf(doc));
    for (const s of v.route.steps) {
      const p = await run.prepare({ fill: false, target: s, exclude: null, prepMs: 0 });
      if (p.missing) return false;
      await act(run, this.controls[s]!, p.point ?? null);
      await run.d.mouseOut().catch(() => undefined);
      await run.advance(run.settings.observeMs);
    }
    if (v.route.steps.length) await run.tag(this.selectorsOf(doc));
    return true;
  }

  /** Count one try against the caps. */
  private budget(): void {
    if (this.tries >= this.run.settings.maxNavActions) throw new NavCap();
    if (this.run.left() < this.run.settings.actionTimeoutMs) throw new NavBudget();
    this.tries++;
  }

  private limit(): number {
    return Math.max(1, Math.min(this.run.settings.actionTimeoutMs * 2, this.run.left()));
  }

  /** The navigation elements shown in view `v` (reached anew), new ones added to the controls. */
  private async discover(v: QueuedView): Promise<number[]> {
    this.budget();
    const run = async () => {
      if (!(await this.reach(v))) return [];
      await this.run.d.listeners(this.run.bound(EVAL_MS)).catch(() => undefined);
      const raw = await this.run.enumerate();
      const doc = v.path;
      const out: number[] = [];
      for (const r of raw) {
        if (!r.nav) continue;
        let c = this.controls.find((x) => this.docOf(x) === doc && x.selector === r.selector);
        if (!c) {
          c = { index: this.controls.length, ...r, acted: false, ...(doc !== this.entryPath ? { page: doc } : {}) };
          this.controls.push(c);
        }
        out.push(c.index);
      }
      return out;
    };
    return withTimeout(run(), this.limit(), 'navigation discovery');
  }

  /** A link to a file another link already loaded: judged by that try. */
  private known(c: InteractionControl) {
    return c.kind === 'page-link' && !c.listeners?.length && c.href ? this.byHref.get(c.href.replace(/#.*$/, '')) : undefined;
  }

  /** Act on `c` after reaching view `v`. */
  async tryFrom(v: QueuedView, c: InteractionControl): Promise<void> {
    const known = this.known(c);
    if (known) {
      this.judge(c, v, known.to, known.status, true, 'same file as another link');
      return;
    }
    this.budget();
    await withTimeout(this.actFrom(v, c), this.limit(), 'navigation try');
  }

  private async actFrom(v: QueuedView, c: InteractionControl): Promise<void> {
    const run = this.run;
    if (!(await this.reach(v))) return;
    if (c.kind === 'page-link') await run.call('stripTarget', [c.index]).catch(() => undefined);
    const p = await run.prepare({ fill: false, target: c.index, exclude: null, prepMs: run.settings.prepMs });
    if (p.missing) {
      this.judge(c, v, null, undefined, false, 'not found in this view');
      return;
    }
    const from = await run.call<InteractionView>('view', [null, run.ignoreInViews]);
    const w = run.d.startWindow();
    const since = performance.now();
    await act(run, c, p.point ?? null);
    await run.d.mouseOut().catch(() => undefined);
    await observe(run, w, since);
    if (w.documents.length) {
      const n = await run.afterNavigation(w);
      if (c.kind === 'page-link' && c.href)
        this.byHref.set(c.href.replace(/#.*$/, ''), { to: n.view ?? null, ...(n.status !== undefined ? { status: n.status } : {}) });
      this.judge(c, from, n.view ?? null, n.status, true, n.view ? undefined : `loaded ${n.url.replace(/^https?:\/\/[^/]+/, '')}, not a readable page`);
    } else {
      const to = await run.call<InteractionView>('view', [null, run.ignoreInViews]);
      const blocked = w.requests.some((r) => r.navigation);
      this.judge(c, from, to, undefined, false, blocked ? 'a navigation away from the artifact (refused by the sandbox)' : undefined);
    }
  }

  /**
   * Depth 1: from the start view, reusing each control's action when it was acted on (made on a filled form:
   * the fields do not change which view a navigation element leads to).
   */
  async fromStart(): Promise<void> {
    const start = this.views.get(this.startView.key)!;
    for (const c of this.navControls().filter((x) => !x.page)) {
      const a = this.run.ev.actions.find((x) => x.control === c.index && x.outcome === 'done');
      const to = this.run.viewAfter.get(c.index);
      if (a && to) {
        const navEffect = a.effects.find((e) => e.kind === 'navigation');
        const status = navEffect ? /HTTP (\d+)/.exec(navEffect.detail) : null;
        this.judge(c, this.startView, to, status ? Number(status[1]) : to.status, !!navEffect || to.path !== this.startView.path);
      } else await this.tryFrom(start, c);
    }
  }

  /** Deeper: each new view's navigation elements that have not led anywhere yet. */
  async deeper(): Promise<void> {
    const { settings, ev } = this.run;
    while (this.queue.length) {
      const v = this.queue.shift()!;
      if (v.depth >= settings.navDepth) continue;
      if (this.views.size > settings.maxViews) {
        ev.navigation.truncated = `more than ${settings.maxViews} views: the search stopped there`;
        break;
      }
      const shown = await this.discover(v);
      for (const i of shown) {
        if (this.results.get(i)?.leads) continue;
        await this.tryFrom(v, this.controls[i]!);
      }
    }
  }

  /** The search's log: the views, each tried link's tries, the links never tried. */
  write(): void {
    const nav = this.run.ev.navigation;
    nav.views = [...this.views.values()].map(({ route: _r, ...v }) => v);
    nav.links = this.navControls()
      .filter((c) => this.results.has(c.index))
      .map((c) => this.results.get(c.index)!);
    nav.untried = this.navControls()
      .filter((c) => !this.results.has(c.index))
      .map((c) => c.index);
  }
}

/** Why the search stopped early, for the caps and timeouts it runs into. */
function truncation(err: unknown, max: number): string {
  if (err instanceof NavCap) return `at most ${max} navigation tries`;
  if (err instanceof NavBudget) return "the probe's time budget ran out";
  if (err instanceof TimeoutError) return `a navigation try timed out (${errorMessage(err)})`;
  throw err;
}

async function search(run: ProbeRun): Promise<void> {
  const s = new NavSearch(run, run.ref.view);
  if (!s.navControls().length) return;
  try {
    await s.fromStart();
    await s.deeper();
  } catch (err) {
    run.ev.navigation.truncated = truncation(err, run.settings.maxNavActions);
  } finally {
    s.write();
  }
}

/** The navigation search, timed; a failure of the search is a fault of the probe, not the page's. */
export async function navigation(run: ProbeRun): Promise<void> {
  const tn = performance.now();
  await search(run).catch((err) => {
    if (err instanceof OutOfBudget) run.ev.navigation.truncated = "the probe's time budget ran out";
    else run.faults.push(`navigation check failed: ${errorMessage(err)}`);
  });
  run.mark('navigation', tn);
}
