/**
 * Operators for the code perspective: console-errors, lint, error-handling, best-practices.
 */
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import { applied, MARK, notApplicable, type MutationOperator } from '../operator.js';
import type { JsBlock, PageModel } from '../page.js';

/** A console.error at load: one error-level console message. */
export const consoleError: MutationOperator = {
  id: 'console-error',
  targets: ['console-errors'],
  collateral: ['best-practices', 'dead-code'],
  description: 'a script at the end of <body> that calls console.error at load',
  apply(_page, edit) {
    edit.insertAtBodyEnd(`<script>console.error('${MARK}: console error at load');</script>`);
    return applied('inserted <script>console.error(...)</script> before </body>');
  },
};

/** An uncaught exception at load. */
export const throwAtLoad: MutationOperator = {
  id: 'throw-at-load',
  targets: ['console-errors'],
  collateral: ['best-practices', 'dead-code'],
  description: 'a script at the end of <body> that throws an uncaught Error at load',
  apply(_page, edit) {
    edit.insertAtBodyEnd(`<script>throw new Error('${MARK}: uncaught error at load');</script>`);
    return applied('inserted <script>throw new Error(...)</script> before </body>');
  },
};

/** A script that does not parse: a lint finding (ESLint's parse error) and an uncaught SyntaxError at load. */
export const jsSyntaxError: MutationOperator = {
  id: 'js-syntax-error',
  targets: ['lint', 'console-errors'],
  collateral: ['best-practices'],
  description: 'a script at the end of <body> with a syntax error (`let webgradeMutant = ;`)',
  apply(_page, edit) {
    edit.insertAtBodyEnd('<script>let webgradeMutant = ;</script>');
    return applied('inserted <script>let webgradeMutant = ;</script> before </body>');
  },
};

/** A duplicated attribute (htmlhint attr-no-duplication; the browser silently keeps the first). */
export const duplicateAttribute: MutationOperator = {
  id: 'duplicate-attribute',
  targets: ['lint'],
  description: 'the first attribute of the first element in <body> that has one, written twice',
  apply(page, edit) {
    for (const el of page.elements('body *')) {
      if (el.localName === 'script' || el.localName === 'style') continue;
      const attrs = page.loc(el)?.attrs;
      const first = attrs ? Object.entries(attrs).sort((a, b) => a[1].startOffset - b[1].startOffset)[0] : undefined;
      if (!first) continue;
      const [name, span] = first;
      edit.ms(page.entry).appendLeft(span.endOffset, ' ' + page.html.slice(span.startOffset, span.endOffset));
      return applied(`<${el.localName}>: attribute ${name} written twice`);
    }
    return notApplicable('no element in <body> has an attribute');
  },
};

/**
 * Keyword-valued properties and a realistic invalid value for each (a typo an author makes: the browser drops
 * the declaration). Ordered by how little the loss shows on screen, so the edit disturbs other metrics least.
 */
const INVALID_VALUES: Array<[string, string]> = [
  ['cursor', 'hand'],
  ['text-transform', 'capitalise'],
  ['white-space', 'no-wrap'],
  ['font-weight', 'semi-bold'],
  ['text-align', 'centre'],
  ['align-items', 'middle'],
  ['justify-content', 'middle'],
  ['flex-direction', 'columns'],
  ['flex-wrap', 'wrapped'],
  ['box-sizing', 'border'],
  ['visibility', 'hide'],
  ['float', 'center'],
  ['overflow', 'scroll-y'],
  ['position', 'top'],
  ['display', 'flexbox'],
];

