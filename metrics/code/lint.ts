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
 * - The metric is always scorable when the linters load (an artifact always has its HTML file); a linter that
 *   fails to load makes the metric unscorable with the tool's error, not a 0. A block a linter throws on (code
 *   nested deeper than the call stack) is not linted and is listed under `skipped`, and the summary says so.
 */
import type { Linter } from 'eslint';
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import type { Artifact, SourceBlock } from '../../core/artifact.js';
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

async function lintJs(artifact: Artifact, out: LintFinding[], unverified: LintFinding[], skipped: Skipped[]): Promise<void> {
  const blocks = artifact.sources.filter((b) => b.language === 'js');
  if (blocks.length === 0) return;
  const { linter, browser } = await loadEslint();
  const { shared, libraries, injectsScripts } = pageGlobals(artifact);
  const globals: GlobalsMap = { ...browser };
  if (libraries) for (const name of LIBRARY_GLOBALS) globals[name] = 'writable';
  for (const name of shared) globals[name] = 'writable';
  const configs = new Map<string, Linter.Config[]>();
  const configFor = (sourceType: 'script' | 'module', attribute: boolean): Linter.Config[] => {
    const key = `${sourceType}:${attribute}`;
    let c = configs.get(key);
    if (!c) {
      c = [
        {
          files: ['**/*.js'],
          linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
          languageOptions: {
            ecmaVersion: 'latest',
            sourceType,
            globals: attribute ? { ...globals, event: 'readonly' } : globals,
            parserOptions: { ecmaFeatures: { globalReturn: attribute } },
          },
          rules: ESLINT_RULES,
        },
      ];
      configs.set(key, c);
    }
    return c;
  };
  for (const block of blocks) {
    const attribute = block.origin === 'attribute';
    let messages: Linter.LintMessage[];
    try {
      messages = linter.verify(block.text, configFor(isModuleBlock(block) ? 'module' : 'script', attribute), 'block.js');
    } catch (err) {
      skipped.push({ tool: 'eslint', file: block.file, line: block.line, reason: errorMessage(err) });
      continue;
    }
    for (const m of messages) {
      if (m.severity !== 2) continue;
      if (m.fatal && /Maximum call stack size exceeded|Not enough stack space/.test(m.message)) {
        // ESLint reports its parser's stack overflow as a parsing error; the code itself may be valid.
        skipped.push({ tool: 'eslint', file: block.file, line: block.line, reason: m.message });
        continue;
      }
      const line = m.line ?? 1;
      (injectsScripts && m.ruleId === 'no-undef' ? unverified : out).push({
        tool: 'eslint',
        rule: m.ruleId ?? 'parsing-error',
        file: block.file,
        line: block.line + line - 1,
        column: line === 1 ? block.column + (m.column ?? 1) - 1 : m.column ?? 1,
        message: m.message,
      });
    }
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
      let e = entries[0]!;
      for (const x of entries) if (x.start - 1 <= line) e = x;
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
      else attrsByFile.set(block.file, [...(attrsByFile.get(block.file) ?? []), block]);
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
