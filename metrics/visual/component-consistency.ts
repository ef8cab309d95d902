/**
 * component-consistency (SPEC #7): repeated sibling components (cards, list items, tiles) should share one
 * structure and one styling. As the study counts it (inconsistent_num / total_num of card components):
 * T = all components that belong to a group of repeated components (the members of every group, summed),
 * I = those components that depart from their group's most common member in structure or styling;
 * score `(1 − log2(1 + I/(T+1))) × 100` (logPenalty); unscorable when the page has no such group.
 * Before 2026-11 we counted groups (I = inconsistent groups, T = groups); the details still report both counts
 * (`groups`, `inconsistentGroups`) next to the scored ones (`components`, `inconsistentComponents`). Counting
 * components weighs a group by its size: one odd card among twelve costs less than one odd card among two, and
 * a grid where half the cards differ costs more than a grid with one odd card.
 *
 * Read from the static DOM (`artifact.dom`, scripts not run): components that JavaScript builds at run time
 * (a grid filled from an array) are not in it and are not judged; a page built entirely by JS is unscorable
 * here ("no repeated components in the static DOM").
 *
 * Interpretations and thresholds:
 * - Candidates: element children of one parent, inside `<body>`, outside `<svg>`/`<math>`/`<template>`/`<script>`/
 *   `<select>`. Their *key* is the tag plus the sorted class list without *variant classes* (see below).
 *   Class-less siblings count only for component-like tags (li, tr, article, figure, a, button, details, label,
 *   blockquote, dl): class-less div/section/p siblings are page layout, not repeated components. A group
 *   is ≥ 2 siblings with the same key of which at least half have ≥ 2 element children (MIN_MEMBERS = 2,
 *   MIN_CHILDREN = 2). Members with fewer children stay in the group and then differ in structure.
 * - Variant classes are deliberate per-item differences, not inconsistencies: state words (active, selected,
 *   open, hidden, disabled, done, featured, highlighted, …, `is-*`, `has-*`), BEM modifiers (`x--y`), icon-name
 *   classes (`fa-star`, `bi-house`, `icon-x`, … but not icon style/size classes such as `fa-solid`, `fa-2x`),
 *   colour/status words (primary, success, danger, red, high, low, …), a class that extends another class of
 *   the same element (`badge badge-success`, `tag tag-blue`), and colour utilities (`bg-red-500`,
 *   `text-green-600`, `border-blue-200`). Colour differences are treated as data (category colours, status
 *   badges), as are inline-style colours and sizes (below).
 * - Structure: a signature of each member's subtree to depth STRUCTURE_DEPTH = 3 (tag names); runs of identical
 *   sibling signatures collapse into one (`li+`), so a card with three tags and one with two match. Phrasing
 *   elements inside text (b, strong, em, span, a, i without class, br, small, code, …, in a parent that also has
 *   its own text) are left out: they are wording, not structure. In `<li>` members a nested `<ul>/<ol>` is left
 *   out (a sub-list is content; it forms its own groups). Form controls (input, select, textarea) are one part
 *   kind, so form rows with a text field and form rows with a select match. Members whose signature differs from the most common
 *   one are reported.
 * - Styling: for members with the most common structure, the direct children are aligned by position and each
 *   pair compared on (a) classes without variant classes and (b) inline-style properties: the set of property
 *   names, and the values of typography/spacing properties (font-*, padding*, margin*, gap, border-radius,
 *   line-height, letter-spacing, text-align, text-transform). Colours, widths, heights, transforms, animation
 *   delays and custom properties may differ (bar charts, progress bars, staggered animations). The member's own
 *   inline style is not compared, for the same reason.
 * - A component is inconsistent when it differs in structure, or in the styling of any of its direct children,
 *   from its group's most common member; a component is counted once however many of its parts differ. The
 *   most common member itself (and every member equal to it) is consistent, so in a group of two that differ
 *   exactly one component counts as inconsistent (the one that is not the reference: the first member wins a tie).
 * - A component nested inside another group's component (a list inside a card) belongs to its own group too:
 *   each group counts its own members.
 *
 * Blind spot (mutation testing, issue 20; bench/mutate.ts): a component that already departs from its group is
 * counted once, so restyling it further does not lower the score (the study counts inconsistent components, not
 * how far they depart). The `restyle-card` operator (the second member of the first group restyled) was detected
 * on 10 of 13 pages where it applied (77 %; 42 pages, static targets): the 3 misses restyled a member that was
 * already inconsistent in structure. Kept as the study defines it.
 */