/** A declaration whose value is invalid for its property (stylelint would need declaration-property-value-no-unknown). */
export const invalidCssValue: MutationOperator = {
  id: 'invalid-css-value',
  targets: ['lint'],
  description: 'one keyword declaration of the page CSS given an invalid value (cursor: hand, text-align: centre, display: flexbox ...)',
  apply(page, edit) {
    const candidates: Array<{ rank: number; order: number; file: string; start: number; end: number; prop: string; value: string; bad: string }> = [];
    let order = 0;
    for (const block of page.cssBlocks()) {
      if (!page.writable(block.file)) continue;
      const root = page.css(block);
      root?.walkDecls((d) => {
        order++;
        const rank = INVALID_VALUES.findIndex(([p]) => p === d.prop.toLowerCase());
        if (rank < 0 || !d.source?.start || d.source.start.offset === undefined) return;
        const parent = d.parent;
        if (!parent || parent.type !== 'rule') return;
        for (let a = parent.parent as { type: string; parent?: unknown; name?: string } | undefined; a; a = a.parent as typeof a)
          if (a.type === 'atrule' && /keyframes|font-face|supports/i.test(a.name ?? '')) return;
        const raw = (d.raws as { value?: { raw: string } }).value?.raw ?? d.value;
        const start = block.offset + d.source.start.offset + d.prop.length + (d.raws.between ?? ':').length;
        candidates.push({ rank, order, file: block.file, start, end: start + raw.length, prop: d.prop, value: raw, bad: INVALID_VALUES[rank]![1] });
      });
    }
    const pick = candidates.sort((a, b) => a.rank - b.rank || a.order - b.order)[0];
    if (!pick) return notApplicable('the page CSS has no keyword declaration to break (cursor, text-align, display ...)');
    edit.ms(pick.file).overwrite(pick.start, pick.end, pick.bad);
    return applied(`${pick.file}: ${pick.prop}: ${pick.value} → ${pick.prop}: ${pick.bad}`);
  },
};

const RISKY_MEMBERS: Record<string, readonly string[]> = {
  JSON: ['parse'],
  localStorage: ['getItem', 'setItem', 'removeItem', 'clear'],
  sessionStorage: ['getItem', 'setItem', 'removeItem', 'clear'],
  indexedDB: ['open', 'deleteDatabase'],
  axios: ['get', 'post', 'put', 'delete', 'patch', 'request'],
};

/** Is this node a risky operation error-handling looks for (fetch, JSON.parse, storage, XHR, axios ...)? */
function risky(node: acorn.Node): string | null {
  if (node.type === 'CallExpression') {
    const callee = (node as acorn.CallExpression).callee;
    if (callee.type === 'Identifier' && (callee.name === 'fetch' || callee.name === 'axios')) return `${callee.name}(...)`;
    if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
      let obj = callee.object;
      if (obj.type === 'MemberExpression' && !obj.computed && obj.object.type === 'Identifier' && obj.object.name === 'window')
        obj = obj.property as acorn.Expression;
      const prop = callee.property.name;
      if (obj.type === 'Identifier') {
        if (obj.name === 'window' && prop === 'fetch') return 'window.fetch(...)';
        if (RISKY_MEMBERS[obj.name]?.includes(prop)) return `${obj.name}.${prop}(...)`;
      }
    }
  }
  if (node.type === 'NewExpression') {
    const callee = (node as acorn.NewExpression).callee;
    if (callee.type === 'Identifier' && ['XMLHttpRequest', 'WebSocket', 'EventSource'].includes(callee.name)) return `new ${callee.name}()`;
  }
  return null;
}

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** The first risky operation directly inside `root` (not inside a nested function), or null. */
function riskyInside(root: acorn.Node): string | null {
  let found: string | null = null;
  walk.fullAncestor(root, (node, _state, ancestors) => {
    if (found) return;
    const r = risky(node);
    if (!r) return;
    const nested = ancestors.slice(ancestors.indexOf(root as acorn.AnyNode) + 1, -1).some((a) => FUNCTION_TYPES.has(a.type));
    if (!nested) found = r;
  });
  return found;
}

interface Unprotection {
  block: JsBlock;
  start: number;
  end: number;
  replacement: string;
  what: string;
}

