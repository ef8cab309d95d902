/**
 * In-page collector for `icons` (BrowserEvidence.icons: IconInfo[]): what the page's icons look like after load.
 *
 * What counts as an icon (documented choices):
 * - `svg`: an inline `<svg>` whose rendered box is between 8 and 64 CSS px on both sides (larger SVGs are
 *   illustrations or charts), not inside another counted icon. Set: `lucide`/`feather`/`heroicons`/`tabler`/
 *   `bootstrap-icons`/`phosphor` when a class or data attribute names it, else `inline-svg`. Stroke width: the
 *   computed `stroke-width` of the first stroked shape when the icon is stroked (`stroke` not `none`), else null
 *   (a filled icon).
 * - `font`: an `<i>` or `<span>` with an icon-font class (Font Awesome `fa`/`fa-*`, Bootstrap Icons `bi-*`,
 *   Material Icons/Symbols, Boxicons `bx`, Remix `ri-*`, Ionicons, Phosphor `ph`, Tabler `ti-*`, Line Awesome,
 *   Glyphicons). `rendered` is false when the element has no box or its font family is not available
 *   (`document.fonts.check`): offline, a CDN icon font never loads, and the metric must not guess its size.
 * - `img-svg`: an `<img>` of at most 64 px whose source is an `.svg` file or an `icon` path/name.
 * - `emoji`: a button, link, list item, span or label whose whole visible text is one or two emoji.
 * Per icon: its box (CSS px), and its "background": the icon's own wrapper (the icon element, or its parent
 * when the parent holds nothing else) when that wrapper has a background colour or a border: shape from the
 * border radius (`circle` when the radius ≥ half the shorter side, `rounded` when > 2 px, else `square`),
 * colour (computed), and padding (mean of the four paddings, or the gap around the icon inside the wrapper).
 * `container`: the selector of the nearest ancestor that holds at least one other icon: the grouping key.
 * At most 400 icons.
 */
import type { IconInfo } from '../../core/browser-evidence.js';
import type { PageCollector } from './collector.js';

