/**
 * Seeded randomness in a page: `Math.random` (mulberry32 from `seed`) and `crypto.getRandomValues`/`randomUUID`
 * (from the same generator) are replaced before any page script runs, so that a page that draws something at
 * random (an id in its header, a shuffled list, a generated palette) shows the same thing in two runs. Used by
 * the visit (visit.ts: the screenshots and DOM the visual metrics read; broadcast-channel-chat's random tab id
 * in its header moved layout-consistency by 19 points between two runs), by the interaction probe
 * (page-script.ts, ahead of its bundle), the runtime watch, the fidelity render, the mobile visit, and the
 * Lighthouse run (lighthouse-thread-worker.ts: its phone picture is the kept one, and a page that sizes its work at
 * random loads the same work in two runs). Self-contained: it is sent to the page as source text.
 */
export const PAGE_SEED = 20260115;

export function seedRandomness(seed: number): void {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Math.random = next;
  try {
    const C = ((window as unknown as { Crypto?: { prototype: Crypto } }).Crypto ?? undefined)?.prototype;
    if (C) {
      C.getRandomValues = function <T extends ArrayBufferView | null>(arr: T): T {
        if (arr) {
          const b = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
          for (let i = 0; i < b.length; i++) b[i] = Math.floor(next() * 256);
        }
        return arr;
      } as Crypto['getRandomValues'];
      C.randomUUID = function () {
        const h = Array.from({ length: 16 }, () => Math.floor(next() * 256));
        h[6] = (h[6]! & 0x0f) | 0x40;
        h[8] = (h[8]! & 0x3f) | 0x80;
        const x = h.map((v) => v.toString(16).padStart(2, '0')).join('');
        return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}` as `${string}-${string}-${string}-${string}-${string}`;
      };
    }
  } catch {
    /* leave them */
  }
}
