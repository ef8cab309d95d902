/**
 * Element boxes found on a screenshot (layout-consistency's steps 2 and 3, metrics/visual/layout-consistency.ts
 * documents them; the fidelity metrics find blocks the same way): Canny edges on the blurred grey image, closed
 * with a 9×3 kernel, contours' bounding rectangles; kept when at least MIN_SIDE px a side and MIN_AREA px², at most
 * MAX_AREA_SHARE of the image and narrower than BANNER_WIDTH_SHARE of it (a banner is the page's, not an element);
 * a box inside a bigger kept one (within NEST_TOLERANCE px) is dropped.
 */
import { opencv, withMats, type Box } from './image-tools.js';

const MIN_SIDE = 12;
const MIN_AREA = 400;
const MAX_AREA_SHARE = 0.25;
const BANNER_WIDTH_SHARE = 0.85;
/** Px a box may stick out of another and still be inside it (also the overlap slack of neighbours). */
export const NEST_TOLERANCE = 2;

/** Element boxes from a grey image. */
export function detectBoxes(grey: { data: Uint8Array; width: number; height: number }): { boxes: Box[]; raw: number } {
  const cv = opencv();
  const rects: Box[] = withMats((track) => {
    const src = track(new cv.Mat(grey.height, grey.width, cv.CV_8UC1));
    src.data.set(grey.data);
    const blurred = track(new cv.Mat());
    cv.GaussianBlur(src, blurred, new cv.Size(3, 3), 0, 0, cv.BORDER_DEFAULT);
    const edges = track(new cv.Mat());
    cv.Canny(blurred, edges, 50, 150, 3, false);
    const kernel = track(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(9, 3)));
    const closed = track(new cv.Mat());
    cv.morphologyEx(edges, closed, cv.MORPH_CLOSE, kernel);
    const contours = track(new cv.MatVector());
    const hierarchy = track(new cv.Mat());
    cv.findContours(closed, contours, hierarchy, cv.RETR_LIST, cv.CHAIN_APPROX_SIMPLE);
    const out: Box[] = [];
    const n = contours.size() as number;
    for (let i = 0; i < n; i++) {
      const c = contours.get(i);
      const r = cv.boundingRect(c);
      c.delete();
      out.push({ x: r.x, y: r.y, width: r.width, height: r.height });
    }
    return out;
  });
  const area = grey.width * grey.height;
  const candidates = rects.filter(
    (r) =>
      r.width >= MIN_SIDE &&
      r.height >= MIN_SIDE &&
      r.width * r.height >= MIN_AREA &&
      r.width * r.height <= MAX_AREA_SHARE * area &&
      r.width < BANNER_WIDTH_SHARE * grey.width,
  );
  candidates.sort((a, b) => b.width * b.height - a.width * a.height || a.y - b.y || a.x - b.x);
  const kept: Box[] = [];
  for (const c of candidates) {
    if (kept.some((k) => contains(k, c, NEST_TOLERANCE))) continue;
    kept.push(c);
  }
  kept.sort((a, b) => a.y - b.y || a.x - b.x);
  return { boxes: kept, raw: rects.length };
}

function contains(outer: Box, inner: Box, tol: number): boolean {
  return (
    inner.x >= outer.x - tol &&
    inner.y >= outer.y - tol &&
    inner.x + inner.width <= outer.x + outer.width + tol &&
    inner.y + inner.height <= outer.y + outer.height + tol
  );
}
