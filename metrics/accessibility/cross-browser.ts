/**
 * `cross-browser` (SPEC #18): the share of the web platform features a page uses that every target browser
 * supports, per `@mdn/browser-compat-data` (BCD). `100 × compatible / all`.
 *
 * - Features: see metrics/accessibility/used-features.ts (CSS properties, keyword values, functions, at-rules and pseudo
 *   selectors of the artifact's CSS; elements and attributes of the rendered DOM, or of the static DOM when the
 *   browser session is missing; JS interfaces, global functions and members of well-known globals in the
 *   artifact's scripts). Each distinct BCD path counts once.
 * - Guarded features (inside CSS `@supports`, or feature-detected in JS) are not held against the page: they
 *   are listed in details and left out of `all`.
 * - Target browser set (documented choice): the releases of May 2024, about 30 months before this release of
 *   webgrade, in the spirit of Baseline "widely available": Chrome 125, Edge 125, Firefox 126, Safari 17.5,
 *   Safari on iOS 17.5, Chrome for Android 125. Fixed versions rather than "current" so that a score does not
 *   drift as browsers ship.
 * - Supported in a browser = some support statement has `version_added` true or a version ≤ the target (a
 *   leading "≤" is read as that version), is not behind `flags`, is not only under a prefix or another name,
 *   and has no `version_removed` ≤ the target. `partial_implementation` counts as supported and is listed.
 *   Missing data for a browser (no statement) counts as supported: BCD has no evidence against it.
 * - Pointer cursors (`css.properties.cursor` and its values) are not checked in the two mobile browsers: touch
 *   screens have no cursor, so BCD's "not supported" there changes nothing the user sees or does.
 * - A sub-feature of an unsupported feature (a value of an unsupported property) is not counted again: the
 *   property is one incompatibility, not two.
 * - Deprecated or non-standard features are not penalised for that alone (only support counts), but are listed.
 * Unscorable when the page uses no feature that BCD knows.
 */
import { round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { bcdAt, loadBcd, usedFeatures, type BcdNode } from './used-features.js';

export const TARGET_BROWSERS: Readonly<Record<string, string>> = {
  chrome: '125',
  edge: '125',
  firefox: '126',
  safari: '17.5',
  safari_ios: '17.5',
  chrome_android: '125',
};

interface Statement {
  version_added?: string | boolean | null;
  version_removed?: string | boolean | null;
  flags?: unknown[];
  prefix?: string;
  alternative_name?: string;
  partial_implementation?: boolean;
}

function versionValue(v: string): number[] | null {
  const m = v.replace(/^≤/, '').match(/^\d+(?:\.\d+)*$/);
  return m ? m[0].split('.').map(Number) : null;
}
function lte(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return true;
}

export type Support = 'yes' | 'partial' | 'no';

/** Support of one BCD feature in one browser at a target version (see the module comment). */
export function supportIn(node: BcdNode, browser: string, target: string): Support {
  const compat = node.__compat as { support?: Record<string, Statement | Statement[]> } | undefined;
  const raw = compat?.support?.[browser];
  if (!raw) return 'yes';
  const statements = Array.isArray(raw) ? raw : [raw];
  const t = versionValue(target)!;
  let best: Support = 'no';
  for (const s of statements) {
    if (s.flags?.length || s.prefix || s.alternative_name) continue;
    const added = s.version_added;
    let ok = added === true;
    if (typeof added === 'string') {
      const v = versionValue(added);
      ok = v !== null && lte(v, t);
    }
    if (!ok) continue;
    const removed = s.version_removed;
    if (removed === true) continue;
    if (typeof removed === 'string') {
      const v = versionValue(removed);
      if (v && lte(v, t)) continue;
    }
    if (s.partial_implementation) best = best === 'yes' ? 'yes' : 'partial';
    else return 'yes';
  }
  return best;
}

const MAX_LISTED = 100;
const MOBILE = new Set(['safari_ios', 'chrome_android']);

const crossBrowser: MetricDefinition = {
  number: 18,
  id: 'cross-browser',
  perspective: 'accessibility',
  kind: 'rule',
  needs: ['source'],
  optional: ['browser'],
  title: 'Cross-browser compatibility',
  question: 'Does the page only use HTML, CSS and JavaScript features that all major browsers support?',
  suite: 'study',
  async score(evidence) {
    const rendered = evidence.browser?.ok ? evidence.browser.value.domHtml : undefined;
    const used = await usedFeatures(evidence.artifact, rendered || undefined);
    const bcd = await loadBcd();
    const counted = used.features.filter((f) => !f.guarded);
    const guarded = used.features.filter((f) => f.guarded).map((f) => f.path);
    const incompatible: Array<{ feature: string; where: string; unsupportedIn: string[] }> = [];
    const partial: Array<{ feature: string; partialIn: string[] }> = [];
    for (const f of counted) {
      const node = bcdAt(bcd, f.path)!;
      const no: string[] = [];
      const part: string[] = [];
      for (const [browser, version] of Object.entries(TARGET_BROWSERS)) {
        if (MOBILE.has(browser) && /^css\.properties\.cursor(\.|$)/.test(f.path)) continue;
        const s = supportIn(node, browser, version);
        if (s === 'no') no.push(`${browser} ${version}`);
        else if (s === 'partial') part.push(browser);
      }
      if (no.length) incompatible.push({ feature: f.path, where: f.where, unsupportedIn: no });
      else if (part.length) partial.push({ feature: f.path, partialIn: part });
    }
    // A value of an unsupported property is subsumed by it: count the property once (see the module comment).
    const badPaths = new Set(incompatible.map((i) => i.feature));
    const subsumed = (path: string) => [...badPaths].some((b) => path.startsWith(b + '.'));
    for (let i = incompatible.length - 1; i >= 0; i--) if (subsumed(incompatible[i]!.feature)) incompatible.splice(i, 1);
    for (let i = counted.length - 1; i >= 0; i--) if (subsumed(counted[i]!.path)) counted.splice(i, 1);
    const details = {
      targets: TARGET_BROWSERS,
      domSource: used.domSource,
      features: counted.length,
      compatible: counted.length - incompatible.length,
      incompatible: incompatible.slice(0, MAX_LISTED),
      partial: partial.slice(0, MAX_LISTED),
      guarded: guarded.slice(0, MAX_LISTED),
      notInBcd: used.unknown,
    };
    if (counted.length === 0) return unscorable('the page uses no feature that browser-compat-data knows', details);
    const score = (100 * (counted.length - incompatible.length)) / counted.length;
    const summary =
      `${counted.length - incompatible.length} of ${counted.length} features supported by all targets` +
      (incompatible.length
        ? `; e.g. ${incompatible
            .slice(0, 2)
            .map((i) => `${i.feature} (not in ${i.unsupportedIn[0]})`)
            .join(', ')}`
        : '') +
      (guarded.length ? `; ${guarded.length} guarded` : '');
    return scored(round2(score), summary, details);
  },
};

export default crossBrowser;
