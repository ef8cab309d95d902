/**
 * The page's storage: its state in snapshots, and its clearing between actions. Storage beyond
 * localStorage/sessionStorage is cleared through the browser, which is slow, so only when the page used it.
 */
import { w } from './config.js';
import { wrap } from './effects.js';

const storage = { deep: false };

export function installStorageWatch(): void {
  const used = () => {
    storage.deep = true;
  };
  wrap(w.indexedDB, 'open', used);
  wrap(w.caches, 'open', used);
  wrap(w.navigator?.serviceWorker, 'register', used);
  wrap(w.navigator?.storage, 'getDirectory', used);
}

/** localStorage, sessionStorage (sorted by key) and cookies as one string. */
export function storageState(): string {
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

/** Clear the storage the page can reach from script; true when it used more (cookies, IndexedDB, caches, workers). */
export function clearSession(): boolean {
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
  return storage.deep || cookies;
}
