/**
 * navigation-reachability (extended suite, interaction; SPEC "Suites"): UI2App's navigation reachability (the
 * study counted it by hand). score = 100 × in-app links that lead to a view / in-app links.
 *
 * Interpretations (the search is runner/gather/interaction/probe/navigation.ts):
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
 * - Unscorable without in-app navigation.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { describeControl, plural, probeEvidence } from './probe-evidence.js';

const navigationReachability: MetricDefinition = {
  number: 29,
  id: 'navigation-reachability',
  perspective: 'interaction',
  kind: 'rule',
  needs: ['interaction'],
  title: 'Navigation reachability',
  question: 'Do the in-app links, anchors, tabs and nav buttons lead somewhere?',
  suite: 'extended',
  score(evidence) {
    const p = probeEvidence(evidence);
    if ('reason' in p) return unscorable(p.reason);
    const v = p.value;
    const nav = v.navigation;
    const links = nav.links;
    const untried = nav.untried.map((i) => ({ ...describeControl(v.controls[i]!), nav: v.controls[i]!.nav }));
    if (links.length === 0) {
      if (v.hung) return unscorable(v.unavailable?.firstView ?? 'the page did not respond', { faults: v.faults });
      if (untried.length) return unscorable(`none of the ${plural(untried.length, 'in-app link')} could be tried${nav.truncated ? ` (${nav.truncated})` : ''}`, { untried });
      return unscorable('the page has no in-app navigation (links to its own pages or anchors, hash routes, tabs, nav buttons)');
    }
    const leading = links.filter((l) => l.leads);
    const dangling = links
      .filter((l) => !l.leads)
      .map((l) => {
        const c = v.controls[l.control]!;
        return { ...describeControl(c), nav: c.nav, ...(c.href ? { href: c.href.replace(/^https?:\/\/[^/]+/, '') } : {}), reason: l.reason ?? 'changes nothing', tries: l.tries.length };
      });
    const score = (100 * leading.length) / links.length;
    const summary =
      dangling.length === 0
        ? `all ${plural(links.length, 'in-app link')} lead to a view (${plural(nav.views.length, 'view')} reached)`
        : `${dangling.length} of ${plural(links.length, 'in-app link')} dangling: ${dangling
            .slice(0, 3)
            .map((d) => `${d.text ? `"${d.text.slice(0, 24)}"` : d.selector} (${d.reason})`)
            .join(', ')}${dangling.length > 3 ? ' …' : ''}`;
    return scored(score, summary + (untried.length ? ` (${untried.length} not tried)` : ''), {
      links: links.length,
      leading: leading.length,
      dangling,
      views: nav.views.map((x) => ({ key: x.key, depth: x.depth, text: x.text, ...(x.status ? { status: x.status } : {}) })),
      untried,
      ...(nav.truncated ? { truncated: nav.truncated } : {}),
    });
  },
};

export default navigationReachability;