/** Try statements with a catch clause around a risky operation, and `.catch(...)` on a risky promise chain. */
function protections(page: PageModel): Unprotection[] {
  const out: Unprotection[] = [];
  for (const block of page.jsBlocks()) {
    if (!page.writable(block.file)) continue;
    const parsed = page.js(block);
    if (parsed.recovered) continue; // edits are made only on code that parses
    const src = block.text;
    walk.full(parsed.ast, (node) => {
      if (node.type === 'TryStatement') {
        const t = node as acorn.TryStatement;
        if (!t.handler) return;
        const op = riskyInside(t.block);
        if (!op) return;
        const keep = src.slice(t.block.start, t.block.end) + (t.finalizer ? ' ' + src.slice(t.finalizer.start, t.finalizer.end) : '');
        out.push({ block, start: t.start, end: t.end, replacement: keep, what: `try/catch around ${op}` });
      } else if (node.type === 'CallExpression') {
        const c = node as acorn.CallExpression;
        if (c.callee.type !== 'MemberExpression' || c.callee.computed || c.callee.property.type !== 'Identifier' || c.callee.property.name !== 'catch') return;
        if (c.callee.optional || (c as { optional?: boolean }).optional) return;
        let op: string | null = null;
        walk.full(c.callee.object as acorn.AnyNode, (n) => {
          op ??= risky(n);
        });
        if (!op) return;
        out.push({ block, start: c.start, end: c.end, replacement: src.slice(c.callee.object.start, c.callee.object.end), what: `.catch(...) on ${op}` });
      }
    });
  }
  // document order within each block; try/catch first (the brief's defect), .catch chains after
  return out.sort((a, b) => Number(a.what.startsWith('.catch')) - Number(b.what.startsWith('.catch')));
}

/** Remove the error handling around one risky operation. */
export const unprotect: MutationOperator = {
  id: 'unprotect',
  targets: ['error-handling'],
  collateral: ['console-errors', 'best-practices', 'comment-rate', 'dead-code'],
  description: 'the first try/catch around fetch/JSON.parse/storage/XHR unwrapped to its try block (else a .catch(...) removed from such a promise chain)',
  apply(page, edit) {
    const all = protections(page);
    // an outer try around an inner one: unwrap the innermost (it is what protects the operation)
    const pick = all.find(
      (p) => !all.some((q) => q !== p && q.block === p.block && q.start > p.start && q.end < p.end && q.what.startsWith('try') === p.what.startsWith('try')),
    );
    if (!pick) return notApplicable('no try/catch or .catch(...) protects a fetch, JSON.parse, storage or XHR call');
    edit.ms(pick.block.file).overwrite(pick.block.offset + pick.start, pick.block.offset + pick.end, pick.replacement);
    return applied(`${pick.block.file}: removed the ${pick.what}`);
  },
};

/** A deprecated API (Chrome reports an `unload` listener as deprecated: Lighthouse's deprecations audit). */
export const deprecatedApi: MutationOperator = {
  id: 'deprecated-api',
  targets: ['best-practices'],
  collateral: ['dead-code'],
  description: "a script at the end of <body> that adds an 'unload' event listener (deprecated in Chrome)",
  apply(_page, edit) {
    edit.insertAtBodyEnd("<script>window.addEventListener('unload', function () {});</script>");
    return applied("inserted <script>window.addEventListener('unload', ...)</script> before </body>");
  },
};

/** Storage read and parsed with nothing to catch a failure (storage blocked, a corrupt saved value). */
export const UNPROTECTED_SCRIPT =
  "<script>(function () { var saved = localStorage.getItem('webgrade-mutant'); if (saved) window.webgradeMutant = JSON.parse(saved); })();</script>";

/**
 * An unprotected risky function inserted, for pages where `unprotect` has nothing to unwrap (most pages do not
 * guard their storage or fetch calls with try/catch at all): N and R both grow by one, so the score drops unless
 * it was already 0; on a page without risky code it is the only function that needs protection.
 */
export const unprotectedStorage: MutationOperator = {
  id: 'unprotected-storage',
  targets: ['error-handling'],
  inserts: true,
  collateral: ['dead-code'],
  description: 'a script at the end of <body> whose function reads localStorage and JSON.parses it with no try/catch',
  apply(_page, edit) {
    edit.insertAtBodyEnd(UNPROTECTED_SCRIPT);
    return applied('inserted <script>(function () { ... JSON.parse(localStorage.getItem(...)) ... })();</script> before </body>');
  },
};

export const CODE_OPERATORS: readonly MutationOperator[] = [
  consoleError,
  throwAtLoad,
  jsSyntaxError,
  duplicateAttribute,
  invalidCssValue,
  unprotect,
  unprotectedStorage,
  deprecatedApi,
];
