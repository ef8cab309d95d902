/**
 * The error-handling analysis of a page: the units of every block, then what only the whole page tells (XHR
 * objects, error callbacks, timers, protection by callers), and one report per function that needs protection.
 */
import type { SourceBlock } from '../../../core/artifact/model.js';
import { errorMessage } from '../../../core/errors.js';
import { type FunctionReport, isRiskyName, type PageState, type Site, type Unit, type Use } from './units.js';
import { analyseBlock } from './block-sites.js';

/** Storage sites are found twice for `localStorage.getItem` (object and member): keep one per node line/what. */
function dedupeSites(sites: Site[]): Site[] {
  const seen = new Set<string>();
  const out: Site[] = [];
  for (const s of sites) {
    const key = `${s.line}:${s.what}:${s.protected}`;
    if ((s.what === 'localStorage' || s.what === 'sessionStorage') && seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

export interface ErrorHandlingAnalysis {
  functions: FunctionReport[];
  unitsAnalysed: number;
  jsBlocks: number;
  recoveredBlocks: Array<{ file: string; line: number; syntaxError?: string }>;
  /** Blocks that could not be analysed at all (e.g. nesting deeper than the parser's stack). */
  skippedBlocks: Array<{ file: string; line: number; reason: string }>;
}

/**
 * Protection by callers, transitively (the least set closed under two rules): a unit is protected when its
 * failure flows into a promise chain that is caught, or that is awaited by a unit protected by its callers;
 * or when every use of its name (recursive calls aside) is protected where it is written, or is a call whose
 * failure flows into a unit that is itself protected by its callers. A worklist with a count of the uses still
 * open per unit: linear in units and uses (a fixpoint loop over all units until nothing changes is quadratic
 * on a long chain of callers).
 */
function protectedByCallers(units: readonly Unit[], usesByName: ReadonlyMap<string, Use[]>, byName: ReadonlyMap<string, Unit[]>): Set<Unit> {
  const byCallers = new Set<Unit>();
  const flows = (u: Unit, x: Use) => x.call === 'awaited' || (x.call === 'plain' && !u.async);
  /** Per unit with a name: uses of that name outside it that are not yet known to be protected. */
  const open = new Map<Unit, number>();
  /** Units whose failure flows into a promise held by the key unit, awaited. */
  const flowDependents = new Map<Unit, Unit[]>();
  /** Per unit: the uses written inside it that would count once it is protected by its callers. */
  const usesInside = new Map<Unit, Use[]>();
  const queue: Unit[] = [];
  const add = (u: Unit) => {
    if (byCallers.has(u)) return;
    byCallers.add(u);
    queue.push(u);
  };
  for (const uses of usesByName.values()) {
    for (const x of uses) {
      const list = usesInside.get(x.unit);
      if (list) list.push(x);
      else usesInside.set(x.unit, [x]);
    }
  }
  for (const u of units) {
    if (u.flowsInto) {
      if (u.flowsInto.protected) add(u);
      else if (u.flowsInto.awaited) {
        const list = flowDependents.get(u.flowsInto.unit);
        if (list) list.push(u);
        else flowDependents.set(u.flowsInto.unit, [u]);
      }
    }
    if (!u.simpleName) continue;
    const uses = usesByName.get(u.simpleName) ?? [];
    let total = 0;
    let pending = 0;
    for (const x of uses) {
      if (x.unit === u) continue;
      total++;
      if (!x.protected) pending++;
    }
    if (total === 0) continue;
    open.set(u, pending);
    if (pending === 0) add(u);
  }
  for (let i = 0; i < queue.length; i++) {
    const w = queue[i]!;
    for (const d of flowDependents.get(w) ?? []) add(d);
    for (const x of usesInside.get(w) ?? []) {
      if (x.protected) continue;
      for (const u of byName.get(x.name) ?? []) {
        if (u === w || byCallers.has(u) || !flows(u, x)) continue;
        const left = open.get(u)! - 1;
        open.set(u, left);
        if (left === 0) add(u);
      }
    }
  }
  return byCallers;
}

/** Every function of `blocks` that needs protection against failure, and whether (and how) it has it. */
export function analyseErrorHandling(blocks: readonly SourceBlock[]): ErrorHandlingAnalysis {
  const page: PageState = { units: [], uses: [], xhrNames: new Set(), handlerTargets: new Set(), unitByNode: new Map(), pendingTimerFns: [] };
  const recoveredBlocks: ErrorHandlingAnalysis['recoveredBlocks'] = [];
  const skippedBlocks: ErrorHandlingAnalysis['skippedBlocks'] = [];
  for (const block of blocks) {
    const mark = { units: page.units.length, uses: page.uses.length, timers: page.pendingTimerFns.length };
    let r: ReturnType<typeof analyseBlock>;
    try {
      r = analyseBlock(block, page);
    } catch (err) {
      // Pathological code (nesting deeper than the call stack): leave the block out, say so.
      for (const u of page.units.splice(mark.units)) page.unitByNode.delete(u.node);
      page.uses.splice(mark.uses);
      page.pendingTimerFns.splice(mark.timers);
      skippedBlocks.push({ file: block.file, line: block.line, reason: errorMessage(err) });
      continue;
    }
    if (r.recovered) recoveredBlocks.push({ file: block.file, line: block.line, ...(r.syntaxError ? { syntaxError: r.syntaxError } : {}) });
  }

  // Resolve page-wide facts: XHR objects and error callbacks.
  for (const u of page.units) {
    u.sites = dedupeSites(u.sites).filter((s) => !s.xhrCandidate || page.xhrNames.has(s.xhrCandidate));
    for (const s of u.sites) {
      if (!s.protected && s.handlerTarget && page.handlerTargets.has(s.handlerTarget)) {
        s.protected = true;
        s.how = `${s.handlerTarget}.onerror`;
      }
    }
  }
  // Timers whose callback does I/O.
  const byName = new Map<string, Unit[]>();
  for (const u of page.units) {
    if (!u.simpleName) continue;
    const list = byName.get(u.simpleName);
    if (list) list.push(u);
    else byName.set(u.simpleName, [u]);
  }
  const timerSite = (owner: Unit, timer: string, line: number, cbs: Unit[]) => {
    const io = cbs.flatMap((cb) => cb.sites.filter((s) => s.io));
    if (io.length === 0) return;
    const ok = io.every((s) => s.protected);
    owner.sites.push({
      what: `${timer} callback does ${[...new Set(io.map((s) => s.what))].join(', ')}`,
      io: false,
      line,
      protected: ok,
      ...(ok ? { how: 'callback handles its errors' } : {}),
    });
  };
  for (const p of page.pendingTimerFns) {
    const cb = page.unitByNode.get(p.fn);
    if (cb) timerSite(p.owner, p.timer, p.line, [cb]);
  }
  for (const u of page.units) {
    for (const t of u.timers) {
      if (typeof t.callback === 'string') timerSite(u, t.timer, t.line, byName.get(t.callback) ?? []);
    }
  }

  const usesByName = new Map<string, Use[]>();
  for (const use of page.uses) {
    const list = usesByName.get(use.name);
    if (list) list.push(use);
    else usesByName.set(use.name, [use]);
  }
  const byCallers = protectedByCallers(page.units, usesByName, byName);
  /** Uses of a unit's name written outside the unit itself (recursive calls aside). */
  const ownUses = new Map<Unit, number>();
  for (const use of page.uses) if (use.unit.simpleName === use.name) ownUses.set(use.unit, (ownUses.get(use.unit) ?? 0) + 1);
  const usesOf = (u: Unit) => (usesByName.get(u.simpleName!)?.length ?? 0) - (ownUses.get(u) ?? 0);

  const functions: FunctionReport[] = [];
  for (const u of page.units) {
    const reasons: string[] = [];
    if (u.async) reasons.push('async');
    for (const s of u.sites) if (s.what !== 'await' && s.what !== 'for await' && !reasons.includes(s.what)) reasons.push(s.what);
    if (u.simpleName && isRiskyName(u.simpleName)) reasons.push(`risky name "${u.simpleName}"`);
    const topAwait = u.kind === 'top-level' && u.sites.some((s) => s.what === 'await' || s.what === 'for await');
    if (topAwait) reasons.push('top-level await');
    if (reasons.length === 0) continue;

    let how: string | null = null;
    const unprotected = u.sites.filter((s) => !s.protected);
    if (u.sites.length > 0) {
      if (unprotected.length === 0) how = [...new Set(u.sites.map((s) => s.how!))].join(', ');
    } else if (u.hasTryCatch) how = 'try/catch';
    else if (u.hasCatchChain) how = '.catch()';
    if (how === null && byCallers.has(u) && u.flowsInto) {
      how = u.flowsInto.protected ? `by the promise chain it is part of (${u.flowsInto.how})` : 'by the callers of the promise it is part of';
    } else if (how === null && byCallers.has(u)) {
      const n = usesOf(u);
      how = `by its callers (${n} use${n === 1 ? '' : 's'})`;
    }
    const report: FunctionReport = {
      file: u.block.file,
      line: u.line,
      name: u.name,
      reasons,
      protected: how !== null,
      how,
    };
    if (how === null && unprotected.length > 0) report.unprotected = unprotected.map((s) => ({ line: s.line, what: s.what }));
    functions.push(report);
  }
  functions.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return { functions, unitsAnalysed: page.units.length, jsBlocks: blocks.length, recoveredBlocks, skippedBlocks };
}
