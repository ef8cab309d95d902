/**
 * WebGen-Bench's test-case files (`data/test.jsonl` of github.com/mnluzimu/WebGen-Bench): one app per line,
 * `{"id", "instruction", "Category": {"primary_category", "subcategories"}, "application_type", "ui_instruct":
 * [{"task", "expected_result", "task_category"}]}`. Each becomes a requirement line with natural-language tests
 * (SPEC "Requirement tests"): `instruction` the requirement text, `Category.primary_category` the label
 * `category`, `application_type` the label `application`, and `ui_instruct[i]` the test `<id>-<i+1>`
 * (`{"task", "expected"}`; the test's own category is kept as its `title`).
 *
 * With requirements of our own (`into`), the tests are added to the requirement of the same id (replacing tests
 * with the same test id), and the other lines are copied unchanged; WebGen-Bench ids without a requirement are
 * reported. Bad lines are an InputError naming the line.
 */
import { InputError } from '../core/errors.js';
import { parseRequirement, parseRequirementsJsonl } from '../core/requirements.js';

export interface ImportedRequirement {
  id: string;
  requirement: string;
  labels: Record<string, string>;
  tests: Array<{ id: string; title?: string; task: string; expected: string }>;
}

function parseLine(value: unknown, where: string): ImportedRequirement {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new InputError(`${where}: expected a JSON object`);
  const o = value as Record<string, unknown>;
  if (typeof o.id !== 'string' && typeof o.id !== 'number') throw new InputError(`${where}: missing "id"`);
  const id = String(o.id);
  if (typeof o.instruction !== 'string' || !o.instruction.trim()) throw new InputError(`${where}: missing "instruction"`);
  if (!Array.isArray(o.ui_instruct)) throw new InputError(`${where}: missing "ui_instruct" (a list of {"task", "expected_result"})`);
  const tests = o.ui_instruct.map((u, i) => {
    const t = u as Record<string, unknown>;
    if (!t || typeof t.task !== 'string' || !t.task.trim() || typeof t.expected_result !== 'string' || !t.expected_result.trim())
      throw new InputError(`${where}: ui_instruct[${i}] needs "task" and "expected_result" strings`);
    const cat = (t.task_category as Record<string, unknown> | undefined)?.primary_category;
    return { id: `${id}-${i + 1}`, ...(typeof cat === 'string' ? { title: cat } : {}), task: t.task, expected: t.expected_result };
  });
  const labels: Record<string, string> = {};
  const primary = (o.Category as Record<string, unknown> | undefined)?.primary_category;
  if (typeof primary === 'string') labels.category = primary;
  if (typeof o.application_type === 'string') labels.application = o.application_type;
  const req = { id, requirement: o.instruction, labels, tests };
  try {
    parseRequirement(req);
  } catch (err) {
    throw new InputError(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return req;
}

/** WebGen-Bench JSONL text → requirement lines (objects). */
export function readWebGenBench(text: string, name: string): ImportedRequirement[] {
  const out: ImportedRequirement[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      throw new InputError(`${name}:${i + 1}: not valid JSON`);
    }
    out.push(parseLine(v, `${name}:${i + 1}`));
  });
  if (out.length === 0) throw new InputError(`${name}: no test cases`);
  return out;
}

/** Add imported tests to our requirements (JSONL text); returns the new text and the ids with no requirement. */
export function mergeInto(reqsText: string, reqsName: string, imported: readonly ImportedRequirement[]): { text: string; added: number; unmatched: string[] } {
  parseRequirementsJsonl(reqsText, reqsName);
  const byId = new Map(imported.map((r) => [r.id, r]));
  const used = new Set<string>();
  let added = 0;
  const lines = reqsText
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const obj = JSON.parse(line) as Record<string, unknown>;
      const id = String(obj.id ?? obj.index);
      const imp = byId.get(id);
      if (!imp) return line;
      used.add(id);
      const mine = Array.isArray(obj.tests) ? (obj.tests as Array<Record<string, unknown>>) : [];
      const ids = new Set(imp.tests.map((t) => t.id));
      obj.tests = [...mine.filter((t) => !ids.has(String(t.id))), ...imp.tests];
      added += imp.tests.length;
      return JSON.stringify(obj);
    });
  return { text: lines.join('\n') + (lines.length ? '\n' : ''), added, unmatched: imported.map((r) => r.id).filter((id) => !used.has(id)) };
}
