/**
 * The picture formats webgrade checks by their first bytes (magic numbers), never by a file name or a declared
 * type: what a page, a data URI, a reference or a results file claims is a picture must begin as one.
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The format the bytes begin as (PNG, JPEG, GIF or WebP), or null. */
export function imageFormat(b: Uint8Array): ImageFormat | null {
  if (b.length >= 8 && PNG.every((x, i) => b[i] === x)) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  const ascii = (from: number, to: number) => Buffer.from(b.subarray(from, to)).toString('latin1');
  if (b.length >= 6 && /^GIF8[79]a$/.test(ascii(0, 6))) return 'gif';
  if (b.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}
