/**
 * Value reads: the `value`/`checked`/`files`/`selectedIndex` getters of form fields and `new FormData(form)`
 * note which tagged field the page's code read while an action was observed (a field that feeds something is
 * live even when typing into it shows nothing).
 */
import { w } from './config.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The controls the probe tagged in this document (index → element) and the reads seen while tracking. */
export const tagging = { tags: new WeakMap<Element, number>(), tagged: [] as Array<Element | null>, tracking: false, reads: new Set<number>() };

function noteRead(el: unknown): void {
  if (!tagging.tracking) return;
  const i = tagging.tags.get(el as Element);
  if (i !== undefined) tagging.reads.add(i);
  else {
    // A radio group or label: the tagged control that owns it.
    const lab = (el as HTMLInputElement)?.labels?.[0];
    const j = lab ? tagging.tags.get(lab) : undefined;
    if (j !== undefined) tagging.reads.add(j);
  }
}

function trackGetter(proto: any, prop: string): void {
  const d = Object.getOwnPropertyDescriptor(proto, prop);
  if (!d?.get) return;
  const g = d.get;
  Object.defineProperty(proto, prop, {
    ...d,
    get() {
      noteRead(this);
      return g.call(this);
    },
  });
}

export function installReads(): void {
  for (const p of ['value', 'valueAsNumber', 'valueAsDate', 'checked', 'files']) trackGetter(HTMLInputElement.prototype, p);
  trackGetter(HTMLTextAreaElement.prototype, 'value');
  for (const p of ['value', 'selectedIndex', 'selectedOptions']) trackGetter(HTMLSelectElement.prototype, p);
  try {
    const FD = w.FormData;
    w.FormData = class extends FD {
      constructor(form?: HTMLFormElement, ...rest: unknown[]) {
        if (form && tagging.tracking) for (const el of Array.from(form.elements ?? [])) noteRead(el);
        super(form, ...(rest as []));
      }
    };
  } catch {
    /* leave it */
  }
}

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
    if (el) tagging.tags.set(el, i);
  });
  return missing;
}

/** The tagged element at `i`, or null. */
export const taggedEl = (i: number | null): Element | null => (i === null ? null : (tagging.tagged[i] ?? null));
/* eslint-enable @typescript-eslint/no-explicit-any */
