/** Small text utilities shared by the artifact model and the metrics. */

/** Number of physical lines: a final line break does not start a new line; an empty text has 0 lines. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      n++;
      if (text.charCodeAt(i + 1) === 10) i++;
    }
  }
  const last = text.charCodeAt(text.length - 1);
  if (last === 10 || last === 13) n--;
  return n;
}

/** Split into lines on \n, \r\n or \r. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Maps a character offset in a text to a 1-based line and column. Build once per text, query many times.
 */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      }
    }
  }
  position(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

/**
 * Characters that must not reach a terminal as they are: C0 controls (ESC starts escape sequences: OSC 52
 * writes the clipboard, others retitle the window or move the cursor; CR overwrites a line), DEL, C1 controls
 * (0x9B is a one-character CSI) and the Unicode bidirectional and invisible format controls that reorder or hide
 * text. Tab and newline are kept by `printableText`, escaped by `printable`.
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const CONTROL_WITH_LINES = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

function escapeControl(c: string): string {
  const n = c.charCodeAt(0);
  return n <= 0xff ? `\\x${n.toString(16).toUpperCase().padStart(2, '0')}` : `\\u${n.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * One value for human-readable output (a table cell, a name, a reason, a URL): every control character,
 * newlines and tabs included, shown as a visible escape (`\x1B`), so a value is one line and cannot drive the
 * terminal. JSON output is never passed through this (it stays exact).
 */
export function printable(value: string): string {
  return value.replace(CONTROL_WITH_LINES, escapeControl);
}

/** Human-readable output of several lines: as `printable`, but newlines and tabs are kept. */
export function printableText(text: string): string {
  return text.replace(CONTROL, escapeControl);
}
