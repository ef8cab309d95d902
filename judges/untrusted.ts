/**
 * Page code and requirement text are untrusted data inside a judge prompt.
 *
 * Delimiting: each data block is enclosed as
 *   ⟦BEGIN <LABEL> <id>⟧ … ⟦END <LABEL> <id>⟧
 * where <id> is the first 12 hex digits of the sha256 of the (neutralised) content. The id is deterministic (the
 * prompt, and so the cache key, is the same on every run) and a page cannot contain its own closing marker,
 * because the marker depends on the hash of the content that would contain it.
 *
 * Neutralising look-alikes: inside the content the bracket characters ⟦ ⟧ (and their look-alikes 〚 〛) become
 * plain [ ], and any text that reads like one of our markers ("END PAGE CODE", "begin_requirement", ...) is
 * rewritten to "[quoted marker: …]", so that neither the model nor a reader can mistake it for the real end of
 * the block. The system prompt says that everything between markers is data, never instructions.
 *
 * Truncation policy (`sourceView`), in order; each step is recorded in `SourceView.notes`:
 *  1. Files: the entry HTML first, then the other HTML, JS and CSS files in artifact order. Images, fonts, SVG
 *     files and data files are not sent (listed by name only).
 *  2. Always: `data:` URLs longer than 200 characters become `data:<type>,…[N chars elided]`; SVG path data
 *     (`d="…"`, `points="…"`) longer than 200 characters is elided the same way; lines longer than 2,000
 *     characters are cut there (minified code). These carry nothing a judge can read.
 *  3. If the total is still above `maxChars`: files that look vendored (`*.min.js`, `*.min.css`, a `vendor/`,
 *     `lib/` or `libs/` folder) are replaced by a one-line note.
 *  4. If still above: the budget is shared by water-filling: files that fit their equal share are kept whole and
 *     the rest of the budget is split evenly among the larger ones; each of those keeps its first 70 % and last
 *     30 % (cut at line ends) around a `…[N chars of <file> truncated]…` line. Head and tail are kept because
 *     the markup and setup come first and the event wiring/initialisation of generated apps usually comes last.
 *
 * Everything the page or the artifact supplies goes inside a data block, never in the harness's own lines: the
 * code, and also the file names (the `=== file: … ===` headers and the notes above, which name files: `codeBlock`
 * puts the notes at the top of the PAGE CODE block), and, for the requirement-test agent, the page's texts, its
 * address and what each step did (prompts/agent.ts). A name or a short text from the page is shown as one line
 * (`pageLine`: control characters escaped, so a newline cannot start a line of its own) cut at a stated length;
 * a list of names (vendored files) is cut at MAX_LISTED_NAMES.
 */
import { createHash } from 'node:crypto';
import type { Artifact } from '../core/artifact/model.js';

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

const MARKER_WORDS = '(?:PAGE[\\s_-]*CODE|REQUIREMENT|CHECKLIST|SCREENSHOT|DATA)';
const MARKER_RE = new RegExp(`\\b(BEGIN|END)[\\s_-]*(?:OF[\\s_-]*)?${MARKER_WORDS}\\b`, 'gi');

/** Make `text` unable to close or fake a data block. */
export function neutralise(text: string): string {
  return text
    .replace(/[⟦〚]/g, '[')
    .replace(/[⟧〛]/g, ']')
    .replace(MARKER_RE, (m) => `[quoted marker: ${m.toLowerCase().replace(/[\s_-]+/g, ' ')}]`);
}

export interface DataBlock {
  id: string;
  text: string;
}

/** Enclose untrusted `content` between markers labelled `label` (e.g. "PAGE CODE"). */
export function dataBlock(label: string, content: string): DataBlock {
  const safe = neutralise(content);
  const id = shortHash(safe);
  return { id, text: `⟦BEGIN ${label} ${id}⟧\n${safe}\n⟦END ${label} ${id}⟧` };
}

/**
 * A name or short text the page or the artifact supplies (a file name, an address, a text on a control), as one
 * line of at most `max` characters: control and line-separator characters escaped as `\uXXXX`, the cut said.
 */
export function pageLine(text: string, max = 200): string {
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return line.length > max ? `${line.slice(0, max)}…[${line.length - max} chars cut]` : line;
}

/** Names listed at most in one note (the vendored files left out). */
export const MAX_LISTED_NAMES = 20;

export interface SourceFileView {
  path: string;
  originalChars: number;
  keptChars: number;
}

export interface SourceView {
  /** The files joined, each under a `=== file: <path> ===` header (not yet delimited). */
  text: string;
  files: SourceFileView[];
  originalChars: number;
  keptChars: number;
  /** What the truncation policy did, for details. */
  notes: string[];
  /** Files not sent at all (binary, data, vendored). */
  omitted: string[];
}

export const MAX_LINE_CHARS = 2000;

function elideLong(text: string): { text: string; elided: number } {
  let elided = 0;
  let out = text.replace(/data:([\w.+-]+\/[\w.+-]+)?[^"'()\s]{200,}/g, (m, type: string | undefined) => {
    elided++;
    return `data:${type ?? ''},…[${m.length} chars elided]`;
  });
  out = out.replace(/(\s(?:d|points)\s*=\s*)(["'])([^"']{200,})\2/g, (_m, pre: string, q: string, body: string) => {
    elided++;
    return `${pre}${q}…[${body.length} chars of path data elided]${q}`;
  });
  const lines = out.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.length > MAX_LINE_CHARS) {
      elided++;
      lines[i] = l.slice(0, MAX_LINE_CHARS) + `…[line cut, ${l.length - MAX_LINE_CHARS} more chars]`;
    }
  }
  return { text: lines.join('\n'), elided };
}

