/**
 * The in-page collector of the fidelity views (core/fidelity.ts): text blocks and non-text components of the
 * page as laid out at the current viewport. `collectView` runs in the page and must not reference anything
 * outside itself.
 *
 * Text blocks (UI2App's judge-free visual fidelity): a TreeWalker over every text node with non-space text under
 * `<body>`; the nodes are grouped by their parent element (the "text parent"). A parent is left out when it is
 * not rendered or hidden (`checkVisibility` with opacity and visibility: `display:none`, `visibility:hidden`,
 * `opacity:0` on it or an ancestor, `content-visibility` skipped), when it is `<script>`, `<style>`,
 * `<noscript>`, `<template>`, `<title>` or an `<option>` of a closed `<select>`, and when its text boxes lie wholly
 * left of the page (a `left:-9999px` screen-reader label). Box = union of the client rects of the parent's own text
 * nodes (not the parent's box: a `<div>` with text and children would be much larger than its text), in document
 * coordinates; colour = the parent's computed `color`; tag = its tag name. Only blocks whose top is within
 * `screens` viewport heights are kept. The text is the parent's own text nodes joined, whitespace collapsed, cut at
 * `keepChars` (the full length is kept too). The size, length and row-merging rules are the metric's
 * (metrics/fidelity/fidelity-tools.ts `prepareBlocks`), so they can be tested on recorded views.
 *
 * Components (CANVAS's component-wise comparison): every rendered element whose box is at least 4×4 px and starts
 * within `screens` viewport heights, classified as
 * - `image`: `<img>`, `<video>`, `<canvas>`, `<iframe>`, `<object>`, `<embed>`, and `<svg>` larger than 48 px on
 *   either side;
 * - `icon`: `<svg>` (outermost) at most 48 px on both sides, and icon-font glyphs (an `<i>`/`<span>` without text
 *   nodes, at most 48 px, with a `::before` content or an icon class such as `fa-`, `bi-`, `material-icons`);
 * - `input`: `<input>` (not hidden, not a button type), `<textarea>`, `<select>`;
 * - `button`: `<button>`, `<input type=submit|button|reset|image>`, `[role=button]`;
 * - `box`: any other element with a background image, or a background colour that differs from the effective
 *   background behind it (its nearest ancestor with a non-transparent background, white at the root) by more
 *   than 8 in any RGB channel (a white card on a white page is not a visible box). `<html>` and `<body>` are not
 *   components.
 * Colour: background colour for boxes, buttons and inputs, the `color` for icons, none for images.
 * Caps: at most `maxBlocks` text blocks and `maxComponents` components in document order (`truncated` says so).
 */
import type { ComponentKind, PageBox, Rgba, TextBlock, UiComponent } from '../../core/fidelity.js';

export interface CollectArgs {
  screens: number;
  keepChars: number;
  maxBlocks: number;
  maxComponents: number;
}

export interface CollectedView {
  viewport: { width: number; height: number };
  scrollWidth: number;
  scrollHeight: number;
  blocks: TextBlock[];
  components: UiComponent[];
  truncated: boolean;
}

export const COLLECT_ARGS: CollectArgs = { screens: 3, keepChars: 501, maxBlocks: 3000, maxComponents: 3000 };

