/**
 * Operators for the visual perspective (layout-consistency, layout-sparsity, color-harmony,
 * component-consistency, icon-consistency) and performance.
 */
import { findGroups } from '../../metrics/visual/component-consistency.js';
import { iconGroups, repeatedGroups } from '../find.js';
import { applied, notApplicable, type MutationOperator } from '../operator.js';
import type { PageModel } from '../page.js';

const SCREEN = ['layout-consistency', 'layout-sparsity', 'color-harmony', 'visual-experience'];
const others = (id: string) => SCREEN.filter((m) => m !== id);

/** The repeated-component group an operator edits: the first with at least 2 members, in document order. */
function cardGroup(page: PageModel): Element[] | undefined {
  return repeatedGroups(page)[0];
}

function describe(el: Element): string {
  const cls = Array.from(el.classList).slice(0, 2).join('.');
  return `<${el.localName}${cls ? '.' + cls : ''}>`;
}

export const shiftCard: MutationOperator = {
  id: 'shift-card',
  targets: ['layout-consistency'],
  collateral: others('layout-consistency'),
  description: 'the second member of the first group of repeated components (cards, list items) shifted 4 px right and down (translate: 4px 4px)',
  apply(page, edit) {
    const group = cardGroup(page);
    if (!group) return notApplicable('no repeated components (cards, list items) in the static DOM');
    edit.addInlineStyle(group[1]!, 'translate: 4px 4px;');
    return applied(`${describe(group[1]!)} (2nd of ${group.length}) shifted by 4 px`);
  },
};

export const EMPTY_BLOCK = '<div aria-hidden="true" style="display: block; width: 100%; height: 700px; flex: none;"></div>';

export const emptyBlock: MutationOperator = {
  id: 'empty-block',
  targets: ['layout-sparsity'],
  collateral: [...others('layout-sparsity'), 'performance', 'accessibility', 'mobile-compat'],
  description: 'an empty 700 px tall block as the first thing in <body>',
  apply(_page, edit) {
    edit.insertAtBodyStart(EMPTY_BLOCK);
    return applied('inserted an empty 700 px block after <body>');
  },
};

/**
 * Clashing hues: every element's background and text in saturated colours 60–90° apart (no classic relation on
 * the colour wheel), warm and cool in equal parts.
 */
export const CLASHING_CSS = [
  'html,body{background:#ff1a1a!important;color:#00b3ff!important}',
  'body *{color:#00b3ff!important;border-color:#9d00ff!important}',
  'body *:nth-child(4n+1){background-color:#ffe600!important}',
  'body *:nth-child(4n+2){background-color:#00e05a!important}',
  'body *:nth-child(4n+3){background-color:#ff1a1a!important}',
  'body *:nth-child(4n){background-color:#9d00ff!important}',
].join('');

export const clashingPalette: MutationOperator = {
  id: 'clashing-palette',
  targets: ['color-harmony'],
  collateral: [...others('color-harmony'), 'accessibility'],
  description: 'a <style> in <head> that paints backgrounds and text in saturated hues 60–90° apart (red, yellow, green, sky, violet)',
  apply(_page, edit) {
    edit.insertInHead(`<style>${CLASHING_CSS}</style>`);
    return applied('inserted a clashing palette <style> in <head>');
  },
};

export const RESTYLE = 'font-size: 1.4em; font-weight: 300; letter-spacing: 0.08em; padding: 6px 10px;';

export const restyleCard: MutationOperator = {
  id: 'restyle-card',
  targets: ['component-consistency'],
  collateral: SCREEN,
  description:
    'the first child with text (its title) of the second member of the first group of repeated components restyled (its own font size, weight, spacing)',
  apply(page, edit) {
    const group = cardGroup(page);
    if (!group) return notApplicable('no repeated components (cards, list items) in the static DOM');
    const member = group[1]!;
    // its title or first text part (restyling an icon would be icon-consistency's defect), else its first child
    const located = Array.from(member.children).filter((c) => page.located(c) && c.localName !== 'svg');
    const child = located.find((c) => (c.textContent ?? '').trim().length > 0) ?? located[0];
    if (!child) return notApplicable('the repeated component has no child element in the source');
    edit.addInlineStyle(child, RESTYLE);
    return applied(`${describe(member)} (2nd of ${group.length}): its first child ${describe(child)} restyled`);
  },
};

