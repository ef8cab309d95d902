/**
 * Views (navigation-reachability's alias rule): two states are one view when they share the address and the
 * own text and number of their rendered elements.
 */
import { fnv, rendered, SKIP_TAGS } from './dom.js';

/** The own text and number of the rendered elements under body, leaving out the subtrees at `ignore`. */
function renderedText(ignore: string[]): { txt: string; count: number } {
  const body = document.body;
  let count = 0;
  let txt = '';
  const ign = new Set(ignore);
  const walk = (el: Element, path: string) => {
    const kids = el.children;
    let k = 0;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i]!;
      if (SKIP_TAGS.test(c.tagName)) continue;
      const p = `${path}.${k++}`;
      if (ign.has(p) || !rendered(c)) continue;
      count++;
      for (let t = c.firstChild; t; t = t.nextSibling) if (t.nodeType === 3) txt += ' ' + t.nodeValue;
      walk(c, p);
    }
  };
  if (body) {
    for (let t = body.firstChild; t; t = t.nextSibling) if (t.nodeType === 3) txt += ' ' + t.nodeValue;
    walk(body, 'b');
  }
  return { txt: txt.replace(/\s+/g, ' ').trim(), count };
}

/** Whether the fragment names an element (by id or name). */
function anchorExists(hash: string): boolean {
  if (!hash) return false;
  let id = hash.slice(1);
  try {
    id = decodeURIComponent(id);
  } catch {
    /* as is */
  }
  return !!document.getElementById(id) || !!document.getElementsByName(id)[0];
}

/**
 * The current view: address, and the own text and number of the rendered elements, leaving out the subtrees at
 * `ignore` (paths that change by themselves or differ between identical runs).
 */
export function view(status?: number, ignore: string[] = []) {
  const { txt, count } = renderedText(ignore);
  const hash = location.hash.length > 1 ? location.hash : '';
  const exists = anchorExists(hash);
  const textHash = fnv(txt);
  return {
    key: `${location.pathname}${hash}|${textHash}|${count}`,
    path: location.pathname,
    hash,
    textHash,
    elements: count,
    text: txt.slice(0, 80),
    anchorExists: exists,
    ...(status !== undefined && status !== null ? { status } : {}),
  };
}