/** Runs in the page. */
export function collectView(args: CollectArgs): CollectedView {
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const limitY = args.screens * vh;
  const sx = window.scrollX;
  const sy = window.scrollY;
  let truncated = false;

  const parse = (c: string): Rgba | null => {
    const m = /^rgba?\(\s*([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(c.trim());
    if (!m) return null;
    let a = 1;
    if (m[4] !== undefined) a = m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
    return [Math.round(+m[1]!), Math.round(+m[2]!), Math.round(+m[3]!), a];
  };
  const visible = (el: Element): boolean => {
    const e = el as Element & { checkVisibility?: (o: Record<string, boolean>) => boolean };
    if (typeof e.checkVisibility === 'function') return e.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true });
    const cs = getComputedStyle(el);
    return cs.display !== 'none' && cs.visibility !== 'hidden' && cs.opacity !== '0';
  };
  const docBox = (r: DOMRect): PageBox => ({ x: r.left + sx, y: r.top + sy, w: r.width, h: r.height });
  const round = (b: PageBox): PageBox => ({
    x: Math.round(b.x * 10) / 10,
    y: Math.round(b.y * 10) / 10,
    w: Math.round(b.w * 10) / 10,
    h: Math.round(b.h * 10) / 10,
  });

  // ---- text blocks
  const root = document.body ?? document.documentElement;
  const skipTags = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE', 'OPTION', 'OPTGROUP', 'DATALIST']);
  const groups = new Map<Element, Text[]>();
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (/\S/.test((n as Text).data) ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
  });
  let visited = 0;
  while (walker.nextNode()) {
    if (++visited > 200_000) {
      truncated = true;
      break;
    }
    const t = walker.currentNode as Text;
    const p = t.parentElement;
    if (!p || skipTags.has(p.tagName)) continue;
    const list = groups.get(p);
    if (list) list.push(t);
    else groups.set(p, [t]);
  }
  const blocks: TextBlock[] = [];
  const range = document.createRange();
  for (const [p, texts] of groups) {
    if (blocks.length >= args.maxBlocks) {
      truncated = true;
      break;
    }
    if (!visible(p)) continue;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const t of texts) {
      range.selectNodeContents(t);
      for (const r of Array.from(range.getClientRects())) {
        if (r.width <= 0 || r.height <= 0) continue;
        x0 = Math.min(x0, r.left);
        y0 = Math.min(y0, r.top);
        x1 = Math.max(x1, r.right);
        y1 = Math.max(y1, r.bottom);
      }
    }
    if (!Number.isFinite(x0)) continue;
    const box = docBox(new DOMRect(x0, y0, x1 - x0, y1 - y0));
    if (box.x + box.w <= 0 || box.y + box.h <= 0 || box.y >= limitY) continue;
    const full = texts
      .map((t) => t.data)
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (!full) continue;
    const color = parse(getComputedStyle(p).color) ?? [0, 0, 0, 1];
    blocks.push({ ...round(box), text: full.slice(0, args.keepChars), length: full.length, color, tag: p.tagName.toLowerCase() });
  }

  // ---- components
  const components: UiComponent[] = [];
  const bgCache = new Map<Element, Rgba>();
  /** The opaque-ish background behind an element: its nearest ancestor's non-transparent background colour. */
  const behind = (el: Element | null): Rgba => {
    if (!el) return [255, 255, 255, 1];
    const have = bgCache.get(el);
    if (have) return have;
    const c = parse(getComputedStyle(el).backgroundColor);
    const out = c && c[3] > 0.05 ? c : behind(el.parentElement);
    bgCache.set(el, out);
    return out;
  };
  const iconClass =
    /(^|\s)(fa|fas|far|fab|fa-[\w-]+|bi|bi-[\w-]+|material-icons[\w-]*|material-symbols[\w-]*|icon|icon-[\w-]+|glyphicon[\w-]*|ti|ti-[\w-]+|ri-[\w-]+|las|la-[\w-]+)(\s|$)/;
  const buttonInput = new Set(['submit', 'button', 'reset', 'image']);
  const all = root.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    if (components.length >= args.maxComponents) {
      truncated = true;
      break;
    }
    const el = all[i]!;
    const tag = el.tagName.toLowerCase();
    if (tag === 'html' || tag === 'body' || skipTags.has(el.tagName) || tag === 'br') continue;
    // inside an svg: the outer svg is the component
    if (el.parentElement && el.parentElement.closest('svg')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) continue;
    const box = docBox(r);
    if (box.y >= limitY || box.x + box.w <= 0 || box.y + box.h <= 0) continue;
    let kind: ComponentKind | null = null;
    let color: Rgba | undefined;
    const cs = getComputedStyle(el);
    if (tag === 'img' || tag === 'video' || tag === 'canvas' || tag === 'iframe' || tag === 'object' || tag === 'embed') kind = 'image';
    else if (tag === 'svg') {
      if (r.width <= 48 && r.height <= 48) {
        kind = 'icon';
        color = parse(cs.color) ?? undefined;
      } else kind = 'image';
    } else if (tag === 'input') {
      const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
      if (type === 'hidden') continue;
      kind = buttonInput.has(type) ? 'button' : 'input';
    } else if (tag === 'textarea' || tag === 'select') kind = 'input';
    else if (tag === 'button' || el.getAttribute('role') === 'button') kind = 'button';
    else if (
      (tag === 'i' || tag === 'span') &&
      r.width <= 48 &&
      r.height <= 48 &&
      !Array.from(el.childNodes).some((n) => n.nodeType === 3 && /\S/.test(n.textContent ?? ''))
    ) {
      const before = getComputedStyle(el, '::before').content;
      if ((before && before !== 'none' && before !== 'normal' && before !== '""') || iconClass.test(el.getAttribute('class') ?? '')) {
        kind = 'icon';
        color = parse(cs.color) ?? undefined;
      }
    }
    if (kind === null) {
      const bg = parse(cs.backgroundColor);
      const hasImage = cs.backgroundImage !== 'none' && cs.backgroundImage !== '';
      if (hasImage) kind = 'box';
      else if (bg && bg[3] > 0.05) {
        const under = behind(el.parentElement);
        if (Math.max(Math.abs(bg[0] - under[0]), Math.abs(bg[1] - under[1]), Math.abs(bg[2] - under[2])) > 8) kind = 'box';
      }
      if (kind === 'box') color = bg && bg[3] > 0.05 ? bg : undefined;
    } else if (kind === 'button' || kind === 'input') {
      const bg = parse(cs.backgroundColor);
      color = bg && bg[3] > 0.05 ? bg : behind(el.parentElement);
    }
    if (kind === null) continue;
    if (!visible(el)) continue;
    const c: UiComponent = { ...round(box), kind, tag };
    if (color) c.color = color;
    components.push(c);
  }
  const de = document.documentElement;
  return {
    viewport: { width: vw, height: vh },
    scrollWidth: Math.max(de.scrollWidth, document.body ? document.body.scrollWidth : 0),
    scrollHeight: Math.max(de.scrollHeight, document.body ? document.body.scrollHeight : 0),
    blocks,
    components,
    truncated,
  };
}
