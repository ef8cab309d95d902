/**
 * What the report shows of requirement tests: on an artifact's page each test with its verdict, its reason and its
 * after-screenshot (the metric's picture, with the elements it acted on boxed), and on a requirement's page the
 * requirement's text (from `report --requirements`) and each test's pass rate across the models. Read from the
 * `requirement-tests` metric's details in the results rows, which are hostile data: every field is checked for its
 * type and cut, and the templates escape it.
 */
import type { ResultRow } from '../core/results.js';

export interface TestLine {
  id: string;
  title?: string;
  /** null: not run. */
  passed: boolean | null;
  reason?: string;
  ms?: number;
  /** The picture of its after-screenshot, when the report copied it. */
  picture?: { src: string; width: number; height: number; caption: string };
}

const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);

/** The requirement tests of a results row (none when the metric did not run or was unscorable without details). */
export function testsOf(row: ResultRow, pictures: ReadonlyArray<{ src: string; width: number; height: number; caption: string }> = []): TestLine[] {
  const m = row.metrics?.find((x) => x.id === 'requirement-tests');
  const list = (m?.details as { tests?: unknown } | undefined)?.tests;
  if (!Array.isArray(list)) return [];
  const out: TestLine[] = [];
  for (const t of list.slice(0, 200)) {
    if (!t || typeof t !== 'object') continue;
    const o = t as Record<string, unknown>;
    const id = str(o.id, 120);
    if (id === undefined) continue;
    const passed = o.passed === true ? true : o.passed === false ? false : null;
    const title = str(o.title, 300);
    const reason = str(o.reason, 600);
    const picture = pictures.find((p) => p.caption.startsWith(`test ${id} `));
    out.push({
      id,
      passed,
      ...(title ? { title } : {}),
      ...(reason ? { reason } : {}),
      ...(typeof o.ms === 'number' && Number.isFinite(o.ms) ? { ms: o.ms } : {}),
      ...(picture ? { picture } : {}),
    });
  }
  return out;
}

export interface TestRate {
  id: string;
  title?: string;
  /** Models whose test passed, failed, and were not run. */
  passed: number;
  failed: number;
  notRun: number;
  /** passed / (passed + failed), or null when no model ran it. */
  rate: number | null;
  /** Each model's verdict, in the order given. */
  models: Array<{ model: string; passed: boolean | null; reason?: string }>;
}

/** Each test's pass rate across the artifacts of one requirement (tests in first-seen order). */
export function testRates(artifacts: ReadonlyArray<{ model: string; row: ResultRow }>): TestRate[] {
  const byId = new Map<string, TestRate>();
  for (const a of artifacts) {
    for (const t of testsOf(a.row)) {
      let r = byId.get(t.id);
      if (!r) {
        r = { id: t.id, ...(t.title ? { title: t.title } : {}), passed: 0, failed: 0, notRun: 0, rate: null, models: [] };
        byId.set(t.id, r);
      }
      if (t.passed === true) r.passed++;
      else if (t.passed === false) r.failed++;
      else r.notRun++;
      r.models.push({ model: a.model, passed: t.passed, ...(t.reason ? { reason: t.reason } : {}) });
    }
  }
  for (const r of byId.values()) r.rate = r.passed + r.failed ? r.passed / (r.passed + r.failed) : null;
  return [...byId.values()];
}
