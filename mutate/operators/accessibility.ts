/**
 * Operators for the accessibility perspective: accessibility (Lighthouse), mobile-compat, cross-browser.
 */
import { firstBodyBlock, firstTextElement } from '../find.js';
import { applied, notApplicable, type MutationOperator } from '../operator.js';
import type { PageModel } from '../page.js';

export const removeAlt: MutationOperator = {
  id: 'remove-alt',
  targets: ['accessibility', 'media-quality'],
  description: 'the alt attribute removed from every <img> that has one',
  apply(page, edit) {
    const imgs = page.elements('img[alt]');
    if (imgs.length === 0) return notApplicable('no <img> has an alt attribute');
    for (const img of imgs) edit.removeAttribute(img, 'alt');
    return applied(`removed alt from ${imgs.length} <img>`);
  },
};

const LABELLED_BY = ['aria-label', 'aria-labelledby', 'title', 'placeholder'];
export const MISSING_ID = 'webgrade-mutant-missing';

export const removeLabels: MutationOperator = {
  id: 'remove-labels',
  targets: ['accessibility'],
  description: `form controls left without a name: every <label> pointed at no control (for="${MISSING_ID}"), aria-label/aria-labelledby/title/placeholder removed from controls`,
  apply(page, edit) {
    const controls = page
      .elements('input, select, textarea')
      .filter((c) => !(c.localName === 'input' && ['hidden', 'submit', 'button', 'reset', 'image'].includes((c.getAttribute('type') ?? '').toLowerCase())));
    if (controls.length === 0) return notApplicable('the page has no form control');
    let labels = 0;
    let attrs = 0;
    for (const label of page.elements('label')) {
      const control = label.hasAttribute('for') ? page.doc.getElementById(label.getAttribute('for') ?? '') : label.querySelector('input, select, textarea');
      if (!control || !controls.includes(control)) continue;
      edit.setAttribute(label, 'for', MISSING_ID);
      labels++;
    }
    for (const c of controls) {
      for (const a of LABELLED_BY) {
        if (!c.hasAttribute(a)) continue;
        edit.removeAttribute(c, a);
        attrs++;
      }
    }
    if (labels + attrs === 0) return notApplicable('no form control has a label, aria-label, title or placeholder');
    return applied(`${labels} <label> unlinked, ${attrs} naming attributes removed from ${controls.length} controls`);
  },
};

export const removeLang: MutationOperator = {
  id: 'remove-lang',
  targets: ['accessibility'],
  description: 'the lang attribute removed from <html>',
  apply(page, edit) {
    const html = page.doc.documentElement;
    if (!html.hasAttribute('lang') || !page.located(html)) return notApplicable('<html> has no lang attribute');
    edit.removeAttribute(html, 'lang');
    if (html.hasAttribute('xml:lang')) edit.removeAttribute(html, 'xml:lang');
    return applied('removed lang from <html>');
  },
};

/** Grey at 30 % opacity: nearly the colour of whatever is behind it, so contrast is about 1.3:1 on any background. */
export const FAINT_TEXT = 'color: rgb(128 128 128 / 0.3) !important;';

export const lowContrast: MutationOperator = {
  id: 'low-contrast',
  targets: ['accessibility'],
  collateral: ['layout-consistency', 'layout-sparsity', 'color-harmony', 'visual-experience'],
  description: 'the first paragraph (else heading, list item, label, cell, link or button) with text given faint text: rgb(128 128 128 / 0.3)',
  apply(page, edit) {
    const el = firstTextElement(page, 'p') ?? firstTextElement(page, 'h1, h2, h3, h4, h5, h6, li, label, td, th, a, button, span, div');
    if (!el) return notApplicable('no element with text in <body>');
    edit.addInlineStyle(el, FAINT_TEXT);
    return applied(`<${el.localName}> "${(el.textContent ?? '').trim().slice(0, 30)}" given faint text`);
  },
};

/** The emulated phone's width (mobile-compat: iPhone 12 Pro) and Chrome's layout width for a page without a viewport. */
export const PHONE_WIDTH = 390;
export const DESKTOP_LAYOUT_WIDTH = 980;

/**
 * The width mobile Chrome lays the page out at: a page without `<meta name="viewport">` (or one that sets neither
 * width nor initial-scale) gets the 980 px desktop layout viewport, zoomed out to fit the phone, so a block
 * narrower than that overflows nothing; `width=device-width` or an initial-scale alone gives the phone's width;
 * `width=N` gives N (Chrome clamps it to 1–10000). Read from the last viewport meta, as Chrome does.
 */
