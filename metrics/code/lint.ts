/**
 * lint (SPEC #5): E = error-level findings of ESLint (JS), stylelint (CSS) and htmlhint (HTML) over the whole
 * artifact, L = physical lines of its HTML/CSS/JS files (`artifact.physicalLines`);
 * score = max(0, 100 − 20 × 1000 × E / L). Rule sets: `lint-rules.ts` (defects only, all at error level).
 *
 * Interpretations:
 * - Every linter runs on real code: ESLint's `Linter` (flat config) on each JS block's text, `stylelint.lint`
 *   on each CSS block, htmlhint on the full text of each HTML file. Each is loaded once per process, lazily.
 *   Inline code can not switch rules off: ESLint runs with `noInlineConfig`, stylelint with
 *   `ignoreDisables`.
 * - A parsing error counts as one error (ESLint stops at the first; stylelint reports `CssSyntaxError`).
 * - Findings are reported at their line in the artifact file (block line + line − 1; the column is shifted on a
 *   block's first line).
 * - JS blocks: `<script>` without `src` is a module when `type="module"`, else a classic script; a JS file is a
 *   module when it ends in `.mjs` or parses only as a module (it uses import/export). Event-handler attributes
 *   (`onclick="..."`) are linted as function bodies (`return` allowed) that see `event`.
 * - Globals each block sees (so that no-undef reports only names that do not exist at run time): browser
 *   globals (`globals.browser`) and ES builtins; the top-level declarations (var/let/const/function/class) of
 *   every classic script of the artifact, inline or file (browsers share them between scripts); names assigned
 *   as `window.X = ...`/`globalThis.X`/`self.X` anywhere; the ids of the entry page's elements that are valid
 *   identifiers (browsers expose them as `window` properties); and, only when the artifact loads a classic
 *   script whose code we cannot read (remote or missing), the globals of popular libraries (LIBRARY_GLOBALS).
 *   Module scripts see the same globals, but their own declarations stay private. `module`, `exports` and
 *   `define` are always declared (the UMD idiom guards them with `typeof`). A missing local script adds no
 *   globals: in the artifact it does not exist, so its names really are undefined when the page runs. When the
 *   page injects scripts at run time (`createElement('script')`, `importScripts`), the names they define are
 *   unknowable: no-undef findings are then listed as `unverifiedNoUndef` and not counted.
 * - CSS: `<style>` blocks and CSS files are linted one by one. `style="..."` attributes are linted as the
 *   declaration block of a rule `*{ ... }` (the value on its own lines, so lines map back one to one); all the
 *   style attributes of one HTML file go into one stylelint call for speed, except values containing `{`, `}`,
 *   a comment opener or an odd number of quotes, which are linted alone so that they cannot break their
 *   neighbours. A value the property does not accept (`cursor: hand`, `display: flexbox`) is an error
 *   (`declaration-property-value-no-unknown`, added 2026-11 after mutation testing showed lint blind to it: 0 of
 *   the seeded invalid values were seen); when another rule already reports a defect inside that value (an
 *   unknown unit, an invalid hex colour, an unknown function), the defect counts once.
 * - HTML: htmlhint on each HTML file (the entry and any other), with the content of `<textarea>` and `<title>`
 *   blanked first (raw text for the browser; htmlhint would read tags in it). `tag-pair` findings that only miss end tags HTML
 *   lets you omit (`</p>`, `</li>`, `</td>`, …; OPTIONAL_END_TAGS) are not counted.
 * - Cost (pages with thousands of blocks): the event-handler attributes of one HTML file are linted in one
 *   ESLint run, each in a function of its own (same findings, lines and columns as one run per handler); each
 *   run declares only the page-wide names its code mentions; at most MAX_ESLINT_RUNS (500) ESLint runs per
 *   artifact, the blocks beyond are listed under `skipped`. Style attributes are already one stylelint call per
 *   file; mapping a finding back to its attribute is a binary search.
 * - The metric is always scorable when the linters load (an artifact always has its HTML file); a linter that
 *   fails to load makes the metric unscorable with the tool's error, not a 0. A block a linter throws on (code
 *   nested deeper than the call stack) is not linted and is listed under `skipped`, and the summary says so.
 */
