/** The first view (render-validity): what shows once the page has loaded and settled, before any action. */
import { canvasPixels } from './canvas.js';
import { disabled, rendered, visible } from './dom.js';
import { errs } from './errors.js';

/** Visible pictures by kind, and the visible canvases that drew nothing. */
function visuals(all: Element[]): { byKind: { svg: number; img: number; canvas: number; video: number }; blank: number } {
  const byKind = { svg: 0, img: 0, canvas: 0, video: 0 };
  let blank = 0;
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'svg') {
      if (el.parentElement?.closest('svg')) continue;
      if (visible(el)) byKind.svg++;
    } else if (tag === 'img') {
      const img = el as HTMLImageElement;
      if (img.complete && img.naturalWidth > 0 && visible(el)) byKind.img++;
    } else if (tag === 'canvas') {
      if (!visible(el)) continue;
      if (canvasPixels(el as HTMLCanvasElement).drawn) byKind.canvas++;
      else blank++;
    } else if (tag === 'video') {
      if (visible(el)) byKind.video++;
    }
  }
  return { byKind, blank };
}

export function firstView() {
  const body = document.body;
  const all = body ? Array.from(body.querySelectorAll('*')) : [];
  // innerText of a body that is not rendered (display: none on it or on <html>) is its source text, not what
  // shows: no visible text then.
  const shown = !!body && rendered(body) && body.getClientRects().length > 0;
  const txt = shown ? (body.innerText ?? '').replace(/\s+/g, ' ').trim() : '';
  const { byKind, blank } = visuals(all);
  const interactive = body
    ? Array.from(body.querySelectorAll('button, input:not([type=hidden]), textarea, select, a[href], [role=button]')).filter((el) => !disabled(el) && visible(el)).length
    : 0;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
  const before = errs.filter((e) => fcp === null || e.t < fcp).map((e) => ({ kind: e.kind, message: e.message.slice(0, 300) }));
  return {
    elements: all.length,
    textChars: txt.length,
    visuals: byKind.svg + byKind.img + byKind.canvas + byKind.video,
    visualsByKind: byKind,
    blankCanvases: blank,
    interactive,
    firstPaintMs: fcp === null ? null : Math.round(fcp),
    errorsBeforeRender: before,
    loaded: document.readyState === 'complete',
  };
}