/** Runs in the page: must not reference anything outside itself. */
export function collectIcons(arg: unknown): IconInfo[] {
  const MAX = ((arg ?? {}) as { max?: number }).max ?? 400;
  const FONT_CLASS =
    /^(fa|fas|far|fab|fal|fad|fa-solid|fa-regular|fa-brands|bi|bx|bxs|bxl|material-icons(-outlined|-round|-sharp|-two-tone)?|material-symbols-(outlined|rounded|sharp)|ri-.+|ion-.+|ph|ph-.+|ti|ti-.+|la|las|lar|lab|glyphicon|icon-.+)$/;
  const SET_OF_CLASS: Array<[RegExp, string]> = [
    [/^(fa|fas|far|fab|fal|fad|fa-.+)$/, 'font-awesome'],
    [/^bi(-.+)?$/, 'bootstrap-icons'],
    [/^material-icons/, 'material-icons'],
    [/^material-symbols/, 'material-symbols'],
    [/^(bx|bxs|bxl)$/, 'boxicons'],
    [/^ri-/, 'remixicon'],
    [/^ion-/, 'ionicons'],
    [/^ph(-.+)?$/, 'phosphor'],
    [/^ti(-.+)?$/, 'tabler'],
    [/^(la|las|lar|lab)$/, 'line-awesome'],
    [/^glyphicon/, 'glyphicons'],
    [/^icon-/, 'icon-font'],
  ];
  const SVG_SETS: Array<[RegExp, string]> = [
    [/lucide/, 'lucide'],
    [/feather/, 'feather'],
    [/heroicon/, 'heroicons'],
    [/tabler/, 'tabler'],
    [/bi-|bootstrap/, 'bootstrap-icons'],
    [/phosphor|ph-/, 'phosphor'],
  ];
  const EMOJI = /^(?:\p{Extended_Pictographic}(?:\uFE0F|\u200D\p{Extended_Pictographic}|\p{Emoji_Modifier})*\s*){1,2}$/u;

  function cssPath(el: Element): string {
    const parts: string[] = [];
    let cur: Element | null = el;
    while (cur && cur.nodeType === 1 && parts.length < 5) {
      let part = cur.tagName.toLowerCase();
      if (cur.id) {
        parts.unshift(`${part}#${cur.id}`);
        break;
      }
      const cls = Array.from(cur.classList).slice(0, 2);
      if (cls.length) part += '.' + cls.join('.');
      const parent: Element | null = cur.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.tagName === cur!.tagName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(cur) + 1})`;
      }
      parts.unshift(part);
      cur = parent;
    }
    return parts.join(' > ');
  }
  const px = (v: string) => parseFloat(v) || 0;
  function background(icon: Element): IconInfo['background'] {
    const parent = icon.parentElement;
    const wrappers: Element[] = [icon];
    if (parent && parent.children.length === 1 && (parent.textContent ?? '').trim() === (icon.textContent ?? '').trim()) wrappers.push(parent);
    for (const w of wrappers) {
      const cs = getComputedStyle(w);
      const bg = cs.backgroundColor;
      const hasBg = bg && bg !== 'transparent' && !/rgba\(\s*\d+,\s*\d+,\s*\d+,\s*0\s*\)/.test(bg);
      const hasBorder = px(cs.borderTopWidth) > 0 && cs.borderTopStyle !== 'none';
      if (!hasBg && !hasBorder) continue;
      const r = w.getBoundingClientRect();
      const radius = px(cs.borderTopLeftRadius);
      const shape = radius >= Math.min(r.width, r.height) / 2 - 0.5 ? 'circle' : radius > 2 ? 'rounded' : 'square';
      let padding = (px(cs.paddingTop) + px(cs.paddingRight) + px(cs.paddingBottom) + px(cs.paddingLeft)) / 4;
      if (w !== icon) {
        const ir = icon.getBoundingClientRect();
        padding = Math.max(padding, Math.min(ir.left - r.left, r.right - ir.right, ir.top - r.top, r.bottom - ir.bottom));
      }
      return { shape, color: hasBg ? bg : cs.borderTopColor, padding: Math.round(padding * 10) / 10 };
    }
    return null;
  }
  function fontAvailable(el: Element): boolean {
    const family = getComputedStyle(el, '::before').fontFamily || getComputedStyle(el).fontFamily;
    const first = family
      .split(',')[0]!
      .trim()
      .replace(/^["']|["']$/g, '');
    if (!first) return false;
    try {
      return (
        document.fonts.check(`16px "${first}"`) &&
        Array.from(document.fonts).some((f) => f.family.replace(/^["']|["']$/g, '') === first && f.status === 'loaded')
      );
    } catch {
      return false;
    }
  }

  const found: Array<{ el: Element; info: Omit<IconInfo, 'container'> }> = [];
  const taken = new Set<Element>();
  const push = (el: Element, info: Omit<IconInfo, 'container'>) => {
    if (found.length >= MAX || taken.has(el)) return;
    taken.add(el);
    found.push({ el, info });
  };
  const box = (el: Element) => el.getBoundingClientRect();

  for (const svg of Array.from(document.querySelectorAll('svg'))) {
    const r = box(svg);
    if (r.width < 8 || r.height < 8 || r.width > 64 || r.height > 64) continue;
    if (svg.parentElement?.closest('svg')) continue;
    const names = `${svg.getAttribute('class') ?? ''} ${Array.from(svg.attributes)
      .map((a) => a.name)
      .join(' ')}`.toLowerCase();
    const set = SVG_SETS.find(([re]) => re.test(names))?.[1] ?? 'inline-svg';
    const shape = svg.querySelector('path, circle, rect, line, polyline, polygon, ellipse');
    let strokeWidth: number | null = null;
    for (const el of [shape, svg]) {
      if (!el) continue;
      const cs = getComputedStyle(el);
      if (cs.stroke && cs.stroke !== 'none') {
        strokeWidth = Math.round(px(cs.strokeWidth) * 100) / 100;
        break;
      }
    }
    push(svg, {
      selector: cssPath(svg),
      type: 'svg',
      set,
      width: Math.round(r.width),
      height: Math.round(r.height),
      strokeWidth,
      background: background(svg),
      rendered: true,
    });
  }
  for (const el of Array.from(document.querySelectorAll('i, span'))) {
    const classes = Array.from(el.classList);
    if (!classes.some((c) => FONT_CLASS.test(c))) continue;
    const set = classes.map((c) => SET_OF_CLASS.find(([re]) => re.test(c))?.[1]).find(Boolean) ?? 'icon-font';
    const r = box(el);
    const rendered = r.width > 0 && r.height > 0 && fontAvailable(el);
    push(el, {
      selector: cssPath(el),
      type: 'font',
      set,
      width: Math.round(r.width),
      height: Math.round(r.height),
      strokeWidth: null,
      background: background(el),
      rendered,
    });
  }
  for (const img of Array.from(document.querySelectorAll('img'))) {
    const r = box(img);
    const src = (img.getAttribute('src') ?? '').toLowerCase();
    if (r.width === 0 || r.width > 64 || r.height > 64) continue;
    if (!/\.svg(\?|#|$)|icon/.test(src + ' ' + (img.getAttribute('class') ?? '').toLowerCase())) continue;
    push(img, {
      selector: cssPath(img),
      type: 'img-svg',
      set: 'img',
      width: Math.round(r.width),
      height: Math.round(r.height),
      strokeWidth: null,
      background: background(img),
      rendered: (img as HTMLImageElement).naturalWidth > 0,
    });
  }
  for (const el of Array.from(document.querySelectorAll('button, a, li, span, label, div'))) {
    if (el.children.length > 0) continue;
    const text = (el.textContent ?? '').trim();
    if (!text || !EMOJI.test(text)) continue;
    const r = box(el);
    if (r.width === 0) continue;
    const fontSize = px(getComputedStyle(el).fontSize);
    push(el, {
      selector: cssPath(el),
      type: 'emoji',
      set: 'emoji',
      width: Math.round(fontSize),
      height: Math.round(fontSize),
      strokeWidth: null,
      background: background(el),
      rendered: true,
    });
  }

  // container: nearest ancestor holding at least one other icon
  const els = found.map((f) => f.el);
  return found.map(({ el, info }) => {
    let container: Element | null = el.parentElement;
    while (container && container !== document.body && !els.some((o) => o !== el && container!.contains(o))) container = container.parentElement;
    return { ...info, container: container && container !== document.documentElement ? cssPath(container) : 'body' };
  });
}

export const iconsCollector: PageCollector = {
  key: 'icons',
  fn: collectIcons as (arg: unknown) => unknown,
  arg: { max: 400 },
};
