/**
 * The interaction probe's in-page half: installed in every document of the probe's page before any page script
 * (`Page.addScriptToEvaluateOnNewDocument`), top frame only. `probeInit` must be self-contained: it is sent to
 * the page as source text.
 *
 * What it installs (each a documented choice, probe.ts explains why):
 * - A page clock of our own (the idea of Playwright's `page.clock`): `setTimeout`/`setInterval`/
 *   `requestAnimationFrame`/`requestIdleCallback` queue callbacks on a virtual clock that starts at 0 with the
 *   document and moves only when the probe calls `advance(ms)`, which runs every callback due, in order (frames
 *   every FRAME_MS), yielding to the real event loop between callbacks so that promises, network answers and
 *   message-channel schedulers run. `Date` and `performance.now` read that clock (the date starts at a fixed
 *   day), `Math.random` and `crypto.getRandomValues`/`randomUUID` are seeded. So two loads of one page go
 *   through the same states, a 1000 ms settle costs only the work of the callbacks, and an action's effect can
 *   be told from what the page does by itself (a clock, an animation, a game loop) by comparing with a load
 *   that did not act at the same virtual moment.
 * - Effect recorders: dialogs (alert/confirm/prompt/print answer as dismissed and are counted), sound
 *   (`AudioContext.resume`, any source node's `start`, `HTMLMediaElement.play`, `speechSynthesis.speak`),
 *   clipboard writes (`navigator.clipboard.write/writeText` resolve without touching a clipboard,
 *   `execCommand('copy'|'cut')`), downloads (`a[download]`/blob:/data: link clicks, `showSaveFilePicker`),
 *   `window.open`, and value reads: the `value`/`checked`/`files`/`selectedIndex` getters of form fields and
 *   `new FormData(form)` note which tagged field the page's code read while an action was observed.
 * - WebGL contexts are created with `preserveDrawingBuffer` so that their pixels can be read; `window.close`
 *   is a no-op.
 * - Uncaught errors are timed on the real clock (first view: errors before the first contentful paint).
 *
 * The probe drives it through `window.__wgProbe` (a non-enumerable property): `advance`, `firstView`,
 * `enumerate`, `mark` (listener marks from DOMDebugger), `tag`, `prepare`, `snapshot`, `post`, `view`.
 */

import { seedRandomness } from '../seeded-random.js';

export interface ProbeConfig {
  /** Epoch milliseconds of virtual time 0. */
  epochMs: number;
  seed: number;
  frameMs: number;
  /** At most this many callbacks per `advance` (a timer storm stops there). */
  maxFires: number;
  /** At most this many real milliseconds per `advance`. */
  maxAdvanceRealMs: number;
  /** Elements fingerprinted per snapshot (document order; the rest are folded into one record). */
  maxElements: number;
}