import type { Linter } from 'eslint';
import * as walk from 'acorn-walk';
import { parse as acornParse } from 'acorn';
import type * as acorn from 'acorn';
import type { Artifact, SourceBlock } from '../../core/artifact/model.js';
import { parseJs } from '../../core/js-parse.js';
import { errorMessage } from '../../core/errors.js';
import { densityPenalty, round2 } from '../formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { ESLINT_RULES, HTMLHINT_RULES, LIBRARY_GLOBALS, OPTIONAL_END_TAGS, STYLELINT_CONFIG } from './lint-rules.js';

export type LintTool = 'eslint' | 'stylelint' | 'htmlhint';

export interface LintFinding {
  tool: LintTool;
  rule: string;
  file: string;
  line: number;
  column: number;
  message: string;
}

// ---------------------------------------------------------------------------------------------------------
// Lazy, process-wide linters

type GlobalsMap = Record<string, boolean | 'readonly' | 'writable' | 'off'>;
interface EslintKit {
  linter: Linter;
  browser: GlobalsMap;
}
type StylelintLint = (options: { code: string; config: unknown; ignoreDisables?: boolean }) => Promise<{
  results: Array<{
    warnings: Array<{ line: number; column: number; rule: string; severity: string; text: string }>;
    invalidOptionWarnings?: Array<{ text: string }>;
  }>;
}>;
interface HtmlHintMessage {
  type: string;
  message: string;
  line: number;
  col: number;
  rule: { id: string };
}
interface HtmlHintApi {
  verify(html: string, rules: Record<string, unknown>): HtmlHintMessage[];
}

let eslintKit: Promise<EslintKit> | undefined;
let stylelintLint: Promise<StylelintLint> | undefined;
let htmlHint: Promise<HtmlHintApi> | undefined;

function loadEslint(): Promise<EslintKit> {
  eslintKit ??= (async () => {
    const { Linter: LinterClass } = await import('eslint');
    const globals = (await import('globals')).default as unknown as Record<string, GlobalsMap>;
    return { linter: new LinterClass({ configType: 'flat' }), browser: { ...globals.browser } };
  })();
  return eslintKit;
}

function loadStylelint(): Promise<StylelintLint> {
  stylelintLint ??= (async () => {
    const mod = (await import('stylelint')) as unknown as { default: { lint: StylelintLint } };
    return mod.default.lint;
  })();
  return stylelintLint;
}

function loadHtmlHint(): Promise<HtmlHintApi> {
  htmlHint ??= (async () => {
    const specifier = 'htmlhint'; // CommonJS without type declarations
    const mod = (await import(specifier)) as { default: { HTMLHint: HtmlHintApi } };
    return mod.default.HTMLHint;
  })();
  return htmlHint;
}

// ---------------------------------------------------------------------------------------------------------
// JavaScript

const IDENT_RE = /^[A-Za-z_$][\w$]*$/;

/** CommonJS/AMD names of the UMD idiom (`if (typeof module !== 'undefined') module.exports = ...`). */
const ALWAYS_GLOBALS = ['module', 'exports', 'define'];

function patternNames(p: acorn.Pattern | null | undefined, out: Set<string>): void {
  if (!p) return;
  switch (p.type) {
    case 'Identifier':
      out.add(p.name);
      break;
    case 'ObjectPattern':
      for (const prop of p.properties) patternNames(prop.type === 'RestElement' ? prop.argument : prop.value, out);
      break;
    case 'ArrayPattern':
      for (const el of p.elements) patternNames(el, out);
      break;
    case 'RestElement':
      patternNames(p.argument, out);
      break;
    case 'AssignmentPattern':
      patternNames(p.left, out);
      break;
    default:
      break;
  }
}

/** Is a JS block parsed (and linted) as a module? See the module comment. */
export function isModuleBlock(block: SourceBlock): boolean {
  if (block.origin === 'attribute') return false;
  if (block.module) return true;
  if (block.origin === 'file') {
    try {
      const parsed = parseJs(block);
      return !parsed.recovered && parsed.sourceType === 'module';
    } catch {
      return false;
    }
  }
  return false;
}

