/** One JS block's units, risky sites and uses of names, found in one walk of its tree. */
import { fileLine, parseJs } from '../../../lib/js-parse.js';
import type { SourceBlock } from '../../../core/artifact/model.js';
import type { AnyNode, PageState, Site, Unit } from './units.js';
import { assignedTo, calleeName, exprText, isFn, lastSegment, nameFunction, preOrderWalk, stringArg, unitIndex } from './syntax.js';
import { chainProtection, handledPromise, promiseCallbackFlow, protection } from './local-protection.js';

const TIMERS = new Set(['setTimeout', 'setInterval', 'window.setTimeout', 'window.setInterval']);
const AXIOS_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'request']);
const ERROR_EVENTS = new Set(['error', 'timeout']);

/** Add one block's units, sites and uses to `page`; says whether the tree is acorn-loose's recovery. */
export function analyseBlock(block: SourceBlock, page: PageState): { recovered: boolean; syntaxError?: string } {
  const parsed = parseJs(block);
  const program = parsed.ast;
  const topUnit: Unit = {
    block,
    node: program,
    name: block.origin === 'attribute' ? `${block.attribute ?? 'on…'} attribute` : 'top-level code',
    kind: block.origin === 'attribute' ? 'attribute' : 'top-level',
    async: false,
    // the first statement, not the `<script>` tag line
    line: fileLine(block, program.body[0]?.loc?.start.line ?? 1),
    sites: [],
    timers: [],
    hasTryCatch: false,
    hasCatchChain: false,
  };
  page.units.push(topUnit);
  page.unitByNode.set(program, topUnit);
  const lineOf = (n: AnyNode) => fileLine(block, n.loc?.start.line ?? 1);

  preOrderWalk(program, (node, ancestors) => {
    const self = ancestors.length - 1;
    if (node === program) return;
    const ui = unitIndex(ancestors, self);
    const unit = page.unitByNode.get(ancestors[ui]!);
    if (!unit) return; // cannot happen: enclosing units are visited first
    const addSite = (what: string, io: boolean, extra: Partial<Site> = {}) => {
      const how = protection(ancestors, self, ui);
      unit.sites.push({ what, io, line: lineOf(node), protected: how !== null, ...(how ? { how } : {}), ...extra });
    };

    if (isFn(node)) {
      const { name, simpleName } = nameFunction(node, ancestors);
      const u: Unit = {
        block,
        node,
        name,
        ...(simpleName ? { simpleName } : {}),
        kind: 'function',
        async: node.async === true,
        line: lineOf(node),
        sites: [],
        timers: [],
        hasTryCatch: false,
        hasCatchChain: false,
      };
      const flow = promiseCallbackFlow(ancestors, self);
      if (flow) {
        const enclosing = page.unitByNode.get(ancestors[ui]!);
        if (enclosing) u.flowsInto = { unit: enclosing, ...flow };
      }
      page.units.push(u);
      page.unitByNode.set(node, u);
      return;
    }

    switch (node.type) {
      case 'TryStatement':
        if (node.handler) unit.hasTryCatch = true;
        break;
      case 'AwaitExpression':
        if (unit.async || unit.kind === 'top-level') {
          const handled = handledPromise(node.argument as AnyNode);
          if (handled) unit.sites.push({ what: 'await', io: false, line: lineOf(node), protected: true, how: handled });
          else addSite('await', false);
        }
        break;
      case 'ForOfStatement':
        if (node.await) addSite('for await', false);
        break;
      case 'NewExpression': {
        const c = calleeName(node);
        const ctor = c?.replace(/^window\./, '');
        if (ctor === 'XMLHttpRequest' || ctor === 'WebSocket' || ctor === 'EventSource') {
          const target = assignedTo(ancestors, self);
          if (ctor === 'XMLHttpRequest' && target) page.xhrNames.add(target);
          addSite(`new ${ctor}()`, true, target ? { handlerTarget: target } : {});
        }
        break;
      }
      case 'CallExpression': {
        const c = calleeName(node);
        const callee = node.callee as AnyNode;
        if (c === 'fetch' || c === 'window.fetch' || c === 'globalThis.fetch') addSite('fetch()', true);
        else if (c === 'axios' || (c?.startsWith('axios.') && AXIOS_VERBS.has(c.slice(6)))) addSite(`${c}()`, true);
        else if (c === 'JSON.parse' || c === 'window.JSON.parse') addSite('JSON.parse()', true);
        else if (c === 'indexedDB.open' || c === 'window.indexedDB.open' || c === 'indexedDB.deleteDatabase') {
          const target = assignedTo(ancestors, self);
          addSite(`${c}()`, true, target ? { handlerTarget: target } : {});
        } else if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
          const m = callee.property.name;
          const obj = exprText(callee.object as AnyNode);
          if ((m === 'send' || m === 'open') && obj) addSite(`${obj}.${m}()`, true, { xhrCandidate: obj, handlerTarget: obj });
          if (m === 'catch' || (m === 'then' && node.arguments.length >= 2)) unit.hasCatchChain = true;
          if (m === 'addEventListener' && obj) {
            const ev = stringArg(node, 0);
            if (ev && ERROR_EVENTS.has(ev)) page.handlerTargets.add(obj);
          }
        }
        if (c && TIMERS.has(c)) {
          const cb = node.arguments[0] as AnyNode | undefined;
          if (cb && isFn(cb)) page.pendingTimerFns.push({ owner: unit, timer: lastSegment(c), line: lineOf(node), fn: cb });
          else if (cb && cb.type === 'Identifier') unit.timers.push({ timer: lastSegment(c), line: lineOf(node), callback: cb.name });
        }
        // Uses of named functions: direct calls, and names passed as callbacks.
        const calledName =
          callee.type === 'Identifier'
            ? callee.name
            : callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier'
              ? callee.property.name
              : null;
        if (calledName) {
          const how = protection(ancestors, self, ui);
          const parent = ancestors[self - 1];
          const awaited =
            parent?.type === 'AwaitExpression' || parent?.type === 'ReturnStatement' || (parent?.type === 'ArrowFunctionExpression' && parent.body === node);
          page.uses.push({ name: calledName, protected: how !== null, unit, call: awaited ? 'awaited' : 'plain' });
        }
        const m = callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' ? callee.property.name : null;
        for (const arg of node.arguments as AnyNode[]) {
          const argName = arg.type === 'Identifier' ? arg.name : arg.type === 'MemberExpression' ? exprText(arg) : null;
          if (!argName) continue;
          // `.then(name)` / `.catch(name)`: protected when the chain is caught after it.
          const viaChain = m === 'then' || m === 'catch' || m === 'finally';
          const prot = viaChain ? chainProtection(ancestors, self, ui) !== null : false;
          const calls = viaChain || m === 'addEventListener' || (c !== null && (TIMERS.has(c) || c === 'requestAnimationFrame'));
          if (calls) page.uses.push({ name: lastSegment(argName), protected: prot, unit, call: 'reference' });
        }
        break;
      }
      case 'MemberExpression': {
        const t = exprText(node);
        // One site per storage reference: `localStorage.x` or `window.localStorage`.
        if (t === 'window.localStorage' || t === 'window.sessionStorage') {
          addSite(t.slice(7), true);
        } else if (node.object.type === 'Identifier' && (node.object.name === 'localStorage' || node.object.name === 'sessionStorage')) {
          addSite(node.object.name, true);
        }
        break;
      }
      case 'AssignmentExpression': {
        const left = node.left as AnyNode;
        if (left.type === 'MemberExpression' && !left.computed && left.property.type === 'Identifier') {
          const prop = left.property.name;
          const obj = exprText(left.object as AnyNode);
          if ((prop === 'onerror' || prop === 'ontimeout') && obj) page.handlerTargets.add(obj);
        }
        const right = node.right as AnyNode;
        if (
          right.type === 'Identifier' &&
          left.type === 'MemberExpression' &&
          !left.computed &&
          left.property.type === 'Identifier' &&
          /^on/.test(left.property.name)
        ) {
          page.uses.push({ name: right.name, protected: false, unit, call: 'reference' });
        }
        break;
      }
      default:
        break;
    }
  });
  return parsed.recovered ? { recovered: true, ...(parsed.syntaxError ? { syntaxError: parsed.syntaxError.message } : {}) } : { recovered: false };
}
