/**
 * The page's storage: its state in snapshots, and its clearing between actions. Storage beyond
 * localStorage/sessionStorage is cleared through the browser, which is slow, so only when the page used it (the
 * main-world agent notes that: main/recorders.ts `deepStorage`) or set cookies.
 */

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

/** Clear the storage the page can reach from script; true when it set cookies (the browser clears those). */
export function clearSession(): boolean {
  try {
    sessionStorage.clear();
    localStorage.clear();
  } catch {
    /* storage unavailable */
  }
  try {
    return document.cookie !== '';
  } catch {
    return false;
  }
}
