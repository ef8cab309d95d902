/**
 * stylelint over every CSS block of an artifact: `<style>` blocks and files one by one, the style attributes of a
 * file in one call (see metrics/code/lint.ts for why and for the values linted alone).
 */
import type { Artifact, SourceBlock } from '../../../core/artifact/model.js';
import { errorMessage } from '../../../core/errors.js';
import { lastEntryFrom, type LintFinding, type Skipped } from './findings.js';
import { STYLELINT_CONFIG } from './rules.js';

type StylelintLint = (options: { code: string; config: unknown; ignoreDisables?: boolean }) => Promise<{
  results: Array<{
    warnings: Array<{ line: number; column: number; rule: string; severity: string; text: string }>;
    invalidOptionWarnings?: Array<{ text: string }>;
  }>;
}>;

let stylelintLint: Promise<StylelintLint> | undefined;

function loadStylelint(): Promise<StylelintLint> {
  stylelintLint ??= (async () => {
    const mod = (await import('stylelint')) as unknown as { default: { lint: StylelintLint } };
    return mod.default.lint;
  })();
  return stylelintLint;
}

interface CssChunk {
  code: string;
  /** Synthetic line → [file, file line, column shift on that line]. */
  map(line: number, column: number): { file: string; line: number; column: number };
}

function blockChunk(block: SourceBlock): CssChunk {
  return {
    code: block.text,
    map: (line, column) => ({ file: block.file, line: block.line + line - 1, column: line === 1 ? block.column + column - 1 : column }),
  };
}

/** Style attributes as `*{` / value lines / `}`; `entries` keeps where each value starts in the synthetic text. */
function attributeChunk(blocks: SourceBlock[]): CssChunk {
  const lines: string[] = [];
  const entries: Array<{ start: number; lines: number; block: SourceBlock }> = [];
  for (const b of blocks) {
    lines.push('*{');
    const valueLines = b.text.split(/\r\n|\r|\n/);
    entries.push({ start: lines.length + 1, lines: valueLines.length, block: b });
    lines.push(...valueLines, '}');
  }
  return {
    code: lines.join('\n') + '\n',
    map: (line, column) => {
      const e = lastEntryFrom(entries, line + 1);
      const rel = Math.min(Math.max(line - e.start, 0), e.lines - 1);
      const onValue = line >= e.start && line < e.start + e.lines;
      return {
        file: e.block.file,
        line: e.block.line + rel,
        column: onValue ? (rel === 0 ? e.block.column + column - 1 : column) : e.block.column,
      };
    },
  };
}

function needsOwnChunk(value: string): boolean {
  if (/[{}]|\/\*/.test(value)) return true;
  const dq = (value.match(/"/g) ?? []).length;
  const sq = (value.match(/'/g) ?? []).length;
  return dq % 2 === 1 || sq % 2 === 1;
}

export function cssChunks(artifact: Artifact): CssChunk[] {
  const chunks: CssChunk[] = [];
  const attrsByFile = new Map<string, SourceBlock[]>();
  for (const block of artifact.sources) {
    if (block.language !== 'css') continue;
    if (block.origin === 'attribute') {
      if (needsOwnChunk(block.text)) chunks.push(attributeChunk([block]));
      else {
        const list = attrsByFile.get(block.file);
        if (list) list.push(block);
        else attrsByFile.set(block.file, [block]);
      }
    } else if (block.text.trim() !== '') chunks.push(blockChunk(block));
  }
  for (const blocks of attrsByFile.values()) chunks.push(attributeChunk(blocks));
  return chunks;
}

/** stylelint's rule for values a property does not accept; it overlaps unit, hex-colour and function rules. */
const VALUE_RULE = 'declaration-property-value-no-unknown';

interface Span {
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

/** Does warning `inner` start inside the span of warning `outer`? */
function within(inner: Span, outer: Span): boolean {
  const at = (l?: number, c?: number) => (l ?? 0) * 1e6 + (c ?? 0);
  const start = at(inner.line, inner.column);
  return start >= at(outer.line, outer.column) && start <= at(outer.endLine ?? outer.line, outer.endColumn ?? outer.column);
}

export async function lintCss(artifact: Artifact, out: LintFinding[], configProblems: string[], skipped: Skipped[]): Promise<void> {
  const chunks = cssChunks(artifact);
  if (chunks.length === 0) return;
  const lint = await loadStylelint();
  for (const chunk of chunks) {
    let res: Awaited<ReturnType<StylelintLint>>;
    try {
      res = await lint({ code: chunk.code, config: STYLELINT_CONFIG, ignoreDisables: true });
    } catch (err) {
      skipped.push({ tool: 'stylelint', ...chunk.map(1, 1), reason: errorMessage(err) });
      continue;
    }
    for (const r of res.results) {
      for (const w of r.invalidOptionWarnings ?? []) if (!configProblems.includes(w.text)) configProblems.push(w.text);
      const errors = r.warnings.filter((w) => w.severity === 'error');
      for (const w of errors) {
        if (w.rule === VALUE_RULE && errors.some((o) => o.rule !== VALUE_RULE && within(o, w))) continue; // one defect, one finding
        const at = chunk.map(w.line ?? 1, w.column ?? 1);
        out.push({ tool: 'stylelint', rule: w.rule, ...at, message: w.text });
      }
    }
  }
}