/** Names every script of the page can see besides browser globals (see the module comment). */
export function pageGlobals(artifact: Artifact): { shared: Set<string>; libraries: boolean; injectsScripts: boolean } {
  const shared = new Set<string>(ALWAYS_GLOBALS);
  let injectsScripts = false;
  for (const block of artifact.sources) {
    if (block.language !== 'js') continue;
    let ast: acorn.Program;
    try {
      ast = parseJs(block).ast;
    } catch {
      continue; // pathological nesting: the block is skipped by the linter too (see lintJs)
    }
    if (block.origin !== 'attribute' && !isModuleBlock(block)) {
      for (const stmt of ast.body) {
        if (stmt.type === 'VariableDeclaration') for (const d of stmt.declarations) patternNames(d.id, shared);
        else if ((stmt.type === 'FunctionDeclaration' || stmt.type === 'ClassDeclaration') && stmt.id) shared.add(stmt.id.name);
      }
    }
    try {
      walk.simple(ast, {
        CallExpression(node) {
          const callee = node.callee;
          const arg = node.arguments[0];
          if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && callee.property.name === 'createElement' && arg?.type === 'Literal' && String(arg.value).toLowerCase() === 'script') injectsScripts = true;
          if (callee.type === 'Identifier' && callee.name === 'importScripts') injectsScripts = true;
        },
        AssignmentExpression(node) {
          const left = node.left;
          if (left.type === 'MemberExpression' && !left.computed && left.property.type === 'Identifier' && left.object.type === 'Identifier' && ['window', 'globalThis', 'self'].includes(left.object.name)) {
            shared.add(left.property.name);
          }
        },
      });
    } catch {
      /* an odd recovered tree: the declarations found so far still count */
    }
  }
  for (const el of Array.from(artifact.dom.window.document.querySelectorAll('[id]'))) {
    const id = el.getAttribute('id') ?? '';
    if (IDENT_RE.test(id)) shared.add(id);
  }
  const libraries = artifact.resources.some((r) => r.kind === 'script' && r.location === 'remote');
  return { shared, libraries, injectsScripts };
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

