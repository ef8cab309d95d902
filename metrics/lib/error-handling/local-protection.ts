/**
 * Protection where a site is written: a try/catch around it within its unit, or a promise chain that handles
 * rejection (metrics/code/error-handling.ts states the rules).
 */
import type { AnyNode } from './units.js';
import { exprText, unitIndex } from './syntax.js';

/** Is `node` (whose ancestors up to and including it are given) inside a promise chain that handles rejection? */
export function chainProtection(ancestors: AnyNode[], from: number, stop: number): string | null {
  for (let i = from; i > stop; i--) {
    const child = ancestors[i]!;
    const parent = ancestors[i - 1]!;
    if (parent.type === 'MemberExpression' && parent.object === child && !parent.computed && parent.property.type === 'Identifier') {
      const call = ancestors[i - 2];
      if (call && call.type === 'CallExpression' && call.callee === parent) {
        const m = parent.property.name;
        if (m === 'catch') return '.catch()';
        if (m === 'then' && call.arguments.length >= 2) return '.then(ok, err)';
      }
    }
    if (parent.type === 'CallExpression' && parent.callee !== child) {
      const c = exprText(parent.callee as AnyNode);
      if (c === 'Promise.allSettled') return 'Promise.allSettled()';
    }
  }
  return null;
}

/** `p.catch(...)`, `p.then(ok, err)` or `Promise.allSettled(...)`: a promise whose rejection is handled. */
export function handledPromise(n: AnyNode): string | null {
  const e = n.type === 'ChainExpression' ? (n.expression as AnyNode) : n;
  if (e.type !== 'CallExpression') return null;
  const callee = e.callee as AnyNode;
  if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
    if (callee.property.name === 'catch') return '.catch()';
    if (callee.property.name === 'then' && e.arguments.length >= 2) return '.then(ok, err)';
  }
  return exprText(callee) === 'Promise.allSettled' ? 'Promise.allSettled()' : null;
}

/** Protection of the node at ancestors[from] within its unit (whose node is ancestors[stop]). */
export function protection(ancestors: AnyNode[], from: number, stop: number): string | null {
  for (let i = from; i > stop; i--) {
    const parent = ancestors[i - 1]!;
    if (parent.type === 'TryStatement' && parent.block === ancestors[i] && parent.handler) return 'try/catch';
  }
  return chainProtection(ancestors, from, stop);
}

const PROMISE_COMBINATORS = new Set(['Promise.all', 'Promise.allSettled', 'Promise.race', 'Promise.any']);

/**
 * For a function at ancestors[self] passed to `.then/.catch/.finally`, or to `.map` inside a Promise
 * combinator: the promise call its failure flows into, whether that call is protected in the enclosing unit,
 * and whether it is awaited/returned (so that the failure flows on to the enclosing unit's callers).
 */
export function promiseCallbackFlow(ancestors: AnyNode[], self: number): { protected: boolean; how: string | null; awaited: boolean } | null {
  const fn = ancestors[self]!;
  const call = ancestors[self - 1];
  if (!call || call.type !== 'CallExpression' || !(call.arguments as AnyNode[]).includes(fn)) return null;
  const callee = call.callee as AnyNode;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return null;
  const m = callee.property.name;
  let outer = -1;
  let how: string | null = null;
  if (m === 'then' || m === 'catch' || m === 'finally') outer = self - 1;
  else if (m === 'map') {
    const comb = ancestors[self - 2];
    if (comb?.type === 'CallExpression' && (comb.arguments as AnyNode[]).includes(call)) {
      const name = exprText(comb.callee as AnyNode);
      if (name && PROMISE_COMBINATORS.has(name)) {
        outer = self - 2;
        if (name === 'Promise.allSettled') how = 'Promise.allSettled()';
      }
    }
  }
  if (outer < 0) return null;
  const ui = unitIndex(ancestors, self);
  how ??= protection(ancestors, outer, ui);
  const p = ancestors[outer - 1];
  const node = ancestors[outer]!;
  const awaited = p?.type === 'AwaitExpression' || p?.type === 'ReturnStatement' || (p?.type === 'ArrowFunctionExpression' && p.body === node);
  return { protected: how !== null, how, awaited };
}
