/** ESLint over every JS block of an artifact, event-handler attributes batched per file (see MAX_ESLINT_RUNS). */
import type { Linter } from 'eslint';
import { parse as acornParse } from 'acorn';
import type { Artifact, SourceBlock } from '../../../core/artifact/model.js';
import { parseJs } from '../../../lib/js-parse.js';
import { errorMessage } from '../../../core/errors.js';
import { lastEntryFrom, type LintFinding, type Skipped } from './findings.js';
import { isModuleBlock, pageGlobals } from './page-globals.js';
import { ESLINT_RULES, LIBRARY_GLOBALS } from './rules.js';
import { FRAMEWORK_FILE, lintComponents } from './framework-eslint.js';

type GlobalsMap = Record<string, boolean | 'readonly' | 'writable' | 'off'>;
interface EslintKit {
  linter: Linter;
  browser: GlobalsMap;
}

let eslintKit: Promise<EslintKit> | undefined;

function loadEslint(): Promise<EslintKit> {
  eslintKit ??= (async () => {
    const { Linter: LinterClass } = await import('eslint');
    const globals = (await import('globals')).default as unknown as Record<string, GlobalsMap>;
    return { linter: new LinterClass({ configType: 'flat' }), browser: { ...globals.browser } };
  })();
  return eslintKit;
}

/** ESLint's own line breaks (so that a handler's line count matches the lines ESLint reports). */
const ESLINT_LINE_BREAK = /\r\n|[\r\n\u2028\u2029]/;
const HANDLER_PREFIX = '(function () {';
const HANDLER_SUFFIX = '});';

/**
 * Can an event-handler attribute be linted inside a batch (see lintJs)? It must parse alone as a function body
 * (as ESLint would lint it alone) and, wrapped as `(function () {` / text / `});`, stay exactly one function.
 */
function batchableHandler(block: SourceBlock): boolean {
  try {
    const alone = parseJs(block);
    if (alone.recovered || alone.sourceType !== 'script') return false;
    const wrapped = `${HANDLER_PREFIX}\n${block.text}\n${HANDLER_SUFFIX}`;
    const ast = acornParse(wrapped, { ecmaVersion: 'latest', sourceType: 'script' });
    const stmt = ast.body[0];
    if (ast.body.length !== 1 || stmt?.type !== 'ExpressionStatement' || stmt.expression.type !== 'FunctionExpression') return false;
    const body = stmt.expression.body;
    return body.start === HANDLER_PREFIX.length - 1 && body.end === HANDLER_PREFIX.length + 1 + block.text.length + 2;
  } catch {
    return false;
  }
}

