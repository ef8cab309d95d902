/**
 * Recorders of what the page does outside its DOM, in the page's own world because they wrap the functions the
 * page calls: dialogs, sound, clipboard, downloads, popups and browser prompts are noted and answered as a
 * dismissing person would, without touching the machine (no dialog waits, no clipboard written, no file saved);
 * the page's reads of its form fields are noted while an action is observed (a field that feeds something is live
 * even when typing into it shows nothing); which canvases got which context; whether the page used storage beyond
 * localStorage. Their state is held in this closure and leaves only through the agent's answers (index.ts): a
 * page can call the wrapped functions (that is what is recorded), but cannot add to, remove from or read what was
 * recorded. Everything here follows the rules of primordials.ts.
 */
import { w } from './config.js';
import {
  JSONStringify,
  ReflectApply,
  SetCtor,
  StringCtor,
  WeakMapCtor,
  add,
  anchorDownload,
  anchorHref,
  docQuerySelector,
  docQuerySelectorAll,
  elClosest,
  elHasAttribute,
  elTagName,
  eventTarget,
  inputLabels,
  mediaCurrentSrc,
  mediaSrc,
  nodeListItem,
  nodeListLength,
  record,
  setAdd,
  setClear,
  setIteratorNext,
  setValues,
  stringSlice,
  stringStartsWith,
  stringToLowerCase,
  weakMapGet,
  weakMapSet,
} from './primordials.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The kinds of events recorded, in the order they are reported. */
export const EVENT_KINDS = ['dialog', 'audio', 'clipboard', 'download', 'popup', 'prompt', 'close'];
const events = record<string[]>();
for (let i = 0; i < EVENT_KINDS.length; i++) events[EVENT_KINDS[i]!] = [];

const clip = (s: unknown, n: number): string => {
  let t = '';
  try {
    t = StringCtor(s);
  } catch {
    t = '';
  }
  return stringSlice(t, 0, n);
};

/** Note one event (at most 50 of a kind are kept with their detail). */
export function note(kind: string, detail: string): void {
  const list = events[kind]!;
  add(list, list.length < 50 ? stringSlice(detail, 0, 120) : '');
}

/** How many events of each kind so far (`since` takes the ones after such a mark). */
export function eventMarks(): Record<string, number> {
  const out = record<number>();
  for (let i = 0; i < EVENT_KINDS.length; i++) out[EVENT_KINDS[i]!] = events[EVENT_KINDS[i]!]!.length;
  return out;
}

/** The events recorded after `marks`, by kind (kinds without any left out). */
export function eventsSince(marks: Record<string, number>): Record<string, string[]> {
  const out = record<string[]>();
  for (let i = 0; i < EVENT_KINDS.length; i++) {
    const k = EVENT_KINDS[i]!;
    const list = events[k]!;
    const from = marks[k] ?? 0;
    if (list.length <= from) continue;
    const since: string[] = [];
    for (let j = from; j < list.length; j++) add(since, list[j]!);
    out[k] = since;
  }
  return out;
}

/** Call `before` ahead of `obj[name]` each time, never letting the recording break the page. */
function wrap(obj: any, name: string, before: (self: any, args: unknown[]) => void): void {
  if (!obj || typeof obj[name] !== 'function') return;
  const orig = obj[name];
  obj[name] = function (this: unknown, ...args: unknown[]) {
    try {
      before(this, args);
    } catch {
      /* recording never breaks the page */
    }
    return ReflectApply(orig, this, args);
  };
}

function installDialogs(): void {
  const stubDialog = (name: string, ret: unknown) =>
    function (msg?: unknown) {
      note('dialog', name + '(' + (msg === undefined ? '' : JSONStringify(clip(msg, 60))) + ')');
      return ret;
    };
  w.alert = stubDialog('alert', undefined);
  w.confirm = stubDialog('confirm', false);
  w.prompt = stubDialog('prompt', null);
  w.print = stubDialog('print', undefined);
  w.close = function () {
    note('close', 'window.close()');
  };
}

function mediaName(self: unknown): string {
  let src = '';
  try {
    src = StringCtor(mediaCurrentSrc(self) || mediaSrc(self) || '');
  } catch {
    src = '';
  }
  let tag = 'media';
  try {
    tag = stringToLowerCase(StringCtor(elTagName(self)));
  } catch {
    tag = 'media';
  }
  return '<' + tag + '>.play() ' + stringSlice(src, -60);
}

