/**
 * Canvas pixels, read from the probe's isolated world: each canvas is copied onto a scratch canvas of ours and
 * hashed there (a drawing that changes is an effect), without calling `getContext` on the page's canvas (which
 * would create a context on a canvas the page has not drawn on yet). Which context a canvas has is known only
 * in the page's world (the main-world agent hooks `getContext`, and gives WebGL contexts `preserveDrawingBuffer`
 * so their pixels can be read after the frame); the host passes that list along (`setKinds`). A WebGL canvas is
 * read scaled down to GL_READ_PX (its read back costs seconds at full screen on a software GPU); a change that
 * scaling averages away is missed, which a scene's moving parts rarely are. The kinds are a hint: a wrong one
 * only changes the scale of a read.
 */

/** The context kind of each canvas in document order, as the main-world agent last reported them. */
let kinds: readonly string[] = [];
let scratch: HTMLCanvasElement | undefined;

export function setKinds(k: unknown): void {
  kinds = Array.isArray(k) ? k.map((x) => String(x)) : [];
}

/** The kind of context a canvas was given ('2d', 'webgl'), or undefined when none was (or it is unknown). */
export function canvasKindOf(c: HTMLCanvasElement): string | undefined {
  const i = Array.prototype.indexOf.call(document.querySelectorAll('canvas'), c);
  const k = i >= 0 ? kinds[i] : undefined;
  return k ? k : undefined;
}

/** A WebGL canvas is read at most this many pixels wide or high (a GPU read back of a full screen is slow). */
const GL_READ_PX = 320;

function pixelsOf(c: HTMLCanvasElement, kind: string | undefined, wdt: number, hgt: number): Uint8ClampedArray {
  const k = kind === 'webgl' ? Math.min(1, GL_READ_PX / Math.max(wdt, hgt)) : 1;
  const sw = Math.max(1, Math.round(wdt * k));
  const sh = Math.max(1, Math.round(hgt * k));
  scratch ??= document.createElement('canvas');
  scratch.width = sw;
  scratch.height = sh;
  const x = scratch.getContext('2d', { willReadFrequently: true })!;
  x.clearRect(0, 0, sw, sh);
  x.drawImage(c, 0, 0, sw, sh);
  return x.getImageData(0, 0, sw, sh).data;
}

/** Canvas pixels: a hash, and whether it drew anything (not one colour throughout). */
export function canvasPixels(c: HTMLCanvasElement): { hash: string; drawn: boolean } {
  try {
    const wdt = c.width;
    const hgt = c.height;
    if (!wdt || !hgt) return { hash: 'empty', drawn: false };
    const data = pixelsOf(c, canvasKindOf(c), wdt, hgt);
    const u = new Uint32Array(data.buffer, data.byteOffset, data.byteLength >> 2);
    let h = 0x811c9dc5;
    let drawn = false;
    const first = u[0];
    for (let i = 0; i < u.length; i++) {
      const v = u[i]!;
      if (v !== first) drawn = true;
      h = Math.imul(h ^ v, 0x01000193);
    }
    return { hash: (h >>> 0).toString(16), drawn };
  } catch {
    scratch = undefined; // a tainted copy leaves our scratch canvas unreadable: the next read makes a new one
    return { hash: 'tainted', drawn: true };
  }
}
