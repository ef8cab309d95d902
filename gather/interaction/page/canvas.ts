/**
 * Canvas pixels: WebGL contexts are created with `preserveDrawingBuffer` so that their pixels can be read after
 * the frame, and each canvas's pixels are hashed (a drawing that changes is an effect). A WebGL canvas is read
 * scaled down to GL_READ_PX (its read back costs seconds at full screen on a software GPU); a change that
 * scaling averages away is missed, which a scene's moving parts rarely are.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
/** Which kind of context each canvas was given (pixels are read differently; none: nothing drawn). */
const canvasKind = new WeakMap<HTMLCanvasElement, string>();
let scratch: HTMLCanvasElement;

export function installCanvas(): void {
  try {
    const getCtx = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, attrs?: Record<string, unknown>) {
      if (/webgl/i.test(String(type))) {
        canvasKind.set(this, 'webgl');
        return (getCtx as any).call(this, type, { ...(attrs ?? {}), preserveDrawingBuffer: true });
      }
      if (type === '2d' && !canvasKind.has(this)) canvasKind.set(this, '2d');
      return (getCtx as any).call(this, type, attrs);
    } as typeof getCtx;
  } catch {
    /* leave it */
  }
}

/** The kind of context a canvas was given ('2d', 'webgl'), or undefined when none was. */
export const canvasKindOf = (c: HTMLCanvasElement): string | undefined => canvasKind.get(c);

/** The canvas the pixels of a WebGL (or bitmap) canvas are copied to for reading; made at install time. */
export function makeScratch(): void {
  scratch = document.createElement('canvas');
}

/** A WebGL canvas is read at most this many pixels wide or high (a GPU read back of a full screen is slow). */
const GL_READ_PX = 320;

function pixelsOf(c: HTMLCanvasElement, kind: string, wdt: number, hgt: number): Uint8ClampedArray {
  if (kind === '2d') return c.getContext('2d')!.getImageData(0, 0, wdt, hgt).data;
  const k = Math.min(1, GL_READ_PX / Math.max(wdt, hgt));
  const sw = Math.max(1, Math.round(wdt * k));
  const sh = Math.max(1, Math.round(hgt * k));
  scratch.width = sw;
  scratch.height = sh;
  const x = scratch.getContext('2d')!;
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
    const kind = canvasKind.get(c);
    if (!kind) return { hash: 'unused', drawn: false };
    const data = pixelsOf(c, kind, wdt, hgt);
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
    return { hash: 'tainted', drawn: true };
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */
