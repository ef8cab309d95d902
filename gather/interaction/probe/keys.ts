/** Keys a document-level key listener tests: the keyboard control presses those (or the defaults). */

const KEY_CODES: Record<number, string> = { 13: 'Enter', 32: ' ', 37: 'ArrowLeft', 38: 'ArrowUp', 39: 'ArrowRight', 40: 'ArrowDown', 27: 'Escape' };
const NAMED = [
  'Enter',
  ' ',
  'Space',
  'ArrowLeft',
  'ArrowUp',
  'ArrowRight',
  'ArrowDown',
  'Escape',
  'Esc',
  'Backspace',
  'Delete',
  'Tab',
  'Home',
  'End',
  'PageUp',
  'PageDown',
];
export const DEFAULT_KEYS = ['Enter', ' ', 'ArrowUp', 'ArrowRight', 'ArrowDown', 'ArrowLeft'];
const KEY_ORDER = (k: string) => (k === ' ' ? 0 : k === 'Enter' ? 1 : k.startsWith('Arrow') ? 2 : 3);

/**
 * The keys a listener's source tests (`key === 'ArrowUp'`, `case 'w':`, `code === 'KeyW'`, `keyCode === 37`),
 * Space and Enter first, then arrows, then the rest; at most 8. Empty when none is named.
 */
export function keysOf(sources: readonly string[]): string[] {
  const found = new Set<string>();
  for (const src of sources) {
    for (const m of src.matchAll(/['"`](Arrow(?:Up|Down|Left|Right)|Enter|Escape|Esc|Backspace|Delete|Tab|Home|End|PageUp|PageDown|Space| )['"`]/g))
      found.add(m[1] === 'Space' ? ' ' : m[1] === 'Esc' ? 'Escape' : m[1]!);
    for (const m of src.matchAll(/\b(?:key|code)\s*(?:===?|!==?)\s*['"`]([^'"`]{1,12})['"`]/gi)) found.add(normaliseKey(m[1]!));
    for (const m of src.matchAll(/\bcase\s+['"`]([^'"`]{1,12})['"`]\s*:/g)) found.add(normaliseKey(m[1]!));
    for (const m of src.matchAll(/\b(?:keyCode|which)\s*(?:===?|!==?)\s*(\d{1,3})\b/g)) {
      const n = Number(m[1]);
      if (KEY_CODES[n]) found.add(KEY_CODES[n]!);
      else if (n >= 65 && n <= 90) found.add(String.fromCharCode(n + 32));
      else if (n >= 48 && n <= 57) found.add(String.fromCharCode(n));
    }
  }
  const keys = [...found].filter((k) => NAMED.includes(k) || /^[a-z0-9]$/i.test(k));
  return keys.sort((a, b) => KEY_ORDER(a) - KEY_ORDER(b) || a.localeCompare(b)).slice(0, 8);
}

function normaliseKey(k: string): string {
  if (k === 'Space' || k === 'Spacebar') return ' ';
  if (k === 'Esc') return 'Escape';
  const code = /^Key([A-Z])$/.exec(k);
  if (code) return code[1]!.toLowerCase();
  const digit = /^Digit(\d)$/.exec(k);
  if (digit) return digit[1]!;
  return k;
}

export const keyName = (k: string) => (k === ' ' ? 'Space' : k);