/** Three cards of one shape, the third's title in its own typography (restyle-card's defect, brought along). */
export const ODD_CARDS = `<section>${['One', 'Two', 'Three']
  .map((t, i) => `<article><h3${i === 2 ? ` style="${RESTYLE}"` : ''}>${t}</h3><p>Card ${t.toLowerCase()}.</p></article>`)
  .join('')}</section>`;

/**
 * A group of three repeated components, one inconsistent, added to a page that has none (component-consistency
 * is unscorable there, and restyle-card has nothing to edit). Not applied where the page has a group: there
 * restyle-card edits the page's own cards, and adding a group with one odd card of three could even raise the
 * score of a page whose own groups are worse than that.
 */
export const insertOddCard: MutationOperator = {
  id: 'insert-odd-card',
  targets: ['component-consistency'],
  inserts: true,
  collateral: [...SCREEN, 'copywriting', 'accessibility'],
  description: 'on a page without repeated components: three <article> cards (a title and a line each) at the end of <body>, the third title restyled',
  apply(page, edit) {
    // asked of component-consistency's own grouping (it drops variant classes first), not of find.ts's stricter one
    const groups = findGroups(page.dom).length;
    if (groups > 0) return notApplicable(`the page has ${groups} group${groups === 1 ? '' : 's'} of repeated components (restyle-card edits those)`);
    edit.insertAtBodyEnd(ODD_CARDS);
    return applied('inserted three <article> cards before </body>, the third with its own title styling');
  },
};

export const mixIconSize: MutationOperator = {
  id: 'mix-icon-size',
  targets: ['icon-consistency'],
  collateral: [...SCREEN, 'component-consistency'],
  description: 'the second icon of the first icon group drawn 1.6× larger (scale: 1.6; emoji: font-size: 1.6em)',
  apply(page, edit) {
    const group = iconGroups(page)[0];
    if (!group) return notApplicable('no group of two or more icons (inline SVG, icon font, emoji) in the static DOM');
    const icon = group[1]!;
    edit.addInlineStyle(icon.el, icon.kind === 'emoji' ? 'font-size: 1.6em;' : 'scale: 1.6;');
    return applied(`${icon.kind} icon ${describe(icon.el)} (2nd of ${group.length}) drawn 1.6× larger`);
  },
};

export const EMOJI_ICON = '<span aria-hidden="true">⭐</span>';
export const SVG_ICON = '<svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24"><circle cx="12" cy="12" r="9" fill="currentColor"/></svg>';

export const mixIconSet: MutationOperator = {
  id: 'mix-icon-set',
  targets: ['icon-consistency'],
  collateral: [...SCREEN, 'component-consistency'],
  description: 'the second icon of the first icon group replaced by an icon of another set (an emoji; an inline SVG when the icons are emoji)',
  apply(page, edit) {
    const group = iconGroups(page)[0];
    if (!group) return notApplicable('no group of two or more icons (inline SVG, icon font, emoji) in the static DOM');
    const icon = group[1]!;
    if (icon.kind === 'emoji') {
      // the emoji is the text of its element (often a link or button): replace the text, keep the element
      const text = Array.from(icon.el.childNodes).find((n) => n.nodeType === 3 && (n.textContent ?? '').trim());
      const loc = text ? page.loc(text) : null;
      if (!loc) return notApplicable('the emoji icon has no text node in the source');
      edit.ms(page.entry).overwrite(loc.startOffset, loc.endOffset, SVG_ICON);
    } else edit.replaceElement(icon.el, EMOJI_ICON);
    return applied(`${icon.kind} icon ${describe(icon.el)} (2nd of ${group.length}) replaced by ${icon.kind === 'emoji' ? 'an inline SVG' : 'an emoji'}`);
  },
};

/** Two icons of different sets and sizes side by side: an inline SVG circle and an emoji at twice the size. */
export const MIXED_ICONS = `<p aria-hidden="true">${SVG_ICON} <span style="font-size: 2em;">⭐</span></p>`;