/** Runs in the page before any script. Self-contained. */
export function probeInit(cfg: ProbeConfig): void {
  /* eslint-disable @typescript-eslint/no-explicit-any */
  const w = window as any;
  try {
    if (w !== w.top) return;
  } catch {
    return;
  }
  if (Object.prototype.hasOwnProperty.call(w, '__wgProbe')) return;

  // ---------------------------------------------------------------------------------------------------
  // Natives, kept before the page can touch them.
  const N = {
    setTimeout: w.setTimeout.bind(w) as typeof setTimeout,
    rAF: w.requestAnimationFrame.bind(w) as typeof requestAnimationFrame,
    perfNow: performance.now.bind(performance),
    Date: w.Date as DateConstructor,
    reportError: typeof w.reportError === 'function' ? (w.reportError.bind(w) as (e: unknown) => void) : null,
    getAttributeNames: Element.prototype.getAttributeNames,
    getAttribute: Element.prototype.getAttribute,
    querySelectorAll: Document.prototype.querySelectorAll,
  };
  const getter = (proto: any, prop: string): ((this: any) => any) | undefined => Object.getOwnPropertyDescriptor(proto, prop)?.get;
  const NG = {
    inputValue: getter(HTMLInputElement.prototype, 'value')!,
    inputChecked: getter(HTMLInputElement.prototype, 'checked')!,
    textareaValue: getter(HTMLTextAreaElement.prototype, 'value')!,
    selectIndex: getter(HTMLSelectElement.prototype, 'selectedIndex')!,
  };
  const setter = (proto: any, prop: string) => Object.getOwnPropertyDescriptor(proto, prop)?.set;
  const NS = { inputValue: setter(HTMLInputElement.prototype, 'value')!, textareaValue: setter(HTMLTextAreaElement.prototype, 'value')! };

  // A message channel to yield to the real event loop without timer clamping.
  const channel = new MessageChannel();
  const waiting: Array<() => void> = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  const yieldReal = () =>
    new Promise<void>((r) => {
      waiting.push(r);
      channel.port2.postMessage(0);
    });

  // ---------------------------------------------------------------------------------------------------
  // The virtual clock.
  let vnow = 0;
  let seq = 0;
  let nextId = 1;
  interface Timer {
    id: number;
    at: number;
    seq: number;
    fn: (...a: unknown[]) => unknown;
    args: unknown[];
    every?: number;
    raf?: boolean;
  }
  const timers = new Map<number, Timer>();
  const toFn = (fn: unknown): ((...a: unknown[]) => unknown) => {
    if (typeof fn === 'function') return fn as (...a: unknown[]) => unknown;
    const code = String(fn);
    return () => (0, eval)(code);
  };
  const addTimer = (fn: unknown, at: number, args: unknown[], every?: number, raf?: boolean): number => {
    const id = nextId++;
    timers.set(id, { id, at, seq: seq++, fn: toFn(fn), args, ...(every ? { every } : {}), ...(raf ? { raf } : {}) });
    return id;
  };
  const clear = (id: unknown) => {
    timers.delete(Number(id));
  };
  w.setTimeout = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    return addTimer(fn, vnow + Math.max(0, Number(delay) || 0), args);
  };
  w.setInterval = function (fn: unknown, delay?: unknown, ...args: unknown[]) {
    const d = Math.max(1, Number(delay) || 0);
    return addTimer(fn, vnow + d, args, d);
  };
  w.clearTimeout = clear;
  w.clearInterval = clear;
  w.requestAnimationFrame = function (cb: unknown) {
    return addTimer(cb, Math.floor(vnow / cfg.frameMs) * cfg.frameMs + cfg.frameMs, [], undefined, true);
  };
  w.cancelAnimationFrame = clear;
  w.requestIdleCallback = function (cb: (d: unknown) => void) {
    return addTimer(() => cb({ didTimeout: false, timeRemaining: () => 10 }), vnow + 1, []);
  };
  w.cancelIdleCallback = clear;

  const ND = N.Date;
  class FakeDate extends ND {
    constructor(...a: unknown[]) {
      if (a.length === 0) super(cfg.epochMs + Math.floor(vnow));
      else super(...(a as [number]));
    }
    static override now(): number {
      return cfg.epochMs + Math.floor(vnow);
    }
  }
  w.Date = new Proxy(FakeDate, {
    apply() {
      return new ND(cfg.epochMs + Math.floor(vnow)).toString();
    },
  });
  try {
    Object.defineProperty(performance, 'now', { value: () => vnow, configurable: true, writable: true });
  } catch {
    /* leave it */
  }

  // Seeded randomness: seedRandomness (seeded-random.ts) runs before this script (probeScript).

  const report = (e: unknown) => {
    if (N.reportError) N.reportError(e);
    else
      N.setTimeout(() => {
        throw e;
      }, 0);
  };

  async function advance(ms: number): Promise<{ fired: number; storm: boolean; slow: boolean }> {
    const target = vnow + Math.max(0, ms);
    const t0 = N.perfNow();
    let fired = 0;
    let storm = false;
    let slow = false;
    for (;;) {
      let next: Timer | undefined;
      for (const t of timers.values()) if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      if (!next || next.at > target) break;
      if (fired >= cfg.maxFires) {
        storm = true;
        break;
      }
      if (N.perfNow() - t0 > cfg.maxAdvanceRealMs) {
        slow = true;
        break;
      }
      vnow = Math.max(vnow, next.at);
      if (next.every) {
        next.at += next.every;
        next.seq = seq++;
      } else timers.delete(next.id);
      try {
        next.fn.apply(w, next.raf ? [next.at] : next.args);
      } catch (e) {
        report(e);
      }
      fired++;
      await yieldReal();
    }
    if (!storm && !slow) vnow = target;
    await yieldReal();
    return { fired, storm, slow };
  }

  // ---------------------------------------------------------------------------------------------------
  // Effect recorders.
  const events: Record<string, string[]> = { dialog: [], audio: [], clipboard: [], download: [], popup: [], prompt: [], close: [] };
  const note = (kind: string, detail: string) => {
    const list = events[kind]!;
    if (list.length < 50) list.push(detail.slice(0, 120));
    else list.push('');
  };
  const stubDialog = (name: string, ret: unknown) =>
    function (msg?: unknown) {
      note('dialog', `${name}(${msg === undefined ? '' : JSON.stringify(String(msg).slice(0, 60))})`);
      return ret;
    };
  w.alert = stubDialog('alert', undefined);
  w.confirm = stubDialog('confirm', false);
  w.prompt = stubDialog('prompt', null);
  w.print = stubDialog('print', undefined);
  w.close = function () {
    note('close', 'window.close()');
  };
  const wrap = (obj: any, name: string, before: (self: any, args: unknown[]) => void) => {
    if (!obj || typeof obj[name] !== 'function') return;
    const orig = obj[name];
    obj[name] = function (this: unknown, ...args: unknown[]) {
      try {
        before(this, args);
      } catch {
        /* recording never breaks the page */
      }
      return orig.apply(this, args);
    };
  };
  wrap(w.AudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  wrap(w.webkitAudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  wrap(w.AudioScheduledSourceNode?.prototype, 'start', (self) => note('audio', `${self?.constructor?.name ?? 'source'}.start()`));
  wrap(w.HTMLMediaElement?.prototype, 'play', (self) => note('audio', `<${String(self?.tagName ?? 'media').toLowerCase()}>.play() ${String(self?.currentSrc || self?.src || '').slice(-60)}`));
  wrap(w.speechSynthesis, 'speak', () => note('audio', 'speechSynthesis.speak()'));
  wrap(w, 'open', (_s, a) => note('popup', `window.open(${String(a[0] ?? '').slice(0, 80)})`));
  wrap(w, 'showSaveFilePicker', () => note('download', 'showSaveFilePicker()'));
  // Browser choosers and prompts: a person would see them open.
  const prompt = (obj: any, name: string, label: string) => wrap(obj, name, () => note('prompt', label));
  prompt(w.Serial?.prototype, 'requestPort', 'serial port chooser');
  prompt(w.USB?.prototype, 'requestDevice', 'USB device chooser');
  prompt(w.HID?.prototype, 'requestDevice', 'HID device chooser');
  prompt(w.Bluetooth?.prototype, 'requestDevice', 'Bluetooth device chooser');
  prompt(w, 'showOpenFilePicker', 'file picker');
  prompt(w, 'showDirectoryPicker', 'directory picker');
  prompt(w.MediaDevices?.prototype, 'getUserMedia', 'camera/microphone prompt');
  prompt(w.MediaDevices?.prototype, 'getDisplayMedia', 'screen sharing prompt');
  prompt(w.Notification, 'requestPermission', 'notification permission prompt');
  prompt(w.Geolocation?.prototype, 'getCurrentPosition', 'location prompt');
  prompt(w.Geolocation?.prototype, 'watchPosition', 'location prompt');
  prompt(w.Element?.prototype, 'requestFullscreen', 'fullscreen');
  prompt(w.Navigator?.prototype, 'share', 'share sheet');
  try {
    const CB = w.Clipboard?.prototype;
    if (CB) {
      CB.readText = function () {
        note('clipboard', 'readText');
        return Promise.resolve('test text');
      };
      CB.read = function () {
        note('clipboard', 'read');
        return Promise.resolve([]);
      };
      CB.writeText = function (t: unknown) {
        note('clipboard', `writeText ${JSON.stringify(String(t).slice(0, 40))}`);
        return Promise.resolve();
      };
      CB.write = function () {
        note('clipboard', 'write');
        return Promise.resolve();
      };
    }
    const exec = Document.prototype.execCommand;
    Document.prototype.execCommand = function (cmd: string, ...rest: unknown[]) {
      if (/^(copy|cut)$/i.test(String(cmd))) {
        note('clipboard', `execCommand(${String(cmd)})`);
        return true;
      }
      return (exec as (...a: unknown[]) => boolean).call(this, cmd, ...rest);
    };
  } catch {
    /* leave it */
  }
  const downloadLink = (a: any) => a && (a.hasAttribute?.('download') || /^(blob|data):/i.test(String(a.href ?? '')));
  try {
    const aClick = HTMLElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (downloadLink(this)) note('download', this.download || String(this.href).slice(0, 60));
      return aClick.call(this);
    };
  } catch {
    /* leave it */
  }
  document.addEventListener(
    'click',
    (e) => {
      const a = (e.target as Element | null)?.closest?.('a');
      if (e.isTrusted && downloadLink(a)) note('download', (a as HTMLAnchorElement).download || String((a as HTMLAnchorElement).href).slice(0, 60));
    },
    true,
  );
  const canvasKind = new WeakMap<HTMLCanvasElement, string>();
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

  // Storage beyond localStorage/sessionStorage: the probe clears it through the browser only when it was used.
  let deepStorage = false;
  const used = () => {
    deepStorage = true;
  };
  wrap(w.indexedDB, 'open', used);
  wrap(w.caches, 'open', used);
  wrap(w.navigator?.serviceWorker, 'register', used);
  wrap(w.navigator?.storage, 'getDirectory', used);

  // Value reads: which tagged field the page's code read while an action was observed.
  const tags = new WeakMap<Element, number>();
  const tagged: Array<Element | null> = [];
  let tracking = false;
  const reads = new Set<number>();
  const noteRead = (el: unknown) => {
    if (!tracking) return;
    const i = tags.get(el as Element);
    if (i !== undefined) reads.add(i);
    else {
      // A radio group or label: the tagged control that owns it.
      const lab = (el as HTMLInputElement)?.labels?.[0];
      const j = lab ? tags.get(lab) : undefined;
      if (j !== undefined) reads.add(j);
    }
  };
  const trackGetter = (proto: any, prop: string) => {
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
  };
  for (const p of ['value', 'valueAsNumber', 'valueAsDate', 'checked', 'files']) trackGetter(HTMLInputElement.prototype, p);
  trackGetter(HTMLTextAreaElement.prototype, 'value');
  for (const p of ['value', 'selectedIndex', 'selectedOptions']) trackGetter(HTMLSelectElement.prototype, p);
  try {
    const FD = w.FormData;
    w.FormData = class extends FD {
      constructor(form?: HTMLFormElement, ...rest: unknown[]) {
        if (form && tracking) for (const el of Array.from(form.elements ?? [])) noteRead(el);
        super(form, ...(rest as []));
      }
    };
  } catch {
    /* leave it */
  }

  // Uncaught errors on the real clock (first view).
  const errs: Array<{ t: number; kind: 'exception' | 'unhandled-rejection'; message: string; p?: unknown }> = [];
  w.addEventListener(
    'error',
    (e: Event) => {
      if (e instanceof ErrorEvent) errs.push({ t: N.perfNow(), kind: 'exception', message: String(e.message || e.error) });
    },
    true,
  );
  w.addEventListener('unhandledrejection', (e: PromiseRejectionEvent) => {
    const r = e.reason as { message?: string } | undefined;
    errs.push({ t: N.perfNow(), kind: 'unhandled-rejection', message: String(r?.message ?? r), p: e.promise });
  });
  w.addEventListener('rejectionhandled', (e: PromiseRejectionEvent) => {
    const i = errs.findIndex((x) => x.p === e.promise);
    if (i >= 0) errs.splice(i, 1);
  });

  // ---------------------------------------------------------------------------------------------------
  // Helpers.
  const fnv = (s: string): string => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return (h >>> 0).toString(16).padStart(8, '0');
  };
  const visible = (el: Element): boolean => {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    const ck = (el as any).checkVisibility;
    if (typeof ck === 'function' && !ck.call(el, { visibilityProperty: true, opacityProperty: true })) return false;
    const x = r.left + scrollX;
    const y = r.top + scrollY;
    return x + r.width > 0 && y + r.height > 0 && x < Math.max(document.documentElement.scrollWidth, innerWidth);
  };
  const rendered = (el: Element): boolean => {
    const ck = (el as any).checkVisibility;
    return typeof ck === 'function' ? !!ck.call(el, { visibilityProperty: true }) : true;
  };
  const docBox = (el: Element) => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.left + scrollX), y: Math.round(r.top + scrollY), width: Math.round(r.width), height: Math.round(r.height) };
  };
  const cssEscape = (s: string) => (w.CSS?.escape ? w.CSS.escape(s) : s.replace(/[^\w-]/g, (c) => '\\' + c));
  const selectorOf = (el: Element): string => {
    const parts: string[] = [];
    let cur: Element | null = el;
    while (cur && cur !== document.documentElement) {
      if (cur.id) {
        const sel = '#' + cssEscape(cur.id);
        let unique = false;
        try {
          unique = document.querySelectorAll(sel).length === 1;
        } catch {
          unique = false;
        }
        if (unique) {
          parts.unshift(sel);
          return parts.join(' > ');
        }
      }
      const tag = cur.tagName.toLowerCase();
      if (tag === 'body') {
        parts.unshift('body');
        return parts.join(' > ');
      }
      const parent: Element | null = cur.parentElement;
      if (!parent) {
        parts.unshift(tag);
        break;
      }
      const idx = Array.prototype.indexOf.call(parent.children, cur) + 1;
      parts.unshift(`${tag}:nth-child(${idx})`);
      cur = parent;
    }
    return parts.join(' > ');
  };
  const labelOf = (el: Element): string => {
    const pick = (...c: Array<string | null | undefined>) => c.map((x) => (x ?? '').replace(/\s+/g, ' ').trim()).find((x) => x.length > 0) ?? '';
    const input = el as HTMLInputElement;
    const txt = (el as HTMLElement).innerText;
    return pick(el.getAttribute('aria-label'), typeof txt === 'string' ? txt : el.textContent, el.tagName === 'INPUT' && /^(button|submit|reset)$/i.test(input.type) ? NG.inputValue.call(input) : '', el.getAttribute('title'), el.getAttribute('placeholder'), el.querySelector('img[alt]')?.getAttribute('alt'), el.getAttribute('name'), el.id).slice(0, 80);
  };
  const TEXT_TYPES = /^(text|search|email|url|tel|password|number|)$/i;
  const VALUE_TYPES = /^(color|date|time|datetime-local|month|week)$/i;
  const disabled = (el: Element): boolean =>
    !!(el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true' || !!el.closest('fieldset[disabled]') || !!el.closest('[inert]');
  const isTextField = (el: Element): boolean =>
    (el.tagName === 'INPUT' && TEXT_TYPES.test((el as HTMLInputElement).type)) || el.tagName === 'TEXTAREA';

  // Canvas pixels: a hash, and whether it drew anything (not one colour throughout).
  const scratch = document.createElement('canvas');
  const canvasPixels = (c: HTMLCanvasElement): { hash: string; drawn: boolean } => {
    try {
      const wdt = c.width;
      const hgt = c.height;
      if (!wdt || !hgt) return { hash: 'empty', drawn: false };
      let data: Uint8ClampedArray;
      const kind = canvasKind.get(c);
      if (kind === '2d') data = c.getContext('2d')!.getImageData(0, 0, wdt, hgt).data;
      else if (!kind) return { hash: 'unused', drawn: false };
      else {
        scratch.width = wdt;
        scratch.height = hgt;
        const x = scratch.getContext('2d')!;
        x.clearRect(0, 0, wdt, hgt);
        x.drawImage(c, 0, 0);
        data = x.getImageData(0, 0, wdt, hgt).data;
      }
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
  };

  // ---------------------------------------------------------------------------------------------------
  // First view.
  function firstView() {
    const body = document.body;
    const all = body ? Array.from(body.querySelectorAll('*')) : [];
    // innerText of a body that is not rendered (display: none on it or on <html>) is its source text, not what
    // shows: no visible text then.
    const shown = !!body && rendered(body) && body.getClientRects().length > 0;
    const txt = shown ? (body.innerText ?? '').replace(/\s+/g, ' ').trim() : '';
    const byKind = { svg: 0, img: 0, canvas: 0, video: 0 };
    let blank = 0;
    for (const el of all) {
      const tag = el.tagName.toLowerCase();
      if (tag === 'svg') {
        if (el.parentElement?.closest('svg')) continue;
        if (visible(el)) byKind.svg++;
      } else if (tag === 'img') {
        const img = el as HTMLImageElement;
        if (img.complete && img.naturalWidth > 0 && visible(el)) byKind.img++;
      } else if (tag === 'canvas') {
        if (!visible(el)) continue;
        if (canvasPixels(el as HTMLCanvasElement).drawn) byKind.canvas++;
        else blank++;
      } else if (tag === 'video') {
        if (visible(el)) byKind.video++;
      }
    }
    const interactive = body
      ? Array.from(body.querySelectorAll('button, input:not([type=hidden]), textarea, select, a[href], [role=button]')).filter((el) => !disabled(el) && visible(el)).length
      : 0;
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null;
    const before = errs.filter((e) => fcp === null || e.t < fcp).map((e) => ({ kind: e.kind, message: e.message.slice(0, 300) }));
    return {
      elements: all.length,
      textChars: txt.length,
      visuals: byKind.svg + byKind.img + byKind.canvas + byKind.video,
      visualsByKind: byKind,
      blankCanvases: blank,
      interactive,
      firstPaintMs: fcp === null ? null : Math.round(fcp),
      errorsBeforeRender: before,
      loaded: document.readyState === 'complete',
    };
  }

  // ---------------------------------------------------------------------------------------------------
  // Controls.
  const marks = new WeakMap<Element, Set<string>>();
  /** Elements whose every click handler only dispatches on the event target (event delegation): not controls. */
  const delegating = new WeakSet<Element>();
  function mark(el: unknown, types: string[], delegation?: boolean) {
    if (!(el instanceof Element)) return;
    if (delegation) delegating.add(el);
    const s = marks.get(el) ?? new Set<string>();
    for (const t of types) s.add(t);
    marks.set(el, s);
  }
  const CLICK = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'dblclick', 'auxclick'];
  const KEYS = ['keydown', 'keyup', 'keypress'];
  const INPUTS = ['input', 'change'];
  const REACT: Record<string, string> = { onClick: 'click', onMouseDown: 'mousedown', onMouseUp: 'mouseup', onPointerDown: 'pointerdown', onPointerUp: 'pointerup', onDoubleClick: 'dblclick', onKeyDown: 'keydown', onKeyUp: 'keyup', onTouchStart: 'touchstart' };
  function reactMarks(all: Element[]) {
    let react = false;
    for (const el of all) {
      for (const k of Object.keys(el)) {
        if (k.startsWith('__reactProps$')) {
          react = true;
          const props = (el as any)[k] ?? {};
          const types = Object.keys(REACT).filter((p) => typeof props[p] === 'function').map((p) => REACT[p]!);
          if (types.length) mark(el, types);
        }
      }
      if (!react && all.indexOf(el) > 200) break;
    }
  }
  const NAV_CONTAINER = 'nav, [role=navigation], [role=tablist], [role=menu], [role=menubar], header';
  const NAV_CLASS = /^(tab|tabs?-(btn|button|link|item|trigger)|nav-(link|item|btn|button)|menu-(link|item))$/i;
  const NAV_DATA = ['data-tab', 'data-page', 'data-view', 'data-route', 'data-section', 'data-screen', 'data-panel'];
  const SEMANTIC = 'button, a[href], [role=button], summary, select, label, input, textarea';

  function enumerate() {
    const body = document.body;
    if (!body) return [];
    const all = Array.from(body.querySelectorAll('*'));
    reactMarks(all);
    const out: Array<Record<string, unknown>> = [];
    const here = new URL(location.href);
    for (const el of all) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') {
        // inside an svg: only elements with listeners count (chart bars, map regions)
        if (!marks.get(el)?.size) continue;
      }
      const parentControl = el.parentElement?.closest(SEMANTIC);
      if (parentControl && parentControl !== el && !(parentControl.tagName === 'LABEL' && el.tagName === 'INPUT')) continue;
      const tag = el.tagName.toLowerCase();
      const m = marks.get(el);
      const listens = m ? Array.from(m) : [];
      let kind: string | null = null;
      let href: string | undefined;
      let nav: string | undefined;
      let target: Element = el;
      const input = el as HTMLInputElement;
      if (tag === 'button' || (tag === 'input' && /^(button|submit|reset|image)$/i.test(input.type)) || el.getAttribute('role') === 'button' || tag === 'summary') kind = 'button';
      else if (tag === 'a' && el.hasAttribute('href')) {
        const raw = el.getAttribute('href') ?? '';
        if (/^\s*javascript:/i.test(raw)) kind = 'link';
        else {
          let u: URL | null = null;
          try {
            u = new URL(raw, location.href);
          } catch {
            u = null;
          }
          if (!u || u.origin !== here.origin) kind = null;
          else if (u.pathname === here.pathname && u.search === here.search) {
            kind = 'link';
            href = u.href;
            const frag = u.hash.replace(/^#/, '');
            if (frag.startsWith('/') || frag.startsWith('!')) nav = 'hash-route';
            else if (frag.length > 0) nav = 'anchor';
            else if (el.closest(NAV_CONTAINER)) nav = 'placeholder';
          } else {
            kind = 'page-link';
            href = u.href;
            nav = 'page';
          }
          if (!kind && listens.some((t) => CLICK.includes(t))) kind = 'listener';
        }
      } else if (tag === 'textarea' || (tag === 'input' && TEXT_TYPES.test(input.type)) || (el as HTMLElement).isContentEditable) {
        if ((el as HTMLElement).isContentEditable && el.parentElement?.isContentEditable) continue;
        kind = 'text';
      } else if (tag === 'input' && /^(checkbox|radio)$/i.test(input.type)) kind = 'toggle';
      else if (tag === 'select') kind = 'select';
      else if (tag === 'input' && input.type === 'range') kind = 'range';
      else if (tag === 'input' && VALUE_TYPES.test(input.type)) kind = 'value';
      else if (tag === 'input' && input.type === 'file') kind = 'file';
      else if (tag === 'label') {
        const ctl = (el as HTMLLabelElement).control as HTMLInputElement | null;
        if (ctl && /^(checkbox|radio)$/i.test(ctl.type) && !visible(ctl)) kind = 'toggle';
        else if (ctl && ctl.type === 'file' && !visible(ctl)) kind = 'file';
        else if (listens.some((t) => CLICK.includes(t) || KEYS.includes(t))) kind = 'listener';
      } else if (tag !== 'body' && tag !== 'html' && listens.some((t) => CLICK.includes(t) || KEYS.includes(t))) kind = 'listener';
      if (!kind) continue;
      // A framework's root container (React 17+ listens there for the whole app) or an element that only
      // delegates clicks to its children is not a control itself.
      if (kind === 'listener' && (delegating.has(el) || Object.keys(el).some((k) => k.startsWith('__reactContainer$') || k === '_reactRootContainer'))) continue;
      if (kind === 'file' && tag === 'input' && !visible(el)) continue; // a hidden file input is reached through its button or label
      if (disabled(el) || !visible(target)) continue;
      if (!nav && kind !== 'page-link') {
        if (el.getAttribute('role') === 'tab' || el.closest('[role=tablist]')) nav = 'tab';
        else if (NAV_DATA.some((a) => el.hasAttribute(a)) || Array.from(el.classList).some((c) => NAV_CLASS.test(c))) nav = 'tab';
        else if ((kind === 'button' || kind === 'listener' || kind === 'link') && el.closest('nav, [role=navigation]')) nav = 'nav-button';
      }
      out.push({
        kind,
        selector: selectorOf(target),
        tag,
        text: labelOf(el),
        box: docBox(target),
        ...(listens.length ? { listeners: listens.filter((t) => CLICK.includes(t) || KEYS.includes(t) || INPUTS.includes(t)) } : {}),
        ...(href ? { href } : {}),
        ...(nav ? { nav } : {}),
      });
    }
    return out;
  }

  /** Map the controls' selectors to elements of this document; returns the indices not found. */
  function tag(selectors: Array<string | null>): number[] {
    const missing: number[] = [];
    tagged.length = 0;
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
      tagged[i] = el;
      if (el) tags.set(el, i);
    });
    return missing;
  }

  // ---------------------------------------------------------------------------------------------------
  // Fill: every empty, visible, enabled text field gets a plausible value (typed through the native setter,
  // with input and change events), so that a button acts on a filled form.
  const NUMBERISH = /(amount|price|number|num|qty|quantity|count|age|weight|height|width|size|rate|percent|year|total|bill|tip|income|salary|cost|value|min|max|length|days|hours|minutes|seconds|score|radius|temp|degrees?|kg|lbs?|cm|km|miles?|people|guests|principal|interest|loan|term)/i;
  function fillValue(el: Element): string {
    const input = el as HTMLInputElement;
    const type = el.tagName === 'INPUT' ? input.type.toLowerCase() : 'textarea';
    const hint = [el.getAttribute('name'), el.id, el.getAttribute('placeholder'), el.getAttribute('aria-label'), input.labels?.[0]?.textContent].join(' ');
    if (type === 'number') return '42';
    if (type === 'email' || /e-?mail/i.test(hint)) return 'test@example.com';
    if (type === 'url' || /\b(url|link|website)\b/i.test(hint)) return 'https://example.com';
    if (type === 'tel' || /phone/i.test(hint)) return '5551234567';
    if (type === 'password') return 'Passw0rd!';
    if (type !== 'textarea' && NUMBERISH.test(hint)) return '42';
    return type === 'textarea' ? 'test text' : 'test';
  }
  function fieldsToFill(except: Element | null): Element[] {
    const body = document.body;
    if (!body) return [];
    return Array.from(body.querySelectorAll('input, textarea')).filter((el) => {
      if (el === except || !isTextField(el) || disabled(el) || (el as HTMLInputElement).readOnly || !visible(el)) return false;
      const v = el.tagName === 'INPUT' ? NG.inputValue.call(el) : NG.textareaValue.call(el);
      return v === '';
    });
  }
  function setValue(el: Element, v: string) {
    if (el.tagName === 'INPUT') NS.inputValue.call(el, v);
    else NS.textareaValue.call(el, v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }
  function fill(except: Element | null): string[] {
    const done: string[] = [];
    for (const el of fieldsToFill(except)) {
      const v = fillValue(el);
      setValue(el, v);
      done.push(`${selectorOf(el)} = ${v}`);
    }
    // Empty contenteditable areas (outermost) get text too, with an input event.
    const body = document.body;
    if (body) {
      for (const el of Array.from(body.querySelectorAll('[contenteditable]'))) {
        const h = el as HTMLElement;
        if (h === except || !h.isContentEditable || h.parentElement?.isContentEditable || !visible(h) || (h.textContent ?? '').trim() !== '') continue;
        h.textContent = 'test text';
        h.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'test text' }));
        done.push(`${selectorOf(h)} = test text`);
      }
    }
    return done;
  }

  // ---------------------------------------------------------------------------------------------------
  // Snapshots: one record per element (document order), plus pseudo-records for the address, title and storage.
  // The acted-on control's own form state and rendering are left out (what our action does to it is ours).
  const stored: Record<string, Map<string, string>> = {};
  const SEP = '\u0001';
  /** An element's own state: tag, attributes and own text; form state; rendering; canvas pixels (SEP between). */
  /**
   * A long value as its beginning plus a hash of the whole: a change anywhere in it counts (an iframe's srcdoc
   * that differs only after a shared preamble, an output that grows at its end).
   */
  const clip = (v: string, n: number): string => (v.length > n ? `${v.slice(0, n)}…${fnv(v)}:${v.length}` : v);
  function ownState(el: Element, skip: boolean): string {
    const tag = el.tagName;
    let base = tag;
    const names = N.getAttributeNames.call(el).sort();
    for (const n of names) base += ` ${n}=${clip(String(N.getAttribute.call(el, n)), 300)}`;
    let text = '';
    for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 3) text += c.nodeValue;
    text = text.replace(/\s+/g, ' ').trim();
    if (text) base += `|t:${clip(text, 300)}`;
    if (tag === 'DIALOG' || tag === 'DETAILS') base += `|o:${(el as HTMLDialogElement).open ? 1 : 0}`;
    let form = '';
    let render = '';
    if (!skip) {
      if (tag === 'INPUT') {
        const i = el as HTMLInputElement;
        form = `v:${clip(String(NG.inputValue.call(i)), 200)}|c:${NG.inputChecked.call(i) ? 1 : 0}`;
      } else if (tag === 'TEXTAREA') form = `v:${clip(String(NG.textareaValue.call(el)), 200)}`;
      else if (tag === 'SELECT') form = `s:${NG.selectIndex.call(el)}`;
      render = rendered(el) ? '1' : '0';
      const h = el as HTMLElement;
      if (typeof h.offsetWidth === 'number') render += `:${h.offsetWidth}x${h.offsetHeight}`;
    }
    const px = tag === 'CANVAS' ? canvasPixels(el as HTMLCanvasElement).hash : '';
    return base + SEP + form + SEP + render + SEP + px;
  }
  function storageState(): string {
    let s = '';
    try {
      for (const st of [localStorage, sessionStorage]) {
        const keys: string[] = [];
        for (let i = 0; i < st.length; i++) keys.push(st.key(i)!);
        keys.sort();
        for (const k of keys) s += `${k}=${String(st.getItem(k)).slice(0, 2000)};`;
        s += '|';
      }
      s += document.cookie;
    } catch {
      s += 'unavailable';
    }
    return s;
  }
  const normUrl = (u: string) => u.replace(/#$/, '');
  const SKIP_TAGS = /^(SCRIPT|STYLE|TEMPLATE|NOSCRIPT|LINK|META)$/;
  function records(excluded: Element | null): Map<string, string> {
    const out = new Map<string, string>();
    out.set('~url', normUrl(location.href));
    out.set('~title', document.title);
    out.set('~storage', storageState());
    const body = document.body;
    if (!body) return out;
    let n = 0;
    let rest = '';
    const skipOwn = (el: Element) => !!excluded && (el === excluded || ((excluded as HTMLLabelElement).control ?? null) === el);
    const walk = (el: Element, path: string) => {
      const kids = el.children;
      let k = 0;
      for (let i = 0; i < kids.length; i++) {
        const c = kids[i]!;
        if (SKIP_TAGS.test(c.tagName)) continue;
        const p = `${path}.${k++}`;
        if (n < cfg.maxElements) out.set(p, ownState(c, skipOwn(c)));
        else rest += ownState(c, false);
        n++;
        walk(c, p);
      }
    };
    walk(body, 'b');
    if (rest) out.set('~rest', fnv(rest));
    out.set('~count', String(n));
    return out;
  }
  /** Take a snapshot and keep it under `name`; with `send`, return its records hashed (path → hash). */
  function snapshot(name: string, exclude: number | null, send: boolean): Record<string, string> | number {
    const rec = records(exclude === null ? null : tagged[exclude] ?? null);
    stored[name] = rec;
    if (!send) return rec.size;
    const out: Record<string, string> = {};
    for (const [k, v] of rec) out[k] = k === '~count' ? v : fnv(v);
    return out;
  }

  const describe = (path: string): string => {
    if (path.startsWith('~')) return path.slice(1);
    let el: Element | null = document.body;
    for (const i of path.split('.').slice(1)) {
      const kids: Element[] = el ? Array.from(el.children).filter((c) => !SKIP_TAGS.test(c.tagName)) : [];
      el = kids[Number(i)] ?? null;
      if (!el) return path;
    }
    return el ? selectorOf(el) : path;
  };

  // ---------------------------------------------------------------------------------------------------
  // Views (navigation-reachability's alias rule).
  /**
   * The current view: address, and the own text and number of the rendered elements, leaving out the subtrees at
   * `ignore` (paths that change by themselves or differ between identical runs).
   */
  function view(status?: number, ignore: string[] = []) {
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
    txt = txt.replace(/\s+/g, ' ').trim();
    const hash = location.hash.length > 1 ? location.hash : '';
    let anchorExists = false;
    if (hash) {
      let id = hash.slice(1);
      try {
        id = decodeURIComponent(id);
      } catch {
        /* as is */
      }
      anchorExists = !!document.getElementById(id) || !!document.getElementsByName(id)[0];
    }
    const textHash = fnv(txt);
    return { key: `${location.pathname}${hash}|${textHash}|${count}`, path: location.pathname, hash, textHash, elements: count, text: txt.slice(0, 80), anchorExists, ...(status !== undefined && status !== null ? { status } : {}) };
  }

  // ---------------------------------------------------------------------------------------------------
  // Before and after an action.
  let marksAt: Record<string, number> = {};
  let focusBefore: Element | null = null;
  let scrollBefore = { x: 0, y: 0 };
  async function prepare(opts: { fill: boolean; target: number | null; exclude: number | null; prepMs: number; frames: boolean }) {
    const el = opts.target === null ? null : tagged[opts.target] ?? null;
    if (opts.target !== null && !el) return { missing: true };
    const filled = opts.fill ? fill(el && isTextField(el) ? el : null) : [];
    let scrolled = false;
    if (el) {
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
        scrolled = true;
      }
    }
    if (scrolled || opts.frames) await new Promise<void>((r) => N.rAF(() => N.rAF(() => r())));
    const adv = await advance(opts.prepMs);
    let point: { x: number; y: number } | null = null;
    let covered: string | null = null;
    if (el) {
      const r = el.getBoundingClientRect();
      const x = Math.min(Math.max(r.left + r.width / 2, 1), innerWidth - 2);
      const y = Math.min(Math.max(r.top + r.height / 2, 1), innerHeight - 2);
      point = { x, y };
      const hit = document.elementFromPoint(x, y);
      const lab = (el as HTMLLabelElement).control;
      if (hit && hit !== el && !el.contains(hit) && !(lab && (hit === lab || lab.contains(hit))) && !((el as HTMLInputElement).labels && Array.from((el as HTMLInputElement).labels ?? []).some((l) => l.contains(hit)))) covered = selectorOf(hit);
    }
    snapshot('pre', opts.exclude, false);
    marksAt = Object.fromEntries(Object.entries(events).map(([k, v]) => [k, v.length]));
    focusBefore = document.activeElement;
    scrollBefore = { x: scrollX, y: scrollY };
    reads.clear();
    tracking = true;
    return { missing: false, point, covered, filled, storm: adv.storm || adv.slow };
  }

  /**
   * After an action: differences from the `pre` snapshot (paths in `ignore` skipped; paths in `versus` compared
   * with that baseline's hash instead: they change by themselves), events recorded since, focus, scroll, reads.
   */
  function post(opts: { exclude: number | null; acted: number | null; ignore: string[]; versus: Record<string, string> }) {
    tracking = false;
    const own = opts.exclude === null ? null : tagged[opts.exclude] ?? null;
    const target = opts.acted === null ? null : tagged[opts.acted] ?? null;
    const pre = stored.pre ?? new Map<string, string>();
    const now = records(own);
    stored.post = now;
    const ign = opts.ignore;
    const ignored = (p: string) => ign.some((g) => p === g || p.startsWith(g + '.'));
    const cat = { dom: [] as string[], form: [] as string[], layout: [] as string[], canvas: [] as string[], url: [] as string[], storage: [] as string[] };
    let changed = 0;
    const keys = new Set<string>([...pre.keys(), ...now.keys()]);
    for (const k of keys) {
      if (k === '~count' || ignored(k)) continue;
      const after = now.get(k);
      const versus = Object.prototype.hasOwnProperty.call(opts.versus, k);
      const same = versus ? opts.versus[k] === (after === undefined ? undefined : fnv(after)) : pre.get(k) === after;
      if (same) continue;
      changed++;
      if (k === '~url') cat.url.push(normUrl(location.href));
      else if (k === '~storage') cat.storage.push('localStorage/sessionStorage/cookies');
      else if (k === '~title') cat.dom.push('document title');
      else if (k === '~rest') cat.dom.push('elements beyond the fingerprint cap');
      else {
        const d = describe(k);
        const a = pre.get(k);
        if (a === undefined || after === undefined || versus) {
          (after !== undefined && after.endsWith(SEP) === false && after.split(SEP)[3] ? cat.canvas : cat.dom).push(`${d}${a === undefined ? ' (added)' : after === undefined ? ' (removed)' : ''}`);
          continue;
        }
        const pa = a.split(SEP);
        const pb = after.split(SEP);
        if (pa[0] !== pb[0]) cat.dom.push(d);
        else if (pa[1] !== pb[1]) cat.form.push(d);
        else if (pa[2] !== pb[2]) cat.layout.push(d);
        else cat.canvas.push(d);
      }
    }
    const evs: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(events)) {
      const since = v.slice(marksAt[k] ?? 0);
      if (since.length) evs[k] = since;
    }
    const act = document.activeElement;
    let focus: string | null = null;
    if (act && act !== document.body && act !== document.documentElement && act !== focusBefore && !(target && (target === act || target.contains(act) || ((target as HTMLLabelElement).control ?? null) === act))) focus = selectorOf(act);
    const scrolled = Math.abs(scrollX - scrollBefore.x) > 2 || Math.abs(scrollY - scrollBefore.y) > 2;
    return { changed, cat, events: evs, focus, scrolled, reads: Array.from(reads), view: view(undefined, [...ign, ...Object.keys(opts.versus)]) };
  }

  /** Clear the storage the page can reach from script; true when it used more (cookies, IndexedDB, caches, workers). */
  function clearSession(): boolean {
    try {
      sessionStorage.clear();
      localStorage.clear();
    } catch {
      /* storage unavailable */
    }
    let cookies = false;
    try {
      cookies = document.cookie !== '';
    } catch {
      cookies = false;
    }
    return deepStorage || cookies;
  }

  const api = {
    advance,
    now: () => vnow,
    pending: () => timers.size,
    firstView,
    mark,
    enumerate,
    tag,
    el: (i: number) => tagged[i] ?? null,
    fill,
    prepare,
    snapshot,
    post,
    view,
    clearSession,
    events: () => events,
    errors: () => errs.map((e) => ({ kind: e.kind, message: e.message })),
    setValue,
    selectOther(i: number) {
      const s = tagged[i] as HTMLSelectElement | null;
      if (!s) return null;
      const cur = NG.selectIndex.call(s) as number;
      const opts = Array.from(s.options);
      const j = opts.findIndex((o, k) => k !== cur && !o.disabled);
      if (j < 0) return null;
      s.selectedIndex = j;
      s.dispatchEvent(new Event('input', { bubbles: true }));
      s.dispatchEvent(new Event('change', { bubbles: true }));
      return opts[j]!.text.slice(0, 40);
    },
    setOwnValue(i: number) {
      const el = tagged[i] as HTMLInputElement | null;
      if (!el) return null;
      const v: Record<string, string> = { color: '#3366cc', date: '2026-01-15', time: '13:30', 'datetime-local': '2026-01-15T13:30', month: '2026-01', week: '2026-W03' };
      const val = v[el.type] ?? '';
      setValue(el, val);
      return val;
    },
    fillValue: (i: number) => {
      const el = tagged[i];
      return el ? fillValue(el) : 'test';
    },
    stripTarget(i: number) {
      tagged[i]?.removeAttribute('target');
    },
    blur() {
      (document.activeElement as HTMLElement | null)?.blur?.();
    },
    docId: () => performance.timeOrigin,
  };
  Object.defineProperty(w, '__wgProbe', { value: api, enumerable: false, configurable: false, writable: false });
  /* eslint-enable @typescript-eslint/no-explicit-any */
}

/** The script text for `Page.addScriptToEvaluateOnNewDocument`. */
export function probeScript(cfg: ProbeConfig): string {
  return `(${seedRandomness.toString()})(${JSON.stringify(cfg.seed)});\n(${probeInit.toString()})(${JSON.stringify(cfg)});`;
}
