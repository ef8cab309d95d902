/**
 * `icon-consistency` (SPEC #8): do the icons that appear together look like one family?
 *
 * Reads `browser.icons` (gather/collectors/icons.ts: inline SVG, icon fonts, small SVG images, emoji used
 * as icons). Icons are grouped by their shared container (the nearest ancestor holding another icon). Six
 * dimensions are checked; a dimension **fails** when any group of two or more comparable icons is inconsistent
 * in it. F = failed dimensions (0–6); score = `max(0, 100 − 25 × F)`. Unscorable without icons.
 *
 * Dimensions (interpretations):
 * 1. `icon-set`: checked over the whole page, not per group: mixing sets (Font Awesome with Material, inline SVG
 *    with emoji ...) is visible anywhere. Fails when icons come from two or more sets. Inline SVGs without a
 *    recognised set count as one set (`inline-svg`).
 * 2. `size`: within a group, the larger of width and height of each icon; fails when the largest is more than
 *    1.25 × the smallest (a 16 px beside a 20 px icon fails, 16 beside 18 passes).
 * 3. `stroke-width`: within a group, among stroked SVG icons; fails when stroke widths differ by more than 0.5
 *    (in the icon's own units, as computed).
 * 4. `background-shape`: within a group, among icons with a background; fails when shapes differ (circle,
 *    rounded, square) or when some icons of the group have a background and others have none.
 * 5. `background-colour`: within a group, among icons with a background; fails when colours differ.
 *    Documented choice: different colours per item are sometimes deliberate (category colours), but the
 *    study's dimension counts them, and so do we.
 * 6. `background-padding`: within a group, among icons with a background; fails when paddings differ by more
 *    than 2 px.
 * Icons whose look could not be seen (`rendered: false`: an icon font that did not load offline, a failed
 * image) take part in the icon-set check only; details count them so a reader knows what was not verified.
 */
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import type { IconInfo } from '../../core/browser-evidence.js';
import { present } from '../../core/evidence.js';

export const DIMENSIONS = ['icon-set', 'size', 'stroke-width', 'background-shape', 'background-colour', 'background-padding'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const SIZE_RATIO = 1.25;
const STROKE_TOLERANCE = 0.5;
const PADDING_TOLERANCE = 2;
const MAX_EXAMPLES = 5;

interface Failure {
  dimension: Dimension;
  /** The group (container) where it fails, or "page". */
  where: string;
  found: string;
  icons: string[];
}

const distinct = <T>(xs: T[]) => [...new Set(xs)];

/** Check the dimensions on a list of icons (see the module comment). */
export function checkIcons(icons: readonly IconInfo[]): { failures: Failure[]; groups: number; unrendered: number } {
  const failures: Failure[] = [];
  const sets = distinct(icons.map((i) => i.set));
  if (sets.length > 1) {
    failures.push({
      dimension: 'icon-set',
      where: 'page',
      found: sets.map((s) => `${s} (${icons.filter((i) => i.set === s).length})`).join(', '),
      icons: sets.map((s) => icons.find((i) => i.set === s)!.selector),
    });
  }
  const seen = icons.filter((i) => i.rendered !== false);
  const groups = new Map<string, IconInfo[]>();
  for (const i of seen) groups.set(i.container, [...(groups.get(i.container) ?? []), i]);
  const fail = (dimension: Dimension, where: string, found: string, list: IconInfo[]) => {
    if (!failures.some((f) => f.dimension === dimension)) failures.push({ dimension, where, found, icons: list.slice(0, MAX_EXAMPLES).map((i) => i.selector) });
  };
  let compared = 0;
  for (const [where, group] of groups) {
    if (group.length < 2) continue;
    compared++;
    const sizes = group.map((i) => Math.max(i.width, i.height)).filter((s) => s > 0);
    if (sizes.length >= 2 && Math.max(...sizes) > SIZE_RATIO * Math.min(...sizes)) fail('size', where, `${Math.min(...sizes)}–${Math.max(...sizes)} px`, group);
    const strokes = group.map((i) => i.strokeWidth).filter((s): s is number => s !== null);
    if (strokes.length >= 2 && Math.max(...strokes) - Math.min(...strokes) > STROKE_TOLERANCE)
      fail(
        'stroke-width',
        where,
        distinct(strokes).join(', '),
        group.filter((i) => i.strokeWidth !== null),
      );
    const withBg = group.filter((i) => i.background);
    if (withBg.length > 0) {
      const shapes = distinct(withBg.map((i) => i.background!.shape));
      if (shapes.length > 1 || withBg.length < group.length)
        fail(
          'background-shape',
          where,
          withBg.length < group.length ? `${withBg.length} of ${group.length} icons have a background (${shapes.join(', ')})` : shapes.join(', '),
          group,
        );
      const colours = distinct(withBg.map((i) => i.background!.color));
      if (colours.length > 1) fail('background-colour', where, colours.join(', '), withBg);
      const pads = withBg.map((i) => i.background!.padding);
      if (Math.max(...pads) - Math.min(...pads) > PADDING_TOLERANCE) fail('background-padding', where, `${Math.min(...pads)}–${Math.max(...pads)} px`, withBg);
    }
  }
  return { failures, groups: compared, unrendered: icons.length - seen.length };
}

const iconConsistency: MetricDefinition = {
  number: 8,
  id: 'icon-consistency',
  perspective: 'visual',
  kind: 'rule',
  needs: ['browser'],
  title: 'Icon consistency',
  question: 'Do icons that appear together come from one set, with the same size, stroke and background?',
  suite: 'study',
  score(evidence) {
    const b = present(evidence.browser, 'the browser evidence');
    const icons = b.icons;
    if (!icons) return unscorable(b.unavailable?.icons ?? 'icons were not collected');
    if (icons.length === 0) return unscorable('the page shows no icons');
    const { failures, groups, unrendered } = checkIcons(icons);
    const f = failures.length;
    const score = Math.max(0, 100 - 25 * f);
    const summary =
      (f ? `${f} of 6 dimensions inconsistent (${failures.map((x) => x.dimension).join(', ')})` : 'consistent in all 6 dimensions') +
      ` over ${icons.length} icons in ${groups} groups` +
      (unrendered ? `; ${unrendered} not rendered offline (set checked only)` : '');
    return scored(score, summary, {
      icons: icons.length,
      sets: distinct(icons.map((i) => i.set)),
      comparedGroups: groups,
      unrendered,
      failedDimensions: failures,
      passedDimensions: DIMENSIONS.filter((d) => !failures.some((x) => x.dimension === d)),
    });
  },
};

export default iconConsistency;
