/**
 * JS coverage over every load of the interaction probe (dead-code reads it). The probe's page runs V8 block
 * coverage (`Profiler.startPreciseCoverage`, detailed) and takes it before each reload and at the end; each take
 * is turned into the byte ranges that ran (nested block ranges resolved: the innermost range decides, as
 * puppeteer's coverage does) and unioned per script, a script being its URL and content hash (every load parses
 * the same scripts again). Names follow the visit's (collectors/coverage.ts): the artifact-relative file, or
 * `<file>#inline-<n>` for the n-th inline script of an HTML file in document order.
 */
import type { CoverageEntry } from '../../core/browser-evidence.js';

export interface RangeCount {
  startOffset: number;
  endOffset: number;
  count: number;
}

/** The disjoint [start, end) ranges that ran, from one script's function ranges (V8 block coverage). */
export function usedRanges(functions: ReadonlyArray<{ ranges: readonly RangeCount[] }>): Array<[number, number]> {
  const points: Array<{ offset: number; type: 0 | 1; range: RangeCount }> = [];
  for (const f of functions) {
    for (const r of f.ranges) {
      points.push({ offset: r.startOffset, type: 0, range: r });
      points.push({ offset: r.endOffset, type: 1, range: r });
    }
  }
  points.sort((a, b) => {
    if (a.offset !== b.offset) return a.offset - b.offset;
    if (a.type !== b.type) return b.type - a.type; // ends before starts
    const la = a.range.endOffset - a.range.startOffset;
    const lb = b.range.endOffset - b.range.startOffset;
    return a.type === 0 ? lb - la : la - lb; // longer starts first, shorter ends first
  });
  const stack: number[] = [];
  const out: Array<[number, number]> = [];
  let last = 0;
  for (const p of points) {
    if (stack.length && last < p.offset && stack[stack.length - 1]! > 0) {
      const prev = out[out.length - 1];
      if (prev && prev[1] === last) prev[1] = p.offset;
      else out.push([last, p.offset]);
    }
    last = p.offset;
    if (p.type === 0) stack.push(p.range.count);
    else stack.pop();
  }
  return out;
}

/** Union of two sorted disjoint range lists. */
export function unionRanges(a: ReadonlyArray<[number, number]>, b: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const all = [...a, ...b].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of all) {
    const prev = out[out.length - 1];
    if (prev && s <= prev[1]) prev[1] = Math.max(prev[1], e);
    else out.push([s, e]);
  }
  return out;
}

export interface ScriptInfo {
  url: string;
  hash: string;
  length: number;
  startLine: number;
  startColumn: number;
}

/** Accumulates coverage takes of one probe. */
export class CoverageUnion {
  private readonly scripts = new Map<string, ScriptInfo>();
  private readonly used = new Map<string, { info: ScriptInfo; ranges: Array<[number, number]> }>();

  /** A `Debugger.scriptParsed` event. */
  parsed(scriptId: string, info: ScriptInfo): void {
    this.scripts.set(scriptId, info);
  }

  /** The result of one `Profiler.takePreciseCoverage`. */
  take(
    result: ReadonlyArray<{ scriptId: string; url: string; functions: ReadonlyArray<{ ranges: readonly RangeCount[] }> }>,
    own: (url: string) => boolean,
  ): void {
    for (const s of result) {
      if (!s.url || !own(s.url)) continue;
      const info = this.scripts.get(s.scriptId);
      if (!info) continue;
      const key = `${info.url}\n${info.hash}`;
      const ranges = usedRanges(s.functions);
      const cur = this.used.get(key);
      if (cur) cur.ranges = unionRanges(cur.ranges, ranges);
      else this.used.set(key, { info, ranges });
    }
  }

  /**
   * Coverage entries: `name(url)` gives the artifact-relative file (null: not the artifact's) and whether it is
   * an HTML file (its scripts are inline blocks, numbered in document order).
   */
  entries(name: (url: string) => { file: string; html: boolean } | null): CoverageEntry[] {
    const byFile = new Map<string, Array<{ info: ScriptInfo; ranges: Array<[number, number]> }>>();
    for (const u of this.used.values()) {
      const n = name(u.info.url);
      if (!n) continue;
      const list = byFile.get(n.file) ?? [];
      list.push(u);
      byFile.set(n.file, list);
    }
    const out: CoverageEntry[] = [];
    for (const [file, list] of [...byFile.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
      const html = name(list[0]!.info.url)!.html;
      list.sort((a, b) => a.info.startLine - b.info.startLine || a.info.startColumn - b.info.startColumn);
      list.forEach((u, i) => {
        const usedBytes = u.ranges.reduce((s, [a, b]) => s + Math.min(b, u.info.length) - Math.min(a, u.info.length), 0);
        out.push({ source: html ? `${file}#inline-${i + 1}` : file, totalBytes: u.info.length, usedBytes });
      });
    }
    return out;
  }
}
