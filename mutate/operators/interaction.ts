/**
 * Operators for the interaction perspective (the interaction probe's metrics: render-validity,
 * control-liveness, interaction-errors, navigation-reachability). Their targets are not in every build: the
 * runner skips an operator whose targets are all missing from the registry ("target metric not in this build"),
 * so these edits are ready for when the probe is merged.
 */
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import { classifyUrl } from '../../lib/artifact/extract.js';
import { applied, MARK, notApplicable, type MutationOperator } from '../operator.js';
import type { JsBlock, PageModel } from '../page.js';

const THROW = `throw new Error('${MARK}: handler failed');`;

type Handler =
  { kind: 'attribute'; el: Element; value: string } | { kind: 'listener'; block: JsBlock; statement: acorn.Node; fn: acorn.Node | null; how: string };

/** Click handlers: `onclick` attributes, then `x.addEventListener('click', fn)` and `x.onclick = fn` statements. */
function clickHandlers(page: PageModel): Handler[] {
  const out: Handler[] = [];
  for (const el of page.elements('[onclick]')) out.push({ kind: 'attribute', el, value: el.getAttribute('onclick') ?? '' });
  for (const block of page.jsBlocks()) {
    if (!page.writable(block.file)) continue;
    const parsed = page.js(block);
    if (parsed.recovered) continue;
    walk.simple(parsed.ast, {
      ExpressionStatement(node) {
        const e = (node as acorn.ExpressionStatement).expression;
        if (
          e.type === 'CallExpression' &&
          e.callee.type === 'MemberExpression' &&
          !e.callee.computed &&
          e.callee.property.type === 'Identifier' &&
          e.callee.property.name === 'addEventListener'
        ) {
          const [type, fn] = e.arguments;
          if (type?.type === 'Literal' && type.value === 'click')
            out.push({ kind: 'listener', block, statement: node, fn: fn && isFunction(fn) ? fn : null, how: "addEventListener('click', ...)" });
        } else if (
          e.type === 'AssignmentExpression' &&
          e.left.type === 'MemberExpression' &&
          !e.left.computed &&
          e.left.property.type === 'Identifier' &&
          e.left.property.name === 'onclick'
        ) {
          out.push({ kind: 'listener', block, statement: node, fn: isFunction(e.right) ? e.right : null, how: '.onclick = ...' });
        }
      },
    });
  }
  return out;
}

function isFunction(n: acorn.Node): boolean {
  return n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';
}

export const removeClickHandler: MutationOperator = {
  id: 'remove-click-handler',
  targets: ['control-liveness'],
  collateral: ['dead-code', 'error-handling'],
  description: "the first click handler removed (an onclick attribute, else an addEventListener('click', ...) or .onclick = ... statement)",
  apply(page, edit) {
    const h = clickHandlers(page)[0];
    if (!h) return notApplicable('the page has no click handler in its source');
    if (h.kind === 'attribute') {
      edit.removeAttribute(h.el, 'onclick');
      return applied(`removed onclick from <${h.el.localName}>`);
    }
    edit.ms(h.block.file).remove(h.block.offset + h.statement.start, h.block.offset + h.statement.end);
    return applied(`${h.block.file}: removed the ${h.how} statement`);
  },
};

export const throwingHandler: MutationOperator = {
  id: 'throwing-handler',
  targets: ['interaction-errors'],
  collateral: ['control-liveness', 'dead-code'],
  description: 'the first click handler made to throw an Error as its first statement',
  apply(page, edit) {
    for (const h of clickHandlers(page)) {
      if (h.kind === 'attribute') {
        edit.setAttribute(h.el, 'onclick', `${THROW} ${h.value}`);
        return applied(`onclick of <${h.el.localName}> throws first`);
      }
      if (!h.fn) continue; // a named function: its body is elsewhere
      const body = (h.fn as acorn.ArrowFunctionExpression | acorn.FunctionExpression).body;
      const s = edit.ms(h.block.file);
      if (body.type === 'BlockStatement') s.appendRight(h.block.offset + body.start + 1, ` ${THROW}`);
      else s.overwrite(h.block.offset + body.start, h.block.offset + body.end, `{ ${THROW} }`);
      return applied(`${h.block.file}: the ${h.how} handler throws first`);
    }
    return notApplicable('the page has no click handler written in place (onclick, or a function given to addEventListener/onclick)');
  },
};

export const MISSING_ANCHOR = '#webgrade-mutant-missing';

export const breakNavLink: MutationOperator = {
  id: 'break-nav-link',
  targets: ['navigation-reachability'],
  description: `the first in-app link (to an id on the page, or to another page of the artifact) pointed at nothing (${MISSING_ANCHOR} / webgrade-mutant-missing.html)`,
  apply(page, edit) {
    const files = new Set(page.artifact.files.map((f) => f.path));
    for (const a of page.elements('a[href]')) {
      const href = (a.getAttribute('href') ?? '').trim();
      if (href.startsWith('#') && href.length > 1) {
        let id = href.slice(1);
        try {
          id = decodeURIComponent(id);
        } catch {
          /* keep */
        }
        if (!page.doc.getElementById(id) && page.doc.getElementsByName(id).length === 0) continue;
        edit.setAttribute(a, 'href', MISSING_ANCHOR);
        return applied(`<a href="${href}"> → href="${MISSING_ANCHOR}"`);
      }
      const c = classifyUrl(href, page.entry, files);
      if (c.location === 'local' && c.exists && c.path && /\.html?$/i.test(c.path)) {
        edit.setAttribute(a, 'href', 'webgrade-mutant-missing.html');
        return applied(`<a href="${href}"> → href="webgrade-mutant-missing.html"`);
      }
    }
    return notApplicable('no link to an element of the page or to another page of the artifact');
  },
};

export const blankFirstView: MutationOperator = {
  id: 'blank-first-view',
  targets: ['render-validity'],
  collateral: [
    'layout-consistency',
    'layout-sparsity',
    'color-harmony',
    'visual-experience',
    'accessibility',
    'performance',
    'best-practices',
    'media-quality',
    'placeholder-quality',
    'icon-consistency',
    'dead-code',
    'mobile-compat',
  ],
  description: 'a <style> in <head> that hides the whole document (html { display: none })',
  apply(_page, edit) {
    edit.insertInHead('<style>html{display:none!important}</style>');
    return applied('inserted <style>html{display:none!important}</style> in <head>');
  },
};

export const INTERACTION_OPERATORS: readonly MutationOperator[] = [blankFirstView, removeClickHandler, throwingHandler, breakNavLink];
