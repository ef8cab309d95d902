/**
 * A metric's `details` in words, for the artifact page: any shape, generically (a metric added later, or issue
 * 33's requirement tests, shows without code here). Keys become words (`overflowPx` → "overflow px"), numbers are
 * rounded, lists of plain values are joined, lists of objects become small tables, nested objects nested lists.
 *
 * Interpretations: depth is cut at 4, lists at 25 entries and strings at 400 characters, each cut said in the
 * page ("… 12 more"); keys holding machine data a reader cannot use (`screenshot` hashes, `seed`, raw `boxes`,
 * `contours`) are left out; every string is escaped here, so the template inserts the result raw.
 */
import { escapeHtml } from '../lib/html.js';

const HIDDEN = new Set(['screenshot', 'seed', 'boxes', 'contours', 'png', 'crop', 'curve']);
const MAX_DEPTH = 4;
const MAX_ITEMS = 25;
const MAX_TEXT = 400;

/** `overflowPx` → "overflow px", `failing_audits` → "failing audits". */
export function keyWords(key: string): string {
  return key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim();
}

function scalar(v: unknown): string | null {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 100) / 100);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v;
  return null;
}

function more(n: number): string {
  return n > 0 ? `<li class="more">… ${n} more</li>` : '';
}

function table(items: readonly Record<string, unknown>[], depth: number): string {
  const cols: string[] = [];
  for (const it of items.slice(0, MAX_ITEMS)) for (const k of Object.keys(it)) if (!HIDDEN.has(k) && !cols.includes(k) && cols.length < 7) cols.push(k);
  const head = cols.map((c) => `<th scope="col">${escapeHtml(keyWords(c))}</th>`).join('');
  const body = items
    .slice(0, MAX_ITEMS)
    .map((it) => `<tr>${cols.map((c) => `<td>${value(it[c], depth + 1)}</td>`).join('')}</tr>`)
    .join('');
  const rest = items.length > MAX_ITEMS ? `<p class="more">… ${items.length - MAX_ITEMS} more</p>` : '';
  return `<div class="wrap"><table class="details"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>${rest}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function value(v: unknown, depth: number): string {
  const s = scalar(v);
  if (s !== null) return escapeHtml(s);
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(v)) {
    if (v.length === 0) return 'none';
    if (v.every((x) => scalar(x) !== null)) {
      const shown = v.slice(0, MAX_ITEMS).map((x) => escapeHtml(scalar(x)!));
      return shown.join(', ') + (v.length > MAX_ITEMS ? `, … ${v.length - MAX_ITEMS} more` : '');
    }
    if (v.every(isPlainObject)) return table(v as Record<string, unknown>[], depth);
    return `<ul>${v
      .slice(0, MAX_ITEMS)
      .map((x) => `<li>${value(x, depth + 1)}</li>`)
      .join('')}${more(v.length - MAX_ITEMS)}</ul>`;
  }
  if (isPlainObject(v)) return list(v, depth + 1);
  return escapeHtml(String(v));
}

function list(o: Record<string, unknown>, depth: number): string {
  const keys = Object.keys(o).filter((k) => !HIDDEN.has(k));
  if (keys.length === 0) return 'none';
  const items = keys.slice(0, MAX_ITEMS).map((k) => `<li><span class="k">${escapeHtml(keyWords(k))}</span>: ${value(o[k], depth)}</li>`);
  return `<ul class="kv">${items.join('')}${more(keys.length - MAX_ITEMS)}</ul>`;
}

/** The details of one metric as escaped HTML (a list), or "" when there are none. */
export function detailsHtml(details: unknown): string {
  if (!isPlainObject(details)) return '';
  const keys = Object.keys(details).filter((k) => !HIDDEN.has(k));
  return keys.length ? list(details, 0) : '';
}