import type { JSDOM } from 'jsdom';
import { nodeLocation } from '../../lib/artifact/loaded.js';
import { logPenalty, round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';

export const MIN_MEMBERS = 2;
export const MIN_CHILDREN = 2;
export const STRUCTURE_DEPTH = 3;
const MAX_LISTED_GROUPS = 100;

const SKIP_TAGS = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'svg',
  'math',
  'select',
  'datalist',
  'head',
  'meta',
  'link',
  'br',
  'hr',
  'wbr',
  'option',
  'optgroup',
  'canvas',
  'iframe',
  'object',
  'video',
  'audio',
  'picture',
]);
const PHRASING = new Set([
  'b',
  'strong',
  'em',
  'span',
  'a',
  'i',
  'br',
  'small',
  'code',
  'mark',
  'sup',
  'sub',
  'abbr',
  'u',
  's',
  'wbr',
  'time',
  'kbd',
  'q',
  'cite',
  'var',
  'samp',
  'del',
  'ins',
  'bdi',
  'bdo',
  'data',
  'label',
]);

const STATE_WORDS = new Set([
  'active',
  'inactive',
  'selected',
  'current',
  'open',
  'opened',
  'closed',
  'expanded',
  'collapsed',
  'show',
  'shown',
  'hidden',
  'hide',
  'visible',
  'invisible',
  'disabled',
  'enabled',
  'checked',
  'done',
  'completed',
  'complete',
  'pending',
  'featured',
  'highlight',
  'highlighted',
  'popular',
  'recommended',
  'new',
  'hot',
  'sale',
  'first',
  'last',
  'odd',
  'even',
  'fade',
  'fadein',
  'fade-in',
  'animate',
  'animated',
  'visible',
  'loaded',
  'loading',
  'error',
  'valid',
  'invalid',
  'focus',
  'focused',
  'hover',
  'pressed',
  'on',
  'off',
  'dark',
  'light',
  'reverse',
  'reversed',
  'positive',
  'negative',
  'neutral',
  'correct',
  'incorrect',
  'wrong',
  'win',
  'lose',
  'locked',
  'unlocked',
  'read',
  'unread',
  'online',
  'offline',
  'today',
  'past',
  'future',
  'empty',
  'filled',
  'full',
  'placeholder',
  'dragging',
  'revealed',
  'flipped',
  'matched',
  'playing',
  'paused',
  'muted',
  'free',
  'pro',
  'premium',
  'basic',
  'enterprise',
]);
const COLOUR_WORDS = new Set([
  'primary',
  'secondary',
  'tertiary',
  'success',
  'danger',
  'warning',
  'info',
  'error',
  'critical',
  'muted',
  'accent',
  'low',
  'medium',
  'mid',
  'high',
  'urgent',
  'red',
  'orange',
  'amber',
  'yellow',
  'lime',
  'green',
  'emerald',
  'teal',
  'cyan',
  'sky',
  'blue',
  'indigo',
  'violet',
  'purple',
  'fuchsia',
  'pink',
  'rose',
  'gray',
  'grey',
  'slate',
  'zinc',
  'neutral',
  'stone',
  'black',
  'white',
  'gold',
  'silver',
  'bronze',
  'brown',
]);
const ICON_STYLE =
  /^(fa|fas|far|fab|fal|fad|fat|fass|fa-(solid|regular|brands|light|thin|duotone|sharp|fw|xs|sm|lg|xl|2xs|2xl|[1-9]x|10x|spin|pulse|border|flip|rotate-\d+)|bi|bx|bxs|bxl|material-icons|material-symbols-\w+|ti|ri|ph|lucide|mdi|icon|icons|glyphicon|la|las|lar|lab)$/;