export function layoutViewportWidth(page: PageModel): { width: number; why: string } {
  const metas = Array.from(page.doc.querySelectorAll('meta[name]')).filter((m) => (m.getAttribute('name') ?? '').trim().toLowerCase() === 'viewport');
  const meta = metas[metas.length - 1];
  if (!meta) return { width: DESKTOP_LAYOUT_WIDTH, why: 'no viewport meta: laid out 980 px wide' };
  const content = (meta.getAttribute('content') ?? '').toLowerCase();
  const props = new Map<string, string>();
  for (const part of content.split(/[,;]/)) {
    const [k, v] = part.split('=').map((x) => x.trim());
    if (k) props.set(k, v ?? '');
  }
  const width = props.get('width');
  if (width === 'device-width') return { width: PHONE_WIDTH, why: 'viewport width=device-width' };
  const n = width !== undefined ? parseFloat(width) : NaN;
  if (Number.isFinite(n) && n >= 1) return { width: Math.min(10000, Math.round(n)), why: `viewport width=${Math.round(n)}` };
  if (props.has('initial-scale')) return { width: PHONE_WIDTH, why: 'viewport initial-scale without a width: the device width' };
  return { width: DESKTOP_LAYOUT_WIDTH, why: 'viewport meta without width or initial-scale: laid out 980 px wide' };
}

/** How far past the layout viewport the widened block reaches: enough to floor mobile-compat from any score. */
export const WIDE_MARGIN = 220;

export const wideBlock: MutationOperator = {
  id: 'wide-block',
  targets: ['mobile-compat'],
  collateral: ['layout-consistency', 'layout-sparsity', 'color-harmony', 'visual-experience', 'accessibility'],
  description: `the first block-level child of <body> given a min-width ${WIDE_MARGIN} px wider than the page's layout viewport on a phone (600 px with width=device-width; 1200 px without a viewport meta, where Chrome lays the page out 980 px wide)`,
  apply(page, edit) {
    const el = firstBodyBlock(page);
    if (!el) return notApplicable('<body> has no block-level child in the source');
    const layout = layoutViewportWidth(page);
    // a 390 px phone keeps the long-standing 600 px (the fixtures' and earlier runs' edit)
    const min = layout.width === PHONE_WIDTH ? 600 : layout.width + WIDE_MARGIN;
    if (min > 10000) return notApplicable(`the page's layout viewport is ${layout.width} px wide (${layout.why}): no block can overflow it`);
    edit.addInlineStyle(el, `min-width: ${min}px;`);
    return applied(`<${el.localName}${el.id ? `#${el.id}` : ''}> given min-width: ${min}px (${layout.why})`);
  },
};

/** A CSS property none of the target browsers of May 2024 but Chrome has: `field-sizing` (Chrome 123; Firefox, Safari: no). */
export const UNSUPPORTED_CSS = 'field-sizing: content';

export const unsupportedCss: MutationOperator = {
  id: 'unsupported-css',
  targets: ['cross-browser'],
  collateral: ['dead-code'],
  description: `\`${UNSUPPORTED_CSS}\` added to the page's body/html/:root rule (Firefox and Safari of the target set lack it)`,
  apply(page, edit) {
    for (const block of page.cssBlocks()) {
      if (!page.writable(block.file)) continue;
      let done = false;
      page.css(block)?.walkRules((rule) => {
        if (done || rule.parent?.type !== 'root') return;
        const sel = rule.selector.trim().toLowerCase();
        if (!['body', 'html', ':root', 'html, body', 'html,body'].includes(sel)) return;
        const end = rule.source?.end?.offset;
        if (end === undefined) return;
        const close = block.offset + end - 1; // the rule's closing brace
        if (block.text[end - 1] !== '}') return;
        const semi = rule.nodes.length > 0 && !rule.raws.semicolon ? ';' : '';
        edit.ms(block.file).appendLeft(close, `${semi}${UNSUPPORTED_CSS};`);
        done = true;
      });
      if (done) return applied(`${block.file}: ${UNSUPPORTED_CSS} added to the page's root rule`);
    }
    edit.insertInHead(`<style>body{${UNSUPPORTED_CSS}}</style>`);
    return applied(`inserted <style>body{${UNSUPPORTED_CSS}}</style> in <head> (no body/html/:root rule)`);
  },
};

/** A JS API none of the target browsers of May 2024 has: `Promise.try` (Chrome 128, Firefox 134, Safari 18.2). */
export const unsupportedJs: MutationOperator = {
  id: 'unsupported-js',
  targets: ['cross-browser'],
  collateral: ['dead-code'],
  description: 'a script at the end of <body> that calls Promise.try (newer than every target browser)',
  apply(_page, edit) {
    edit.insertAtBodyEnd('<script>Promise.try(function () {});</script>');
    return applied('inserted <script>Promise.try(...)</script> before </body>');
  },
};

export const ACCESSIBILITY_OPERATORS: readonly MutationOperator[] = [
  removeAlt,
  removeLabels,
  removeLang,
  lowContrast,
  wideBlock,
  unsupportedCss,
  unsupportedJs,
];
