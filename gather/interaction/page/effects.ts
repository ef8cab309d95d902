/**
 * Effect recorders: what an action makes the page do outside its DOM (dialogs, sound, clipboard, downloads,
 * popups, browser prompts) is noted here, answered as a dismissing person would and without touching the
 * machine (no dialog waits, no clipboard written, no file saved).
 */
import { w } from './config.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const events: Record<string, string[]> = { dialog: [], audio: [], clipboard: [], download: [], popup: [], prompt: [], close: [] };

export function note(kind: string, detail: string): void {
  const list = events[kind]!;
  if (list.length < 50) list.push(detail.slice(0, 120));
  else list.push('');
}

/** Call `before` ahead of `obj[name]` each time, never letting the recording break the page. */
export function wrap(obj: any, name: string, before: (self: any, args: unknown[]) => void): void {
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
}

function installDialogs(): void {
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
}

function installSoundAndWindows(): void {
  wrap(w.AudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  wrap(w.webkitAudioContext?.prototype, 'resume', () => note('audio', 'AudioContext.resume()'));
  wrap(w.AudioScheduledSourceNode?.prototype, 'start', (self) => note('audio', `${self?.constructor?.name ?? 'source'}.start()`));
  wrap(w.HTMLMediaElement?.prototype, 'play', (self) =>
    note('audio', `<${String(self?.tagName ?? 'media').toLowerCase()}>.play() ${String(self?.currentSrc || self?.src || '').slice(-60)}`),
  );
  wrap(w.speechSynthesis, 'speak', () => note('audio', 'speechSynthesis.speak()'));
  wrap(w, 'open', (_s, a) => note('popup', `window.open(${String(a[0] ?? '').slice(0, 80)})`));
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
}

const downloadLink = (a: any) => a && (a.hasAttribute?.('download') || /^(blob|data):/i.test(String(a.href ?? '')));

/** A download is a `download`/blob:/data: link clicked, from script or by the probe. */
function installDownloads(): void {
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
}

/** Install the recorders (before the canvas hook, as the page meets them). */
export function installEffects(): void {
  installDialogs();
  installSoundAndWindows();
  installPrompts();
  installClipboard();
  installDownloads();
}
/* eslint-enable @typescript-eslint/no-explicit-any */