const ICON_NAME = /^(fa|bi|bx|bxs|bxl|ti|ri|ph|lucide|mdi|icon|glyphicon|la|ion|gg|iconoir|feather|uil|wi)-[a-z0-9-]+$/;
const COLOUR_UTILITY =
  /^(?:[a-z]+:)*(bg|text|border|from|via|to|ring|fill|stroke|outline|divide|decoration|accent|caret|shadow|placeholder)-(?:[a-z]+-)?(?:\d{2,3}|light|dark|lighter|darker)(\/\d+)?$/;

/** Is a class a deliberate per-item variant (state, modifier, icon name, colour)? See the module comment. */
export function isVariantClass(cls: string, siblings: readonly string[] | ReadonlySet<string>): boolean {
  const c = cls.toLowerCase();
  if (STATE_WORDS.has(c) || COLOUR_WORDS.has(c)) return true;
  if (/^(is|has|was|state|status|js|u-is)-/.test(c)) return true;
  if (c.includes('--')) return true;
  if (ICON_NAME.test(c) && !ICON_STYLE.test(c)) return true;
  if (COLOUR_UTILITY.test(c)) return true;
  const parts = c.split(/[-_]/);
  if (parts.length > 1 && (COLOUR_WORDS.has(parts[parts.length - 1]!) || STATE_WORDS.has(parts[parts.length - 1]!))) {
    // `status-done`, `priority-high`, `tag-blue`, `card-featured`
    return true;
  }
  // `badge badge-success`: another class of the element is this one's prefix up to a `-` or `_`. Looked up
  // prefix by prefix in a set of the element's (lower-cased) classes, so an element with thousands of classes
  // costs their total length, not their number squared.
  const others = siblings instanceof Set ? siblings : new Set(Array.from(siblings, (o) => o.toLowerCase()));
  for (let i = 1; i < c.length; i++) {
    if ((c[i] === '-' || c[i] === '_') && others.has(c.slice(0, i))) return true;
  }
  return false;
}

function baseClasses(el: Element): string[] {
  const all = Array.from(el.classList);
  const lower = new Set(all.map((c) => c.toLowerCase()));
  return all.filter((c) => !isVariantClass(c, lower)).sort();
}

/** Tags that are components even without a class; other class-less siblings (div, section, p) are layout. */
const CLASSLESS_COMPONENTS = new Set(['li', 'tr', 'article', 'figure', 'a', 'button', 'details', 'label', 'blockquote', 'dl']);

/** The grouping key, or null when the element is a class-less layout block. */
function keyOf(el: Element): string | null {
  const cls = baseClasses(el);
  if (cls.length === 0 && !CLASSLESS_COMPONENTS.has(el.localName)) return null;
  return el.localName + (cls.length ? '.' + cls.join('.') : '');
}

/** Form controls are one kind of part: a label + input group and a label + select group match. */
function partName(el: Element): string {
  const t = el.localName;
  return t === 'input' || t === 'select' || t === 'textarea' ? 'control' : t;
}

/**
 * The element children of `el`, by walking siblings: jsdom's `children` collection looks every index up as a
 * possible element name first, so `Array.from(el.children)` is quadratic in the number of children (20 000
 * siblings took 10 s).
 */
function elementChildren(el: Element): Element[] {
  const out: Element[] = [];
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) out.push(c);
  return out;
}

function ownText(el: Element): boolean {
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && (n.textContent ?? '').trim() !== '') return true;
  return false;
}

function structuralChildren(el: Element): Element[] {
  const kids = elementChildren(el).filter((c) => !['script', 'style', 'template', 'noscript'].includes(c.localName));
  const withText = ownText(el);
  return kids.filter((c) => {
    if (withText && PHRASING.has(c.localName) && !(c.localName === 'i' && c.classList.length > 0)) return false;
    if (el.localName === 'li' && (c.localName === 'ul' || c.localName === 'ol')) return false;
    return true;
  });
}