/** A group of two inconsistent icons added, for pages without an icon group to edit (mix-icon-*'s case). */
export const insertMixedIcons: MutationOperator = {
  id: 'insert-mixed-icons',
  targets: ['icon-consistency'],
  inserts: true,
  collateral: [...SCREEN, 'component-consistency'],
  description: 'a <p> with two icons of different sets and sizes (a 20 px inline SVG and a 2em emoji) at the end of <body>',
  apply(_page, edit) {
    edit.insertAtBodyEnd(MIXED_ICONS);
    return applied('inserted an SVG icon and a larger emoji icon side by side before </body>');
  },
};

const TEXT_BLOCKS = new Set([
  'header',
  'main',
  'nav',
  'footer',
  'aside',
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'div',
  'section',
  'article',
  'form',
  'ul',
  'ol',
  'table',
  'img',
  'button',
  'blockquote',
  'figure',
]);

const LEAF_TEXT = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li']);

/**
 * Two neighbouring blocks of one parent whose left edges line up in the source's flow: consecutive located,
 * rendered block children that both show something (text or an image), the second being the one shifted. A pair
 * of text blocks (paragraphs, headings, list items) is preferred, the first in document order: shifting it moves
 * one line of text out of its column; else the first pair of any blocks (shifting a whole section moves all its
 * content together, which misaligns it only against its neighbour). Children with inline positioning or floats
 * are skipped.
 */
function alignedPair(page: PageModel): [Element, Element] | undefined {
  const body = page.doc.body;
  if (!body) return undefined;
  const shows = (el: Element) => (el.textContent ?? '').trim().length > 1 || el.localName === 'img' || !!el.querySelector('img, svg');
  const plain = (el: Element) =>
    !/(position\s*:\s*(absolute|fixed)|float\s*:|display\s*:\s*none)/i.test(el.getAttribute('style') ?? '') && !el.hasAttribute('hidden');
  let fallback: [Element, Element] | undefined;
  for (const parent of [body, ...Array.from(body.querySelectorAll('*'))]) {
    if (parent !== body && !page.rendered(parent)) continue;
    const kids = Array.from(parent.children).filter((c) => TEXT_BLOCKS.has(c.localName) && page.located(c) && page.rendered(c) && plain(c) && shows(c));
    for (let i = 1; i < kids.length; i++) {
      const a = kids[i - 1]!;
      const b = kids[i]!;
      if (a.nextElementSibling !== b) continue;
      if (LEAF_TEXT.has(a.localName) && LEAF_TEXT.has(b.localName)) return [a, b];
      fallback ??= [a, b];
    }
  }
  return fallback;
}

export const shiftBlock: MutationOperator = {
  id: 'shift-block',
  targets: ['layout-consistency'],
  // the shifted block may be a child of a repeated component: its new inline property departs from its siblings'
  collateral: [...others('layout-consistency'), 'component-consistency'],
  description:
    'of the first two neighbouring blocks of one parent (paragraphs, headings, list items, sections), the second shifted 4 px right (translate: 4px 0)',
  apply(page, edit) {
    const pair = alignedPair(page);
    if (!pair) return notApplicable('no two neighbouring blocks with content under one parent in the static DOM');
    edit.addInlineStyle(pair[1], 'translate: 4px 0;');
    return applied(`${describe(pair[1])} (after ${describe(pair[0])}) shifted 4 px right`);
  },
};

export const syncLoop: MutationOperator = {
  id: 'sync-loop',
  targets: ['performance'],
  collateral: ['dead-code'],
  description: 'a script at the end of <body> that keeps the main thread busy for 2 s at load',
  apply(_page, edit) {
    edit.insertAtBodyEnd('<script>(function () { var t = performance.now(); while (performance.now() - t < 2000) {} })();</script>');
    return applied('inserted a 2 s busy loop before </body>');
  },
};

export const VISUAL_OPERATORS: readonly MutationOperator[] = [
  shiftCard,
  shiftBlock,
  emptyBlock,
  clashingPalette,
  restyleCard,
  insertOddCard,
  mixIconSize,
  mixIconSet,
  insertMixedIcons,
];
export const PERFORMANCE_OPERATORS: readonly MutationOperator[] = [syncLoop];
