/**
 * The browser's own functions, kept before the page can replace them: the probe must keep working (and reading
 * the true form state) whatever the page does to these.
 */
import { w } from './config.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Getter = (this: any) => any;
type Setter = (this: any, v: unknown) => void;

export const N = {} as {
  setTimeout: typeof setTimeout;
  rAF: typeof requestAnimationFrame;
  perfNow: () => number;
  Date: DateConstructor;
  reportError: ((e: unknown) => void) | null;
  getAttributeNames: () => string[];
  getAttribute: (name: string) => string | null;
  querySelectorAll: Document['querySelectorAll'];
};
/** Form-state getters. */
export const NG = {} as { inputValue: Getter; inputChecked: Getter; textareaValue: Getter; selectIndex: Getter };
/** Form-value setters (a value typed as a person would, without the page's own setter overrides). */
export const NS = {} as { inputValue: Setter; textareaValue: Setter };

const getter = (proto: any, prop: string): Getter | undefined => Object.getOwnPropertyDescriptor(proto, prop)?.get;
const setter = (proto: any, prop: string): Setter | undefined => Object.getOwnPropertyDescriptor(proto, prop)?.set;

/** Keep the natives; called first, before any page script. */
export function captureNatives(): void {
  Object.assign(N, {
    setTimeout: w.setTimeout.bind(w),
    rAF: w.requestAnimationFrame.bind(w),
    perfNow: performance.now.bind(performance),
    Date: w.Date,
    reportError: typeof w.reportError === 'function' ? w.reportError.bind(w) : null,
    getAttributeNames: Element.prototype.getAttributeNames,
    getAttribute: Element.prototype.getAttribute,
    querySelectorAll: Document.prototype.querySelectorAll,
  });
  Object.assign(NG, {
    inputValue: getter(HTMLInputElement.prototype, 'value')!,
    inputChecked: getter(HTMLInputElement.prototype, 'checked')!,
    textareaValue: getter(HTMLTextAreaElement.prototype, 'value')!,
    selectIndex: getter(HTMLSelectElement.prototype, 'selectedIndex')!,
  });
  Object.assign(NS, { inputValue: setter(HTMLInputElement.prototype, 'value')!, textareaValue: setter(HTMLTextAreaElement.prototype, 'value')! });
}
/* eslint-enable @typescript-eslint/no-explicit-any */
