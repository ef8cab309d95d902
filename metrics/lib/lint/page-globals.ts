/**
 * The names every script of a page can see besides browser globals, so that no-undef reports only names that do
 * not exist at run time (the rule is stated in metrics/code/lint.ts), and which JS blocks are modules.
 */
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import type { Artifact, SourceBlock } from '../../../core/artifact/model.js';
import { parseJs } from '../../../lib/js-parse.js';

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

/** Is a JS block parsed (and linted) as a module? See metrics/code/lint.ts. */
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

/** Names every script of the page can see besides browser globals (see metrics/code/lint.ts). */
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
          if (
            callee.type === 'MemberExpression' &&
            !callee.computed &&
            callee.property.type === 'Identifier' &&
            callee.property.name === 'createElement' &&
            arg?.type === 'Literal' &&
            String(arg.value).toLowerCase() === 'script'
          )
            injectsScripts = true;
          if (callee.type === 'Identifier' && callee.name === 'importScripts') injectsScripts = true;
        },
        AssignmentExpression(node) {
          const left = node.left;
          if (
            left.type === 'MemberExpression' &&
            !left.computed &&
            left.property.type === 'Identifier' &&
            left.object.type === 'Identifier' &&
            ['window', 'globalThis', 'self'].includes(left.object.name)
          ) {
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