/** Names of `shared` a block's text mentions (identifiers anywhere in it; escapes in names: all of `shared`). */
function mentioned(text: string, shared: ReadonlySet<string>): Set<string> | ReadonlySet<string> {
  if (text.includes('\\u')) return shared;
  const out = new Set<string>();
  for (const m of text.matchAll(/[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*/gu)) if (shared.has(m[0])) out.add(m[0]);
  return out;
}

interface JsUnit {
  /** The code ESLint sees. */
  text: string;
  sourceType: 'script' | 'module';
  attribute: boolean;
  /** ESLint line and column → artifact file position, and the block a finding belongs to. */
  map(line: number, column: number): { block: SourceBlock; line: number; column: number };
  /** The blocks inside (one, or the handlers of a batch). */
  blocks: SourceBlock[];
}

function blockUnit(block: SourceBlock): JsUnit {
  return {
    text: block.text,
    sourceType: isModuleBlock(block) ? 'module' : 'script',
    attribute: block.origin === 'attribute',
    blocks: [block],
    map: (line, column) => ({ block, line: block.line + line - 1, column: line === 1 ? block.column + column - 1 : column }),
  };
}

/** Event-handler attributes of one file as one script: each handler wrapped in a function of its own. */
function handlerBatch(blocks: SourceBlock[]): JsUnit {
  const parts: string[] = [];
  const entries: Array<{ start: number; lines: number; block: SourceBlock }> = [];
  let line = 1;
  for (const b of blocks) {
    const lines = b.text.split(ESLINT_LINE_BREAK).length;
    entries.push({ start: line + 1, lines, block: b });
    parts.push(HANDLER_PREFIX, b.text, HANDLER_SUFFIX);
    line += lines + 2;
  }
  return {
    text: parts.join('\n'),
    sourceType: 'script',
    attribute: true,
    blocks,
    map: (l, column) => {
      const e = lastEntryFrom(entries, l);
      const rel = Math.min(Math.max(l - e.start, 0), e.lines - 1);
      const onValue = l >= e.start && l < e.start + e.lines;
      return { block: e.block, line: e.block.line + rel, column: onValue ? (rel === 0 ? e.block.column + column - 1 : column) : e.block.column };
    },
  };
}

/**
 * Cost: ESLint sets up every browser global and every page-wide name for each run (about 10 ms a run), so one
 * run per event-handler attribute made a page with thousands of `onclick`s take minutes, and one with as many
 * element ids quadratic. Handlers are therefore linted together, one run per HTML file, each wrapped in a
 * function of its own (their scopes stay apart, `return` works as in a handler); a handler that does not parse
 * alone, or that would not stay inside its wrapper, is linted alone as before. Each run declares only the
 * page-wide names its code mentions (the others cannot change a finding). At most MAX_ESLINT_RUNS runs per
 * artifact (a page with more separate `<script>` blocks than that): the blocks beyond are listed under
 * `skipped` and not linted.
 */
export const MAX_ESLINT_RUNS = 500;

export async function lintJs(artifact: Artifact, out: LintFinding[], unverified: LintFinding[], skipped: Skipped[]): Promise<void> {
  // A project's component files are linted whole by their frameworks' parsers (framework-eslint.ts).
  await lintComponents(artifact, out, skipped);
  const blocks = artifact.sources.filter((b) => b.language === 'js' && !FRAMEWORK_FILE.test(b.file));
  if (blocks.length === 0) return;
  const { linter, browser } = await loadEslint();
  const { shared, libraries, injectsScripts } = pageGlobals(artifact);
  const base: GlobalsMap = { ...browser };
  if (libraries) for (const name of LIBRARY_GLOBALS) base[name] = 'writable';
  const configFor = (unit: JsUnit): Linter.Config[] => {
    const globals: GlobalsMap = { ...base };
    for (const name of mentioned(unit.text, shared)) globals[name] = 'writable';
    if (unit.attribute) globals.event = 'readonly';
    return [
      {
        files: ['**/*.js'],
        linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
        languageOptions: {
          ecmaVersion: 'latest',
          sourceType: unit.sourceType,
          globals,
          parserOptions: { ecmaFeatures: { globalReturn: unit.attribute } },
        },
        rules: ESLINT_RULES,
      },
    ];
  };
  const units: JsUnit[] = [];
  const handlersByFile = new Map<string, SourceBlock[]>();
  for (const block of blocks) {
    if (block.origin === 'attribute' && batchableHandler(block)) {
      const list = handlersByFile.get(block.file);
      if (list) list.push(block);
      else handlersByFile.set(block.file, [block]);
    } else units.push(blockUnit(block));
  }
  for (const list of handlersByFile.values()) units.push(list.length === 1 ? blockUnit(list[0]!) : handlerBatch(list));
  const order = new Map(blocks.map((b, i) => [b, i]));
  units.sort((a, b) => order.get(a.blocks[0]!)! - order.get(b.blocks[0]!)!);
  // Findings are reported per block in block order, whichever run found them.
  const perBlock = new Map<SourceBlock, { out: LintFinding[]; unverified: LintFinding[]; skipped: Skipped[] }>(
    blocks.map((b) => [b, { out: [], unverified: [], skipped: [] }]),
  );
  let runs = 0;
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    if (runs >= MAX_ESLINT_RUNS) {
      for (const b of unit.blocks)
        perBlock
          .get(b)!
          .skipped.push({ tool: 'eslint', file: b.file, line: b.line, reason: `not linted: more than ${MAX_ESLINT_RUNS} separate JavaScript blocks` });
      continue;
    }
    runs++;
    let messages: Linter.LintMessage[];
    try {
      messages = linter.verify(unit.text, configFor(unit), 'block.js');
    } catch (err) {
      if (unit.blocks.length > 1) {
        units.splice(i + 1, 0, ...unit.blocks.map(blockUnit));
        continue;
      }
      perBlock.get(unit.blocks[0]!)!.skipped.push({ tool: 'eslint', file: unit.blocks[0]!.file, line: unit.blocks[0]!.line, reason: errorMessage(err) });
      continue;
    }
    if (unit.blocks.length > 1 && messages.some((m) => m.fatal)) {
      // A batch that does not parse as a whole (it should not happen: each handler parsed alone): lint them alone.
      units.splice(i + 1, 0, ...unit.blocks.map(blockUnit));
      continue;
    }
    for (const m of messages) {
      if (m.severity !== 2) continue;
      const at = unit.map(m.line ?? 1, m.column ?? 1);
      if (m.fatal && /Maximum call stack size exceeded|Not enough stack space/.test(m.message)) {
        // ESLint reports its parser's stack overflow as a parsing error; the code itself may be valid.
        perBlock.get(at.block)!.skipped.push({ tool: 'eslint', file: at.block.file, line: at.block.line, reason: m.message });
        continue;
      }
      const mine = perBlock.get(at.block)!;
      (injectsScripts && m.ruleId === 'no-undef' ? mine.unverified : mine.out).push({
        tool: 'eslint',
        rule: m.ruleId ?? 'parsing-error',
        file: at.block.file,
        line: at.line,
        column: at.column,
        message: m.message,
      });
    }
  }
  for (const b of blocks) {
    const mine = perBlock.get(b)!;
    for (const f of mine.out) out.push(f);
    for (const f of mine.unverified) unverified.push(f);
    for (const x of mine.skipped) skipped.push(x);
  }
}
