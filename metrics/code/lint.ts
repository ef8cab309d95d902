/**
 * lint (SPEC #5): E = error-level findings of ESLint (JS), stylelint (CSS) and htmlhint (HTML) over the whole
 * artifact, L = physical lines of its HTML/CSS/JS files (`artifact.physicalLines`);
 * score = max(0, 100 − 20 × 1000 × E / L). Rule sets: `metrics/lib/lint/rules.ts` (defects only, all at
 * error level); the linters' runners: `metrics/lib/lint/`.
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
 *   (`declaration-property-value-no-unknown`); when another rule already reports a defect inside that value (an
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
 * - Files are linted whatever bytes they hold (lib/artifact/load.ts reads code as text always); a NUL byte in
 *   one, or a code file too large to read, is named in `fileNotes` and the summary (a defect the linters do not
 *   report), not counted in E: the file's findings and the score are those of the same file without it.
 */
import { fileNotes } from '../../core/artifact/model.js';
import { errorMessage } from '../../core/errors.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { densityPenalty, round2 } from '../lib/formula.js';
import type { LintTool } from '../lib/lint/findings.js';
import { lintArtifact, type LintResult } from '../lib/lint/lint-artifact.js';

const MAX_LISTED = 300;

const lint: MetricDefinition = {
  number: 5,
  id: 'lint',
  perspective: 'code',
  kind: 'rule',
  needs: ['source'],
  cost: 'heavy',
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
    const notes = fileNotes(artifact);
    if (notes.length) details.fileNotes = notes;
    const score = densityPenalty(E, L);
    const note =
      (skipped.length ? ` (${skipped.length} block${skipped.length === 1 ? '' : 's'} a linter could not process)` : '') +
      (notes.length ? `; ${notes.join('; ')}` : '');
    const summary =
      (E === 0
        ? `no lint errors in ${L} lines`
        : `${E} lint error${E === 1 ? '' : 's'} in ${L} lines (htmlhint ${perTool.htmlhint}, stylelint ${perTool.stylelint}, eslint ${perTool.eslint}): ${round2((E * 1000) / L)} per 1000 lines`) +
      note;
    return scored(score, summary, details);
  },
};

export default lint;
