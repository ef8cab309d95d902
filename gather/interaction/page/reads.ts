/**
 * The controls the probe tagged in this document (index → element), found again by their selectors after each
 * restore. The page's reads of tagged fields are noted by the main-world agent (main/recorders.ts), which tags
 * the same selectors on its side.
 */

export const tagging = { tagged: [] as Array<Element | null> };

/** Map the controls' selectors to elements of this document; returns the indices not found. */
export function tag(selectors: Array<string | null>): number[] {
  const missing: number[] = [];
  tagging.tagged.length = 0;
  selectors.forEach((sel, i) => {
    let el: Element | null = null;
    if (sel && sel !== 'document') {
      try {
        el = document.querySelector(sel);
      } catch {
        el = null;
      }
      if (!el) missing.push(i);
    }
    tagging.tagged[i] = el;
  });
  return missing;
}

/** The tagged element at `i`, or null. */
export const taggedEl = (i: number | null): Element | null => (i === null ? null : (tagging.tagged[i] ?? null));