/** Structural signature of an element's subtree to `depth` levels, runs of equal siblings collapsed. */
export function signature(el: Element, depth = STRUCTURE_DEPTH): string {
  if (depth === 0 || el.localName === 'svg' || el.localName === 'select') return partName(el);
  const parts: string[] = [];
  for (const c of structuralChildren(el)) {
    const s = signature(c, depth - 1);
    const last = parts[parts.length - 1];
    if (last === s || last === s + '+') parts[parts.length - 1] = s + '+';
    else parts.push(s);
  }
  return parts.length ? `${partName(el)}(${parts.join(',')})` : partName(el);
}

const COMPARED_STYLE_VALUE =
  /^(font(-.*)?|padding(-.*)?|margin(-.*)?|gap|row-gap|column-gap|border-radius|line-height|letter-spacing|text-align|text-transform)$/;

function styleShape(el: Element): string {
  const style = (el as HTMLElement).style;
  if (!style || style.length === 0) return '';
  const out: string[] = [];
  for (let i = 0; i < style.length; i++) {
    const prop = style.item(i);
    if (prop.startsWith('--')) continue;
    out.push(COMPARED_STYLE_VALUE.test(prop) ? `${prop}:${style.getPropertyValue(prop).trim()}` : prop);
  }
  return out.sort().join(';');
}

function childLabel(el: Element): string {
  const cls = Array.from(el.classList).slice(0, 3);
  return el.localName + (cls.length ? '.' + cls.join('.') : '');
}

/** A short CSS-like path for a group: nearest ancestor with an id, then up to 3 steps. */
function groupSelector(parent: Element, key: string): string {
  const steps: string[] = [];
  let el: Element | null = parent;
  while (el && steps.length < 3 && el.localName !== 'html') {
    if (el.id) {
      steps.unshift(`${el.localName}#${el.id}`);
      break;
    }
    const cls = baseClasses(el).slice(0, 2);
    steps.unshift(el.localName + (cls.length ? '.' + cls.join('.') : ''));
    el = el.parentElement;
  }
  return `${steps.join(' > ')} > ${key}`;
}

export interface MemberDifference {
  /** 1-based position among the group's members. */
  member: number;
  kind: 'structure' | 'style';
  what: string;
}

export interface ComponentGroup {
  selector: string;
  members: number;
  consistent: boolean;
  /** Members (1-based positions) that depart from the group's most common member. */
  inconsistentMembers: number[];
  /** The most common structure. */
  structure: string;
  differences: MemberDifference[];
  line?: number;
}

function mostCommon<T>(xs: T[], key: (x: T) => string): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(key(x), (counts.get(key(x)) ?? 0) + 1);
  let best = '';
  let n = -1;
  for (const [k, c] of counts) if (c > n) [best, n] = [k, c];
  return best;
}

function compareGroup(members: Element[]): { structure: string; differences: MemberDifference[] } {
  const sigs = members.map((m) => signature(m));
  const structure = mostCommon(sigs, (s) => s);
  const differences: MemberDifference[] = [];
  sigs.forEach((s, i) => {
    if (s !== structure) differences.push({ member: i + 1, kind: 'structure', what: `${s} instead of ${structure}` });
  });
  // Styling: among members with the common structure, align direct children by position.
  const same = members.map((m, i) => ({ m, i })).filter(({ i }) => sigs[i] === structure);
  if (same.length >= 2) {
    const kidsOf = same.map(({ m }) => structuralChildren(m));
    const width = kidsOf.reduce((w, k) => Math.max(w, k.length), 0);
    for (let pos = 0; pos < width; pos++) {
      const column = kidsOf.map((k) => k[pos]).filter((x): x is Element => x !== undefined);
      if (column.length < 2) continue;
      const clsRef = mostCommon(column, (c) => baseClasses(c).join(' '));
      const styleRef = mostCommon(column, styleShape);
      kidsOf.forEach((k, j) => {
        const c = k[pos];
        if (!c) return;
        const cls = baseClasses(c).join(' ');
        const st = styleShape(c);
        if (cls !== clsRef) {
          differences.push({ member: same[j]!.i + 1, kind: 'style', what: `child ${pos + 1} (${c.localName}) has classes "${cls}" instead of "${clsRef}"` });
        } else if (st !== styleRef) {
          differences.push({
            member: same[j]!.i + 1,
            kind: 'style',
            what: `child ${pos + 1} (${childLabel(c)}) has inline style "${st}" instead of "${styleRef}"`,
          });
        }
      });
    }
  }
  return { structure, differences };
}

