/**
 * navigation-reachability (extended suite, interaction; SPEC "Suites"). Two formulas, by what is known:
 * - **With a reference** that has routes (`--reference`, an HTML artifact whose source links to other pages or
 *   hash routes: metrics/lib/reference-routes.ts): UI2App's navigation reachability (the study counted it by hand),
 *   score = 100 × the reference's routes the page's navigation reached / the reference's routes. The denominator
 *   is what the app should offer, not what the page offers, so a page with no in-app navigation scores 0, as
 *   does one that did not respond. The entry route is left out of both sides (loading reaches it, not
 *   navigating; counting it would give a page with no navigation 1/n instead of UI2App's 0). Routes are matched
 *   by name (reference-routes.ts: `about.html`, `/about/` and `#/about` are all `about`); a view reached without
 *   an address of its own (a tab that only swaps content) cannot be told to be one of the reference's routes and
 *   reaches none. Remaining differences from UI2App: routes are read from the reference's source, not from the
 *   task's list, and are reached within the probe's caps (2 steps, 12 views, 24 tries).
 * - **Without one** (no reference, a picture reference, or a reference with no route but its entry): link
 *   validity, ours, score = 100 × in-app links that lead to a view / in-app links; a page with no in-app
 *   navigation is unscorable (nothing to validate). Its figures are in the details in both cases (`linkValidity`).
 * `details.formula` says which was used.
 *
 * Interpretations (the search is gather/interaction/probe/navigation.ts):
 * - In-app links: links to other files of the artifact, links to fragments of the page (anchors), hash routes
 *   (`#/…`, `#!…`), and, as navigation, tabs (`role=tab`, elements in a `role=tablist`, or with a `data-tab`,
 *   `data-page`, `data-view`, `data-route`, `data-section`, `data-screen` or `data-panel` attribute, or a
 *   tab/nav-link class), buttons and `#` links inside `nav`/`[role=navigation]` (or a header/menu for `#`
 *   links). Links to other sites are not in-app (the sandbox refuses them anyway).
 * - A view is a state told apart by its address (path and fragment) plus a hash of its visible text and the
 *   number of its rendered elements (the study's alias rule: two states with the same address, text and element
 *   count are one view). What changes by itself (a clock, an animation) is left out of the text and count.
 * - Breadth first: each navigation element is tried from the start view (reusing its control-liveness action),
 *   then from every new view reached, for those that have not led anywhere yet (so the tab that is already
 *   selected at the start is tried again from another tab), up to 2 steps from the start, 12 views and 24
 *   tries. New documents and views are searched for their own navigation elements.
 * - Leads to a view: a link to another file that the server answers (HTTP < 400; another document or a file
 *   shown by the browser); a fragment that names an element of the page (the browser scrolls to it) or after
 *   which the view changed; a hash route, tab or nav button after which the view changed (text or element
 *   count), from at least one of the views it was tried in.
 * - Dangling: a missing local file (HTTP 404), a missing anchor, a hash route that changes nothing, a tab or
 *   nav button that changes nothing in any view it was tried in. Elements found but never tried (over the caps
 *   or the budget) are listed and not counted.
 * - Unscorable without in-app navigation (link validity only).
 */
import type { InteractionEvidence } from '../../core/browser-evidence.js';
import { scored, unscorable, type MetricDefinition, type MetricOutcome } from '../../core/metric.js';
import { referenceRoutes, routeName, type ReferenceRoutes } from '../lib/reference-routes.js';
import { describeControl, plural, probeEvidence } from './probe-evidence.js';