function installSoundAndWindows(): void {
  wrap(w.AudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  wrap(w.webkitAudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  const nodeName = (self: any) => {
    try {
      return clip(self?.constructor?.name ?? 'source', 40);
    } catch {
      return 'source';
    }
  };
  wrap(w.AudioScheduledSourceNode?.prototype, 'start', (self) => note('audio', nodeName(self) + '.start()'));
  wrap(w.HTMLMediaElement?.prototype, 'play', (self) => note('audio', mediaName(self)));
  wrap(w.speechSynthesis, 'speak', () => note('audio', 'speechSynthesis.speak()'));
  wrap(w, 'open', (_s, a) => note('popup', 'window.open(' + clip(a[0] ?? '', 80) + ')'));
  wrap(w, 'showSaveFilePicker', () => note('download', 'showSaveFilePicker()'));
}

/** Browser choosers and prompts: a person would see them open. */
function installPrompts(): void {
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
}

/** Clipboard calls resolve without a clipboard: the test text is read, writes are only noted. */
function installClipboard(): void {
  const resolved = w.Promise.resolve.bind(w.Promise) as (v?: unknown) => Promise<unknown>;
  try {
    const CB = w.Clipboard?.prototype;
    if (CB) {
      CB.readText = function () {
        note('clipboard', 'readText');
        return resolved('test text');
      };
      CB.read = function () {
        note('clipboard', 'read');
        return resolved([]);
      };
      CB.writeText = function (t: unknown) {
        note('clipboard', 'writeText ' + JSONStringify(clip(t, 40)));
        return resolved();
      };
      CB.write = function () {
        note('clipboard', 'write');
        return resolved();
      };
    }
    const exec = Document.prototype.execCommand;
    Document.prototype.execCommand = function (this: Document, cmd: string) {
      const c = stringToLowerCase(clip(cmd, 20));
      if (c === 'copy' || c === 'cut') {
        note('clipboard', 'execCommand(' + c + ')');
        return true;
      }
      // eslint-disable-next-line prefer-rest-params
      return ReflectApply(exec, this, arguments) as boolean;
    } as typeof exec;
  } catch {
    /* leave it */
  }
}

const downloadLink = (a: unknown): boolean => {
  if (!a) return false;
  try {
    if (elHasAttribute(a, 'download')) return true;
    const href = stringToLowerCase(StringCtor(anchorHref(a) ?? ''));
    return stringStartsWith(href, 'blob:') || stringStartsWith(href, 'data:');
  } catch {
    return false; // not an anchor
  }
};
const downloadName = (a: unknown): string => StringCtor(anchorDownload(a) || stringSlice(StringCtor(anchorHref(a) ?? ''), 0, 60));

/** A download is a `download`/blob:/data: link clicked, from script or by the probe. */
function installDownloads(): void {
  try {
    const aClick = HTMLElement.prototype.click;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      if (downloadLink(this)) note('download', downloadName(this));
      return ReflectApply(aClick, this, []);
    };
  } catch {
    /* leave it */
  }
  document.addEventListener(
    'click',
    (e) => {
      // `isTrusted` is the event's own unforgeable property; the rest is read through captured getters.
      if (!e.isTrusted) return;
      let a: unknown = null;
      try {
        a = elClosest(eventTarget(e), 'a');
      } catch {
        a = null; // the target is not an element
      }
      if (downloadLink(a)) note('download', downloadName(a));
    },
    true,
  );
}

/** Which context each canvas was given ('2d', 'webgl'); WebGL keeps its drawing buffer so it can be read back. */
const canvasKind = new WeakMapCtor<object, string>();

function installCanvas(): void {
  try {
    const getCtx = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, attrs?: Record<string, unknown>) {
      const t = stringToLowerCase(clip(type, 30));
      if (t === 'webgl' || t === 'webgl2' || t === 'experimental-webgl') {
        weakMapSet(canvasKind, this, 'webgl');
        const a = record<unknown>();
        if (attrs && typeof attrs === 'object') for (const k in attrs) a[k] = attrs[k];
        a.preserveDrawingBuffer = true;
        return ReflectApply(getCtx, this, [type, a]);
      }
      if (t === '2d' && weakMapGet(canvasKind, this) === undefined) weakMapSet(canvasKind, this, '2d');
      return ReflectApply(getCtx, this, [type, attrs]);
    } as typeof getCtx;
  } catch {
    /* leave it */
  }
}

/** The context kind of every canvas in the document, in document order ('' for one without a context). */
export function canvasKinds(): string[] {
  const list = docQuerySelectorAll(document, 'canvas');
  const out: string[] = [];
  const n = nodeListLength(list) as number;
  for (let i = 0; i < n; i++) add(out, weakMapGet(canvasKind, nodeListItem(list, i) as object) ?? '');
  return out;
}

