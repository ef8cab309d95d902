/** Reading acorn trees for the error-handling analysis: names of functions and expressions, and a pre-order walk. */
import * as walk from 'acorn-walk';
import type * as acorn from 'acorn';
import type { AnyNode, FnNode } from './units.js';

const FN_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
export const isFn = (n: AnyNode | undefined): n is FnNode => !!n && FN_TYPES.has(n.type);

/** Source-like text of an identifier/`this`/member chain, or null. */
export function exprText(n: AnyNode | null | undefined): string | null {
  if (!n) return null;
  if (n.type === 'Identifier') return n.name;
  if (n.type === 'ThisExpression') return 'this';
  if (n.type === 'MemberExpression') {
    const obj = exprText(n.object as AnyNode);
    if (obj === null) return null;
    if (!n.computed && n.property.type === 'Identifier') return `${obj}.${n.property.name}`;
    if (n.computed && n.property.type === 'Literal') return `${obj}[${JSON.stringify(n.property.value)}]`;
    return null;
  }
  if (n.type === 'ChainExpression') return exprText(n.expression as AnyNode);
  return null;
}

function propName(key: AnyNode, computed: boolean): string | null {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'PrivateIdentifier') return '#' + key.name;
  if (key.type === 'Literal' && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  return null;
}

export function lastSegment(text: string): string {
  const i = text.lastIndexOf('.');
  return i >= 0 ? text.slice(i + 1) : text;
}

export function calleeName(call: acorn.CallExpression | acorn.NewExpression): string | null {
  const t = exprText(call.callee as AnyNode);
  return t;
}

export function stringArg(call: acorn.CallExpression, i: number): string | null {
  const a = call.arguments[i];
  if (a && a.type === 'Literal' && typeof a.value === 'string') return a.value;
  if (a && a.type === 'TemplateLiteral' && a.expressions.length === 0) return a.quasis[0]!.value.cooked ?? null;
  return null;
}

/** Name a function node from its parent context. */
export function nameFunction(fn: FnNode, ancestors: AnyNode[]): { name: string; simpleName?: string } {
  if (fn.type !== 'ArrowFunctionExpression' && fn.id) return { name: fn.id.name, simpleName: fn.id.name };
  const parent = ancestors[ancestors.length - 2];
  if (!parent) return { name: '(anonymous)' };
  switch (parent.type) {
    case 'VariableDeclarator':
      if (parent.id.type === 'Identifier') return { name: parent.id.name, simpleName: parent.id.name };
      break;
    case 'AssignmentExpression': {
      const t = exprText(parent.left as AnyNode);
      if (t) return { name: t, simpleName: lastSegment(t) };
      break;
    }
    case 'Property': {
      const k = propName(parent.key as AnyNode, parent.computed);
      if (k) return { name: k, simpleName: k };
      break;
    }
    case 'MethodDefinition':
    case 'PropertyDefinition': {
      const k = propName(parent.key as AnyNode, parent.computed);
      const cls = ancestors[ancestors.length - 4];
      const clsName = cls && (cls.type === 'ClassDeclaration' || cls.type === 'ClassExpression') && cls.id ? cls.id.name : null;
      if (k) {
        const display = parent.type === 'MethodDefinition' && parent.kind === 'constructor' ? 'constructor' : k;
        return { name: clsName ? `${clsName}.${display}` : display, simpleName: display === 'constructor' ? undefined : k };
      }
      break;
    }
    case 'CallExpression':
    case 'NewExpression': {
      if (parent.callee === fn) return { name: '(immediately invoked)' };
      if ((parent.arguments as AnyNode[]).includes(fn)) {
        const callee = parent.callee as AnyNode;
        const text = calleeName(parent);
        const last = text
          ? lastSegment(text)
          : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
            ? callee.property.name
            : null;
        if (last === 'addEventListener' && parent.type === 'CallExpression') {
          const ev = stringArg(parent, 0);
          return { name: `${ev ?? 'event'} listener` };
        }
        return { name: `${last ?? 'call'} callback` };
      }
      break;
    }
    default:
      break;
  }
  return { name: '(anonymous)' };
}

/** Index of the nearest enclosing unit node in ancestors (excluding the node itself at the end). */
export function unitIndex(ancestors: AnyNode[], self: number): number {
  for (let i = self - 1; i > 0; i--) if (isFn(ancestors[i])) return i;
  return 0;
}

/** Target text of `X = <expr>` / `const X = <expr>` for the expression at ancestors[i]. */
export function assignedTo(ancestors: AnyNode[], i: number): string | null {
  const parent = ancestors[i - 1];
  if (!parent) return null;
  if (parent.type === 'VariableDeclarator' && parent.init === ancestors[i] && parent.id.type === 'Identifier') return parent.id.name;
  if (parent.type === 'AssignmentExpression' && parent.right === ancestors[i]) return exprText(parent.left as AnyNode);
  return null;
}

export type Visit = (node: AnyNode, ancestors: AnyNode[]) => void;
type BaseWalker = Record<string, (node: AnyNode, st: unknown, c: (n: AnyNode, st: unknown, override?: string) => void) => void>;

/**
 * acorn-walk's `fullAncestor` calls back after a node's children; units must exist before their bodies are
 * read, so this is the same walk (acorn-walk's `base` visitors) with the callback before the children.
 */
export function preOrderWalk(root: AnyNode, visit: Visit): void {
  const base = walk.base as unknown as BaseWalker;
  const ancestors: AnyNode[] = [];
  const c = (node: AnyNode, st: unknown, override?: string): void => {
    const type = override ?? node.type;
    const step = base[type];
    const isNew = node !== ancestors[ancestors.length - 1];
    if (isNew) ancestors.push(node);
    if (!override) visit(node, ancestors);
    if (step) step(node, st, c);
    if (isNew) ancestors.pop();
  };
  c(root, undefined);
}
