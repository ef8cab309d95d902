/**
 * The first view (render-validity): what shows once the page has loaded and settled, before any action. Read in
 * the probe's isolated world; the errors raised before the first paint come from the browser's protocol (the
 * host adds them: driver.ts).
 */
import { canvasKindOf, canvasPixels } from './canvas.js';
import { disabled, rendered, visible } from './dom.js';

type Kind = 'svg' | 'img' | 'canvas' | 'video';
type Box = { kind: Kind; x: number; y: number; width: number; height: number; drawn?: boolean };

/** Where a visual shows in the viewport (its content box, clipped), or null when it is outside it. */
function inViewport(el: Element, kind: Kind, drawn?: boolean): Box | null {
  const r = el.getBoundingClientRect();
  const h = el as HTMLElement;
  const left = r.left + (h.clientLeft || 0);
  const top = r.top + (h.clientTop || 0);
  const x = Math.max(0, Math.round(left));
  const y = Math.max(0, Math.round(top));
  const right = Math.min(innerWidth, Math.round(left + (h.clientWidth || r.width)));
  const bottom = Math.min(innerHeight, Math.round(top + (h.clientHeight || r.height)));
  if (right - x < 2 || bottom - y < 2) return null;
  return { kind, x, y, width: right - x, height: bottom - y, ...(drawn !== undefined ? { drawn } : {}) };
}

/**
 * Visible pictures by kind, the visible canvases that drew nothing (read back from the canvas), and where the
 * visuals show in the viewport (the host reads those regions of the screenshot: a canvas counts by what shows).
 */
function visuals(all: Element[]): { byKind: Record<Kind, number>; blank: number; boxes: Box[] } {
  const byKind = { svg: 0, img: 0, canvas: 0, video: 0 };
  let blank = 0;
  const boxes: Box[] = [];
  const keep = (el: Element, kind: Kind, drawn?: boolean) => {
    const b = boxes.length < 30 ? inViewport(el, kind, drawn) : null;
    if (b) boxes.push(b);
  };
  for (const el of all) {
    const tag = el.tagName.toLowerCase();
    if (tag === 'svg') {
      if (el.parentElement?.closest('svg')) continue;
      if (!visible(el)) continue;
      byKind.svg++;
      keep(el, 'svg');
    } else if (tag === 'img') {
      const img = el as HTMLImageElement;
      if (!(img.complete && img.naturalWidth > 0 && visible(el))) continue;
      byKind.img++;
      keep(el, 'img');
    } else if (tag === 'canvas') {
      if (!visible(el)) continue;
      // A WebGL canvas is not read back here: the read waits for the software GPU to draw every queued frame
      // (seconds on a loaded machine); the screenshot tells whether it drew (drawn left unknown).
      if (canvasKindOf(el as HTMLCanvasElement) === 'webgl') {
        keep(el, 'canvas');
        continue;
      }
      const drawn = canvasPixels(el as HTMLCanvasElement).drawn;
      if (drawn) byKind.canvas++;
      else blank++;
      keep(el, 'canvas', drawn);
    } else if (tag === 'video') {
      if (!visible(el)) continue;
      byKind.video++;
      keep(el, 'video');
    }
  }
  return { byKind, blank, boxes };
}

export function firstView() {
  const body = document.body;
  const all = body ? Array.from(body.querySelectorAll('*')) : [];
  // innerText of a body that is not rendered (display: none on it or on <html>) is its source text, not what
  // shows: no visible text then.
  const shown = !!body && rendered(body) && body.getClientRects().length > 0;
  const txt = shown ? (body.innerText ?? '').replace(/\s+/g, ' ').trim() : '';
  const { byKind, blank, boxes } = visuals(all);
  const interactive = body
    ? Array.from(body.querySelectorAll('button, input:not([type=hidden]), textarea, select, a[href], [role=button]')).filter(
        (el) => !disabled(el) && visible(el),
      ).length
    : 0;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
  return {
    elements: all.length,
    textChars: txt.length,
    visuals: byKind.svg + byKind.img + byKind.canvas + byKind.video,
    visualsByKind: byKind,
    blankCanvases: blank,
    visualBoxes: boxes,
    interactive,
    firstPaintMs: fcp === null ? null : Math.round(fcp),
    /** Epoch ms of the first contentful paint: the host counts the errors the browser reported before it. */
    firstPaintEpochMs: fcp === null ? null : performance.timeOrigin + fcp,
    loaded: document.readyState === 'complete',
  };
}