/**
 * Find the groups of repeated sibling components in a static DOM; `lineOf` gives an element's source line
 * (the artifact model's node locations) for the report.
 */
export function findGroups(dom: JSDOM, lineOf: (el: Element) => number | undefined = () => undefined): ComponentGroup[] {
  const doc = dom.window.document;
  const body = doc.body;
  if (!body) return [];
  const groups: ComponentGroup[] = [];
  const visit = (parent: Element) => {
    if (SKIP_TAGS.has(parent.localName)) return;
    const byKey = new Map<string, Element[]>();
    for (const c of elementChildren(parent)) {
      if (SKIP_TAGS.has(c.localName)) continue;
      const k = keyOf(c);
      if (k === null) continue;
      const list = byKey.get(k);
      if (list) list.push(c);
      else byKey.set(k, [c]);
    }
    for (const [key, members] of byKey) {
      if (members.length < MIN_MEMBERS) continue;
      const rich = members.filter((m) => structuralChildren(m).length >= MIN_CHILDREN).length;
      if (rich * 2 < members.length || rich < MIN_MEMBERS) continue;
      const { structure, differences } = compareGroup(members);
      const inconsistentMembers = [...new Set(differences.map((d) => d.member))].sort((a, b) => a - b);
      const g: ComponentGroup = {
        selector: groupSelector(parent, key),
        members: members.length,
        consistent: differences.length === 0,
        inconsistentMembers,
        structure,
        differences: differences.slice(0, 10),
      };
      const line = lineOf(members[0]!);
      if (line) g.line = line;
      groups.push(g);
    }
    for (const c of elementChildren(parent)) visit(c);
  };
  visit(body);
  return groups;
}

const componentConsistency: MetricDefinition = {
  number: 7,
  id: 'component-consistency',
  perspective: 'visual',
  kind: 'rule',
  needs: ['dom'],
  title: 'Component consistency',
  question: 'Do repeated components such as cards and list items share the same structure and styling?',
  suite: 'study',
  score({ artifact }) {
    const groups = findGroups(artifact.dom, (el) => nodeLocation(artifact, el)?.startLine);
    if (groups.length === 0) return unscorable('no repeated components in the static DOM (components built by scripts are not seen)', { groups: 0, list: [] });
    const bad = groups.filter((g) => !g.consistent);
    const T = groups.reduce((n, g) => n + g.members, 0);
    const I = groups.reduce((n, g) => n + g.inconsistentMembers.length, 0);
    const score = logPenalty(I, T);
    const worst = bad[0] ? `; e.g. ${bad[0].selector}: ${bad[0].differences[0]?.what}` : '';
    return scored(score, `${I} of ${T} repeated components (in ${bad.length} of ${groups.length} groups) are inconsistent${worst}`, {
      components: T,
      inconsistentComponents: I,
      groups: groups.length,
      inconsistentGroups: bad.length,
      formula: `(1 − log2(1 + ${I}/(${T}+1))) × 100 = ${round2(score)} (I = inconsistent components, T = components in groups)`,
      // inconsistent groups first, so that the cap keeps them
      list: [...bad, ...groups.filter((g) => g.consistent)].slice(0, MAX_LISTED_GROUPS),
    });
  },
};

export default componentConsistency;
