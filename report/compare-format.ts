/**
 * `webgrade compare`'s outputs: a text table for a terminal, markdown fit for a pull-request comment (a verdict
 * line, the regressions and improvements as tables, the rest folded in a `<details>` block), and JSON (the
 * Comparison as it is, per-requirement pairs included).
 */
import type { Comparison, MetricChange } from './compare.js';

export const COMPARE_FORMATS = ['text', 'json', 'markdown'] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

function num(x: number, d = 1): string {
  return (Math.round(x * 10 ** d) / 10 ** d).toFixed(d);
}

function signed(x: number): string {
  return (x > 0 ? '+' : '') + num(x);
}

function ciText(c: MetricChange): string {
  return c.ci ? `${signed(c.ci[0])} … ${signed(c.ci[1])}` : 'n/a (< 2 pairs)';
}

/** One line per named change: "alpha console-errors −42.5 (95% CI −60.0 … −25.0; 4 requirements)". */
export function changeLine(c: MetricChange): string {
  return `${c.model} ${c.metric} ${signed(c.delta)} (${num(c.baseMean)} → ${num(c.headMean)}; 95% CI ${ciText(c)}; ${c.n} requirement${c.n === 1 ? '' : 's'})`;
}

function verdictLine(cmp: Comparison): string {
  const r = cmp.regressions.length;
  const i = cmp.improvements.length;
  if (r === 0 && i === 0) return `no change beyond noise: ${cmp.changes.length} model × metric means compared over ${cmp.requirements} requirements`;
  return `${r} regression${r === 1 ? '' : 's'}, ${i} improvement${i === 1 ? '' : 's'} (of ${cmp.changes.length} model × metric means over ${cmp.requirements} requirements)`;
}

function extras(cmp: Comparison): string[] {
  const out: string[] = [];
  if (cmp.onlyBase.length) out.push(`only in base (not compared): ${cmp.onlyBase.join(', ')}`);
  if (cmp.onlyHead.length) out.push(`only in head (not compared): ${cmp.onlyHead.join(', ')}`);
  out.push(...cmp.notes);
  out.push(
    `named only when the paired bootstrap interval (${cmp.iterations} resamples, seed ${cmp.seed}) excludes 0 and |Δ| is above the metric's rerun noise`,
  );
  return out;
}

export function compareText(cmp: Comparison): string {
  const lines = [`compare ${cmp.base} → ${cmp.head}: ${verdictLine(cmp)}`];
  if (cmp.regressions.length) lines.push('', 'regressed:', ...cmp.regressions.map((c) => `  ${changeLine(c)}`));
  if (cmp.improvements.length) lines.push('', 'improved:', ...cmp.improvements.map((c) => `  ${changeLine(c)}`));
  lines.push('', ...extras(cmp));
  return lines.join('\n') + '\n';
}

/**
 * Text from the results files (model names, metric ids, file names, notes) made inert in a pull-request comment:
 * - `&`, `<` and `>` as HTML entities: raw HTML (`</details>`, `<img src=x>`) would be rendered;
 * - the Markdown punctuation that makes links, images, emphasis, code spans, strike-through and table cells
 *   (`\\ \` * _ [ ] ~ |`) backslash-escaped, and line breaks as spaces (a table row is one line);
 * - `@name` written `@\u200bname`, and `#12` `#\u200b12`. GitHub looks for mentions and issue references in the
 *   text after Markdown has been rendered, when a backslash escape is already gone, so `\\@name` would still
 *   notify that user; a zero-width space between the sign and the name is invisible and keeps it from matching.
 *   A reference would post a cross-reference into that issue (from the name of a model), so it is cut the same way.
 */
export function mdText(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!)
    .replace(/[\\`*_[\]~|]/g, (c) => `\\${c}`)
    .replace(/([@#])(?=[\p{L}\p{N}_-])/gu, '$1\u200b');
}

function mdTable(list: readonly MetricChange[]): string[] {
  const out = ['| model | metric | base | head | Δ | 95% CI | requirements |', '|---|---|---:|---:|---:|---|---:|'];
  for (const c of list)
    out.push(`| ${mdText(c.model)} | ${mdText(c.metric)} | ${num(c.baseMean)} | ${num(c.headMean)} | ${signed(c.delta)} | ${ciText(c)} | ${c.n} |`);
  return out;
}

export function compareMarkdown(cmp: Comparison): string {
  const r = cmp.regressions.length;
  const lines = [`### webgrade compare: ${r ? `❌ ${verdictLine(cmp)}` : `✅ ${verdictLine(cmp)}`}`, '', `${mdText(cmp.base)} → ${mdText(cmp.head)}`, ''];
  if (r) lines.push('**Regressed**', '', ...mdTable(cmp.regressions), '');
  if (cmp.improvements.length) lines.push('**Improved**', '', ...mdTable(cmp.improvements), '');
  const rest = cmp.changes.filter((c) => c.verdict === 'unchanged');
  if (rest.length)
    lines.push('<details><summary>All other model × metric means (unchanged beyond noise)</summary>', '', ...mdTable(rest), '', '</details>', '');
  lines.push(...extras(cmp).map((x) => `- ${mdText(x)}`));
  return lines.join('\n') + '\n';
}

export function formatComparison(cmp: Comparison, format: CompareFormat): string {
  if (format === 'json') return JSON.stringify(cmp, null, 2) + '\n';
  if (format === 'markdown') return compareMarkdown(cmp);
  return compareText(cmp);
}
