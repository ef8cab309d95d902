/**
 * Operators for the visual perspective (layout-consistency, layout-sparsity, color-harmony,
 * component-consistency, icon-consistency) and performance.
 */
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
  description: 'the first child with text (its title) of the second member of the first group of repeated components restyled (its own font size, weight, spacing)',
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

export const VISUAL_OPERATORS: readonly MutationOperator[] = [shiftCard, emptyBlock, clashingPalette, restyleCard, mixIconSize, mixIconSet];
export const PERFORMANCE_OPERATORS: readonly MutationOperator[] = [syncLoop];