/** The fields the probe tagged (element → index) and the reads seen while tracking. */
const tagging = { tags: new WeakMapCtor<object, number>(), tracking: false, reads: new SetCtor<number>() };

function noteRead(el: unknown): void {
  if (!tagging.tracking) return;
  const i = weakMapGet(tagging.tags, el as object);
  if (i !== undefined) {
    setAdd(tagging.reads, i);
    return;
  }
  // A radio button or a field reached through its label: the tagged label that owns it.
  try {
    const labels = inputLabels(el);
    const first = labels && (nodeListLength(labels) as number) > 0 ? nodeListItem(labels, 0) : null;
    const j = first ? weakMapGet(tagging.tags, first) : undefined;
    if (j !== undefined) setAdd(tagging.reads, j);
  } catch {
    /* not a field */
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
      return ReflectApply(g, this, []);
    },
  });
}

function installReads(): void {
  const inputProps = ['value', 'valueAsNumber', 'valueAsDate', 'checked', 'files'];
  for (let i = 0; i < inputProps.length; i++) trackGetter(HTMLInputElement.prototype, inputProps[i]!);
  trackGetter(HTMLTextAreaElement.prototype, 'value');
  const selectProps = ['value', 'selectedIndex', 'selectedOptions'];
  for (let i = 0; i < selectProps.length; i++) trackGetter(HTMLSelectElement.prototype, selectProps[i]!);
  try {
    const FD = w.FormData;
    const formElements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements')?.get;
    const collLength = Object.getOwnPropertyDescriptor(HTMLCollection.prototype, 'length')?.get;
    const collItem = HTMLCollection.prototype.item;
    w.FormData = class extends FD {
      constructor(form?: HTMLFormElement, ...rest: unknown[]) {
        if (form && tagging.tracking && formElements && collLength) {
          try {
            const els = ReflectApply(formElements, form, []);
            const n = ReflectApply(collLength, els, []) as number;
            for (let i = 0; i < n; i++) noteRead(ReflectApply(collItem, els, [i]));
          } catch {
            /* not a form */
          }
        }
        super(form, ...(rest as []));
      }
    };
  } catch {
    /* leave it */
  }
}

/** Tag the elements the selectors find (index → element) for read tracking; returns the indices not found. */
export function tag(selectors: Array<string | null>): number[] {
  const missing: number[] = [];
  tagging.tags = new WeakMapCtor<object, number>();
  for (let i = 0; i < selectors.length; i++) {
    const sel = selectors[i];
    if (!sel || sel === 'document') continue;
    let el: Element | null = null;
    try {
      el = docQuerySelector(document, sel);
    } catch {
      el = null;
    }
    if (el) weakMapSet(tagging.tags, el, i);
    else add(missing, i);
  }
  return missing;
}

/** Start noting reads (an action is about to be observed). */
export function startReads(): void {
  setClear(tagging.reads);
  tagging.tracking = true;
}

/** Stop noting reads; the tagged indices read since `startReads`. */
export function stopReads(): number[] {
  tagging.tracking = false;
  const out: number[] = [];
  const it = setValues(tagging.reads);
  for (let r = setIteratorNext(it); !r.done; r = setIteratorNext(it)) add(out, r.value as number);
  return out;
}

const started = { workers: 0 };

/** Workers the page started (dedicated or shared): the page clock is then paced by real time (clock.ts). */
export const workersStarted = (): number => started.workers;

export function installWorkerWatch(): void {
  for (const name of ['Worker', 'SharedWorker']) {
    const W = w[name];
    if (typeof W !== 'function') continue;
    try {
      w[name] = class extends W {
        constructor(...a: unknown[]) {
          super(...(a as []));
          started.workers++;
        }
      };
    } catch {
      /* leave it */
    }
  }
}

const storage = { deep: false };

function installStorageWatch(): void {
  const used = () => {
    storage.deep = true;
  };
  wrap(w.indexedDB, 'open', used);
  wrap(w.caches, 'open', used);
  wrap(w.navigator?.serviceWorker, 'register', used);
  wrap(w.navigator?.storage, 'getDirectory', used);
}

/** The page used storage that clearing localStorage and sessionStorage does not reach (IndexedDB, caches, workers). */
export const deepStorage = (): boolean => storage.deep;

/** Install every recorder (before the page's scripts, as the page meets them). */
export function installRecorders(): void {
  installDialogs();
  installSoundAndWindows();
  installPrompts();
  installClipboard();
  installDownloads();
  installCanvas();
  installStorageWatch();
  installWorkerWatch();
  installReads();
}
/* eslint-enable @typescript-eslint/no-explicit-any */