/** UI2App's route reachability against the reference's routes (module comment). */
function routeReachability(v: InteractionEvidence, ref: ReferenceRoutes, linkValidity: Record<string, unknown>): MetricOutcome {
  const expected = ref.routes.filter((r) => r !== '');
  const base = {
    formula: "UI2App's route reachability: reference routes reached / reference routes (entry left out)",
    expectedRoutes: expected,
    routesFrom: ref.basis,
  };
  if (v.hung)
    return scored(0, `the page did not respond: none of the reference's ${plural(expected.length, 'route')} reached`, {
      ...base,
      reached: [],
      missing: expected,
      linkValidity,
      faults: v.faults,
    });
  const views = [...(v.navigation.startView ? [v.navigation.startView] : []), ...v.navigation.views];
  const reachedAll = new Set(views.map((x) => routeName(x.path, x.hash)));
  const reached = expected.filter((r) => reachedAll.has(r));
  const missing = expected.filter((r) => !reachedAll.has(r));
  const summary =
    missing.length === 0
      ? `all ${plural(expected.length, 'route')} of the reference reached`
      : `${reached.length} of the reference's ${plural(expected.length, 'route')} reached; missing: ${missing
          .slice(0, 4)
          .map((r) => `/${r}`)
          .join(', ')}${missing.length > 4 ? ' …' : ''}`;
  return scored((100 * reached.length) / expected.length, summary, {
    ...base,
    reached,
    missing,
    otherRoutes: [...reachedAll].filter((r) => r !== '' && !expected.includes(r)),
    linkValidity,
  });
}

const navigationReachability: MetricDefinition = {
  number: 29,
  id: 'navigation-reachability',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Navigation reachability (reference routes; else link validity)',
  question:
    "With a reference: does the page's navigation reach every page (route) of the reference (UI2App)? Without one: do its in-app links, anchors, tabs and nav buttons lead somewhere (link validity)?",
  suite: 'extended',
  score(evidence) {
    const v = probeEvidence(evidence);
    const ref = evidence.reference ? referenceRoutes(evidence.reference) : null;
    const withRoutes = ref && ref.routes.length > 1 ? ref : null;
    const lv = linkValidity(v);
    if (withRoutes) return routeReachability(v, withRoutes, 'score' in lv ? { score: lv.score, ...lv.details } : { unscorable: lv.reason });
    if ('reason' in lv) return unscorable(lv.reason, lv.details);
    return scored(lv.score, lv.summary, {
      formula: ref ? 'link validity (the reference has no route but its entry)' : 'link validity (no reference given)',
      ...lv.details,
    });
  },
};

/** Ours: in-app links that lead to a view / in-app links (module comment). */
function linkValidity(
  v: InteractionEvidence,
): { score: number; summary: string; details: Record<string, unknown> } | { reason: string; details?: Record<string, unknown> } {
  const nav = v.navigation;
  const links = nav.links;
  const untried = nav.untried.map((i) => ({ ...describeControl(v.controls[i]!), nav: v.controls[i]!.nav }));
  if (links.length === 0) {
    if (v.hung) return { reason: v.unavailable?.firstView ?? 'the page did not respond', details: { faults: v.faults } };
    if (untried.length)
      return {
        reason: `none of the ${plural(untried.length, 'in-app link')} could be tried${nav.truncated ? ` (${nav.truncated})` : ''}`,
        details: { untried },
      };
    return { reason: 'the page has no in-app navigation (links to its own pages or anchors, hash routes, tabs, nav buttons)' };
  }
  const leading = links.filter((l) => l.leads);
  const dangling = links
    .filter((l) => !l.leads)
    .map((l) => {
      const c = v.controls[l.control]!;
      return {
        ...describeControl(c),
        nav: c.nav,
        ...(c.href ? { href: c.href.replace(/^https?:\/\/[^/]+/, '') } : {}),
        reason: l.reason ?? 'changes nothing',
        tries: l.tries.length,
      };
    });
  const summary =
    dangling.length === 0
      ? `all ${plural(links.length, 'in-app link')} lead to a view (${plural(nav.views.length, 'view')} reached)`
      : `${dangling.length} of ${plural(links.length, 'in-app link')} dangling: ${dangling
          .slice(0, 3)
          .map((d) => `${d.text ? `"${d.text.slice(0, 24)}"` : d.selector} (${d.reason})`)
          .join(', ')}${dangling.length > 3 ? ' …' : ''}`;
  return {
    score: (100 * leading.length) / links.length,
    summary: summary + (untried.length ? ` (${untried.length} not tried)` : ''),
    details: {
      links: links.length,
      leading: leading.length,
      dangling,
      views: nav.views.map((x) => ({ key: x.key, depth: x.depth, text: x.text, ...(x.status ? { status: x.status } : {}) })),
      untried,
      ...(nav.truncated ? { truncated: nav.truncated } : {}),
    },
  };
}

export default navigationReachability;