async function lintJs(artifact: Artifact, out: LintFinding[], unverified: LintFinding[], skipped: Skipped[]): Promise<void> {
  const blocks = artifact.sources.filter((b) => b.language === 'js');
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
  const perBlock = new Map<SourceBlock, { out: LintFinding[]; unverified: LintFinding[]; skipped: Skipped[] }>(blocks.map((b) => [b, { out: [], unverified: [], skipped: [] }]));
  let runs = 0;
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    if (runs >= MAX_ESLINT_RUNS) {
      for (const b of unit.blocks) perBlock.get(b)!.skipped.push({ tool: 'eslint', file: b.file, line: b.line, reason: `not linted: more than ${MAX_ESLINT_RUNS} separate JavaScript blocks` });
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

// ---------------------------------------------------------------------------------------------------------
// CSS

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

/**
 * The last of `entries` (in increasing `start` order) whose start is at most `line`, or the first entry: a
 * binary search, so that mapping every finding of a file with 50 000 style attributes stays linear.
 */
function lastEntryFrom<T extends { start: number }>(entries: readonly T[], line: number): T {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entries[mid]!.start <= line) lo = mid;
    else hi = mid - 1;
  }
  return entries[lo]!;
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

async function lintCss(artifact: Artifact, out: LintFinding[], configProblems: string[], skipped: Skipped[]): Promise<void> {
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

// ---------------------------------------------------------------------------------------------------------
// HTML

/** A tag-pair finding that only misses end tags HTML allows to omit. */
export function onlyOptionalEndTagsMissing(message: string): boolean {
  const m = /missing: \[\s*(.*?)\s*\]/.exec(message);
  if (!m) return false;
  const tags = [...m[1]!.matchAll(/<\/\s*([\w-]+)\s*>/g)].map((x) => x[1]!.toLowerCase());
  return tags.length > 0 && tags.every((t) => OPTIONAL_END_TAGS.has(t));
}

/**
 * htmlhint reads tags inside `<textarea>` and `<title>` (raw text for the browser) as markup: blank their
 * content, keeping line breaks so that positions do not move.
 */
export function blankRawText(html: string): string {
  return html.replace(/(<(textarea|title)\b(?:[^>"']|"[^"]*"|'[^']*')*>)([\s\S]*?)(<\/\2\s*>)/gi, (_m, open: string, _tag: string, body: string, close: string) => open + body.replace(/[^\r\n]/g, ' ') + close);
}

async function lintHtml(artifact: Artifact, out: LintFinding[], skipped: Skipped[]): Promise<void> {
  const hint = await loadHtmlHint();
  for (const f of artifact.files) {
    if (f.kind !== 'html' || f.text === undefined) continue;
    let messages: HtmlHintMessage[];
    try {
      messages = hint.verify(blankRawText(f.text), HTMLHINT_RULES);
    } catch (err) {
      skipped.push({ tool: 'htmlhint', file: f.path, line: 1, column: 1, reason: errorMessage(err) });
      continue;
    }
    for (const m of messages) {
      if (m.type !== 'error') continue;
      if (m.rule.id === 'tag-pair' && onlyOptionalEndTagsMissing(m.message)) continue;
      out.push({ tool: 'htmlhint', rule: m.rule.id, file: f.path, line: m.line, column: m.col, message: m.message });
    }
  }
}

// ---------------------------------------------------------------------------------------------------------

const MAX_LISTED = 300;

/** A block or file a linter threw on (e.g. nesting deeper than the call stack): not linted, listed. */
export interface Skipped {
  tool: LintTool;
  file: string;
  line: number;
  column?: number;
  reason: string;
}

export interface LintResult {
  findings: LintFinding[];
  /** no-undef findings not counted because the page injects scripts at run time. */
  unverified: LintFinding[];
  configProblems: string[];
  skipped: Skipped[];
}

export async function lintArtifact(artifact: Artifact): Promise<LintResult> {
  const findings: LintFinding[] = [];
  const unverified: LintFinding[] = [];
  const configProblems: string[] = [];
  const skipped: Skipped[] = [];
  await lintHtml(artifact, findings, skipped);
  await lintCss(artifact, findings, configProblems, skipped);
  await lintJs(artifact, findings, unverified, skipped);
  return { findings, unverified, configProblems, skipped };
}

const lint: MetricDefinition = {
  number: 5,
  id: 'lint',
  perspective: 'code',
  kind: 'rule',
  needs: ['source'],
  title: 'Lint',
  question: 'Is the HTML, CSS and JavaScript free of errors that linters catch?',
  suite: 'study',
  async score({ artifact }) {
    let result: LintResult;
    try {
      result = await lintArtifact(artifact);
    } catch (err) {
      return unscorable(`a linter failed: ${errorMessage(err)}`);
    }
    const { findings, unverified, configProblems, skipped } = result;
    const E = findings.length;
    const L = artifact.physicalLines;
    const perTool: Record<LintTool, number> = { htmlhint: 0, stylelint: 0, eslint: 0 };
    const perRule: Record<string, number> = {};
    for (const f of findings) {
      perTool[f.tool]++;
      const k = `${f.tool}/${f.rule}`;
      perRule[k] = (perRule[k] ?? 0) + 1;
    }
    const details: Record<string, unknown> = {
      errors: E,
      physicalLines: L,
      perTool,
      perRule,
      findings: findings.slice(0, MAX_LISTED),
    };
    if (findings.length > MAX_LISTED) details.findingsNotListed = findings.length - MAX_LISTED;
    if (unverified.length) details.unverifiedNoUndef = unverified.slice(0, MAX_LISTED);
    if (configProblems.length) details.configProblems = configProblems;
    if (skipped.length) details.skipped = skipped;
    const score = densityPenalty(E, L);
    const note = skipped.length ? ` (${skipped.length} block${skipped.length === 1 ? '' : 's'} a linter could not process)` : '';
    const summary = (E === 0
      ? `no lint errors in ${L} lines`
      : `${E} lint error${E === 1 ? '' : 's'} in ${L} lines (htmlhint ${perTool.htmlhint}, stylelint ${perTool.stylelint}, eslint ${perTool.eslint}): ${round2((E * 1000) / L)} per 1000 lines`) + note;
    return scored(score, summary, details);
  },
};

export default lint;
