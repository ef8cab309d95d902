/**
 * What an action did, in the log's words: the in-page comparison, the recorded events and a navigation become
 * effects; errors are the action's own once the baseline's are taken away.
 */
import type { InteractionControl, InteractionEffect, InteractionError, InteractionView } from '../../../core/browser-evidence.js';
import type { RecordedError, Window } from '../window.js';
import type { Baseline, Navigated, PostResult } from './page-answers.js';

/** The paths (snapshot records) whose hashes differ between `a` and `b`. */
export const differing = (a: Record<string, string>, b: Record<string, string>): string[] => {
  const out: string[] = [];
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (k !== '~count' && a[k] !== b[k]) out.push(k);
  return out;
};

/** Drop paths whose ancestor is already listed. */
export function topmost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) if (!out.some((q) => p === q || p.startsWith(q + '.'))) out.push(p);
  return out.sort();
}

export const plain = (e: RecordedError): InteractionError => ({ kind: e.kind, message: e.message });

/** `a` minus the errors of `b` (as a multiset by kind and message). */
export function minusErrors(a: readonly InteractionError[], b: readonly InteractionError[]): InteractionError[] {
  const left = new Map<string, number>();
  for (const e of b) left.set(`${e.kind}\n${e.message}`, (left.get(`${e.kind}\n${e.message}`) ?? 0) + 1);
  const out: InteractionError[] = [];
  for (const e of a) {
    const k = `${e.kind}\n${e.message}`;
    const n = left.get(k) ?? 0;
    if (n > 0) left.set(k, n - 1);
    else out.push(e);
  }
  return out;
}

/** A "Failed to load resource" line about a request the sandbox refused (webgrade's doing, not the page's). */
export function blockedLine(e: RecordedError): boolean {
  return e.kind === 'console' && !!e.url && /^Failed to load resource/.test(e.message) && /status of 403/.test(e.message);
}

/** The errors of window `w` that are the action's own (not the sandbox's, not the page's by itself). */
export const actionErrors = (w: Window, base: Baseline): InteractionError[] => minusErrors(w.errors.filter((e) => !blockedLine(e)).map(plain), base.errors);

export function describeControl(c: InteractionControl): string {
  return c.text ? `"${c.text.slice(0, 30)}"` : c.selector;
}

const list = (xs: string[]) => `${xs.slice(0, 3).join(', ')}${xs.length > 3 ? ` and ${xs.length - 3} more` : ''}`;

function sameDocumentPath(url: string, view: InteractionView): boolean {
  try {
    const u = new URL(url);
    return u.pathname === view.path;
  } catch {
    return false;
  }
}

/** The effects the in-page comparison found. */
function pageEffects(post: PostResult, base: Baseline, out: InteractionEffect[]): void {
  const { cat } = post;
  if (cat.dom.length) out.push({ kind: 'dom', detail: list(cat.dom) });
  if (cat.form.length) out.push({ kind: 'form', detail: list(cat.form) });
  if (cat.layout.length) out.push({ kind: 'layout', detail: list(cat.layout) });
  if (cat.canvas.length) out.push({ kind: 'canvas', detail: list(cat.canvas) });
  if (cat.url.length) {
    // A fragment that names nothing changes only the address: not an effect by itself.
    const v = post.view;
    const onlyFragment = sameDocumentPath(cat.url[0]!, base.view);
    if (!onlyFragment || v.anchorExists || post.changed > 1) out.push({ kind: 'url', detail: cat.url[0]!.replace(/^https?:\/\/[^/]+/, '') });
  }
  if (cat.storage.length) out.push({ kind: 'storage', detail: cat.storage[0]! });
  for (const [k, v] of Object.entries(post.events)) {
    if (k === 'close') continue;
    out.push({ kind: k as InteractionEffect['kind'], detail: list(v.filter((x) => x)) || k });
  }
  if (post.focus) out.push({ kind: 'focus', detail: post.focus });
  if (post.scrolled) out.push({ kind: 'scroll', detail: 'the page scrolled' });
}

/** A navigation to another document, unless it only loaded the start view again (a reload) or failed. */
function navigationEffect(navigated: Navigated, base: Baseline, out: InteractionEffect[]): void {
  const path = (() => {
    try {
      return new URL(navigated.url).pathname;
    } catch {
      return navigated.url;
    }
  })();
  const reload =
    path === base.view.path &&
    (navigated.status === undefined ||
      navigated.status >= 400 ||
      (navigated.view !== undefined && navigated.view.textHash === base.view.textHash && navigated.view.elements === base.view.elements));
  if (!reload) out.push({ kind: 'navigation', detail: `to ${path}${navigated.status ? ` (HTTP ${navigated.status})` : ''}` });
}

/** The effects of one action: the page's changes, a navigation, and what the driver recorded in window `w`. */
export function effectsOf(w: Window, post: PostResult | null, navigated: Navigated | null, base: Baseline): InteractionEffect[] {
  const out: InteractionEffect[] = [];
  if (post) pageEffects(post, base, out);
  if (navigated) navigationEffect(navigated, base, out);
  if (w.dialogs.length) out.push({ kind: 'dialog', detail: list(w.dialogs) });
  if (w.fileChoosers) out.push({ kind: 'file-chooser', detail: 'a file chooser opened' });
  if (w.popups.length && !out.some((e) => e.kind === 'popup')) out.push({ kind: 'popup', detail: list(w.popups) });
  const reqs = w.requests.filter((r) => !(navigated && r.navigation));
  if (reqs.length) out.push({ kind: 'request', detail: list(reqs.map((r) => `${r.method} ${r.url.replace(/^https?:\/\/127\.0\.0\.1:\d+/, '')}`)) });
  return out;
}