const VENDOR_RE = /(^|\/)(vendor|vendors|lib|libs)\/|\.min\.(js|css)$/i;

/** Keep `budget` characters of `text`: 70 % head, 30 % tail, cut at line ends. */
export function headTail(text: string, budget: number, path: string): string {
  if (text.length <= budget) return text;
  const headLen = Math.floor(budget * 0.7);
  const tailLen = budget - headLen;
  let head = text.slice(0, headLen);
  const nl = head.lastIndexOf('\n');
  if (nl > headLen * 0.5) head = head.slice(0, nl + 1);
  let tail = text.slice(text.length - tailLen);
  const nl2 = tail.indexOf('\n');
  if (nl2 >= 0 && nl2 < tailLen * 0.5) tail = tail.slice(nl2 + 1);
  const cut = text.length - head.length - tail.length;
  return `${head}${head.endsWith('\n') ? '' : '\n'}…[${cut} chars of ${path} truncated]…\n${tail}`;
}

/** Water-filling: the share each length gets out of `budget`. */
export function shares(lengths: readonly number[], budget: number): number[] {
  const out = lengths.map(() => 0);
  let left = budget;
  let open = lengths.map((_, i) => i);
  while (open.length > 0) {
    const each = Math.floor(left / open.length);
    const fits = open.filter((i) => lengths[i]! <= each);
    if (fits.length === 0) {
      for (const i of open) out[i] = each;
      break;
    }
    for (const i of fits) {
      out[i] = lengths[i]!;
      left -= lengths[i]!;
    }
    open = open.filter((i) => !fits.includes(i));
  }
  return out;
}

/** The artifact's code as judges see it, within `maxChars` (see the module comment for the policy). */
export function sourceView(artifact: Artifact, maxChars: number): SourceView {
  const notes: string[] = [];
  const omitted: string[] = [];
  const order = (k: string) => (k === 'html' ? 0 : k === 'js' ? 1 : 2);
  const files = artifact.files
    .filter((f) => {
      const code = f.text !== undefined && (f.kind === 'html' || f.kind === 'js' || f.kind === 'css');
      if (!code) omitted.push(f.path);
      return code;
    })
    .sort((a, b) => (a.path === artifact.entry ? -1 : b.path === artifact.entry ? 1 : order(a.kind) - order(b.kind)));
  let elidedTotal = 0;
  let parts = files.map((f) => {
    const e = elideLong(f.text!);
    elidedTotal += e.elided;
    return { path: f.path, original: f.text!.length, text: e.text };
  });
  if (elidedTotal > 0) notes.push(`${elidedTotal} long data URLs, SVG paths or lines elided`);
  const header = (p: string) => `=== file: ${pageLine(p, 400)} ===\n`;
  const total = () => parts.reduce((s, p) => s + header(p.path).length + p.text.length + 1, 0);
  if (total() > maxChars) {
    const vendored = parts.filter((p) => p.path !== artifact.entry && VENDOR_RE.test(p.path));
    if (vendored.length) {
      parts = parts.filter((p) => !vendored.includes(p));
      for (const v of vendored) omitted.push(v.path);
      const names = vendored.slice(0, MAX_LISTED_NAMES).map((v) => pageLine(v.path));
      const more = vendored.length - names.length;
      notes.push(`vendored files left out: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
    }
  }
  if (total() > maxChars) {
    const overhead = parts.reduce((s, p) => s + header(p.path).length + 1 + 60, 0);
    const budgets = shares(
      parts.map((p) => p.text.length),
      Math.max(1000, maxChars - overhead),
    );
    parts = parts.map((p, i) => {
      if (p.text.length <= budgets[i]!) return p;
      notes.push(`${pageLine(p.path)}: kept ${budgets[i]} of ${p.text.length} chars (head 70 %, tail 30 %)`);
      return { ...p, text: headTail(p.text, budgets[i]!, p.path) };
    });
  }
  const text = parts.map((p) => header(p.path) + p.text).join('\n');
  return {
    text,
    files: parts.map((p) => ({ path: p.path, originalChars: p.original, keptChars: p.text.length })),
    originalChars: files.reduce((s, f) => s + f.text!.length, 0),
    keptChars: text.length,
    notes,
    omitted,
  };
}

/**
 * The PAGE CODE block of a source view: the notes on what was cut or left out first (they name the artifact's
 * files, so they are data too), then the files. Without notes it is exactly `dataBlock('PAGE CODE', view.text)`.
 */
export function codeBlock(view: SourceView): DataBlock {
  return dataBlock('PAGE CODE', view.notes.length ? `=== notes: what was cut or left out ===\n${view.notes.join('\n')}\n${view.text}` : view.text);
}

/** The harness's line that introduces a code block: how many files, and whether notes open the block. */
export function codeIntro(view: SourceView): string {
  return `The generated code (${view.files.length} file(s)${view.notes.length ? '; notes on what was cut or left out open the block' : ''}):`;
}
