/**
 * `webgrade tests generate`: for every requirement of a requirements JSONL file without natural-language tests,
 * a judge writes them from the requirement and its checklist (prompt: prompts/tests.ts), as `checklist` derives
 * checklist items. The judge model is the `checklist` task's (the same kind of derivation). A line that gets
 * tests is the original JSON object with the new tests appended to its `tests` (ids `nl-1`, `nl-2`, ...; scripted
 * tests kept) and `testsSource: {model, promptVersion}` added; lines that already have natural-language tests
 * are copied unchanged (unless `force`), and a requirement whose generation fails keeps its line and is reported.
 */
import { JudgeCache } from './cache.js';
import { JudgeClient } from './client.js';
import { testsPrompt } from './prompts/tests.js';
import { askRepeated, emptyUsage, type JudgeUsage } from './run.js';
import { CHECKLIST_TASK, modelFor, notConfiguredReason, type JudgeSettings } from './settings.js';
import { InputError } from '../core/errors.js';
import { isNaturalTest } from '../core/requirement-tests.js';
import { parseRequirement, parseRequirementsJsonl, type Requirement } from '../core/requirements.js';

export interface GeneratedLine {
  id: string;
  status: 'kept' | 'generated' | 'failed';
  tests?: number;
  reason?: string;
}

export interface GenerateRun {
  text: string;
  results: GeneratedLine[];
  usage: JudgeUsage;
}

function add(total: JudgeUsage, u: JudgeUsage): void {
  total.calls += u.calls;
  total.cacheHits += u.cacheHits;
  total.invalidAnswers += u.invalidAnswers;
  total.promptTokens += u.promptTokens;
  total.completionTokens += u.completionTokens;
  total.callMs += u.callMs;
  total.costUsd = u.costUsd === null || total.costUsd === null ? null : total.costUsd + u.costUsd;
}

export async function generateTests(text: string, name: string, settings: JudgeSettings, opts: { force?: boolean } = {}): Promise<GenerateRun> {
  parseRequirementsJsonl(text, name); // validates every line, naming the bad one
  const entries = text.split(/\r?\n/).map((line) => {
    if (line.trim() === '') return null;
    const obj = JSON.parse(line) as Record<string, unknown>;
    return { obj, req: parseRequirement(obj) as Requirement };
  });
  const todo = entries.filter((e): e is NonNullable<typeof e> => e !== null && (opts.force || !(e.req.tests ?? []).some(isNaturalTest)));
  const usage = emptyUsage();
  const results = new Map<object, GeneratedLine>();
  if (todo.length) {
    const nc = notConfiguredReason(settings, CHECKLIST_TASK);
    if (nc) throw new InputError(nc);
    const ctx = { client: new JudgeClient(settings), cache: new JudgeCache(settings.cacheDir), settings };
    const model = modelFor(settings, CHECKLIST_TASK)!;
    await Promise.all(
      todo.map(async (e) => {
        const spec = testsPrompt(e.req);
        const r = await askRepeated({ ...ctx, signal: AbortSignal.timeout(settings.deadlineMs) }, spec, model, 1);
        if (!r.ok) {
          add(usage, r.usage);
          results.set(e, { id: e.req.id, status: 'failed', reason: r.reason });
          return;
        }
        add(usage, r.answer.usage);
        const kept = (e.req.tests ?? []).filter((t) => !opts.force || !isNaturalTest(t));
        const ids = new Set(kept.map((t) => t.id));
        let n = 0;
        const fresh = r.answer.values[0]!.map((t) => {
          while (ids.has(`nl-${++n}`));
          return { id: `nl-${n}`, task: t.task, expected: t.expected };
        });
        e.obj.tests = [...((opts.force ? kept : (e.obj.tests as unknown[] | undefined)) ?? []), ...fresh];
        e.obj.testsSource = { model, promptVersion: spec.promptVersion };
        results.set(e, { id: e.req.id, status: 'generated', tests: fresh.length });
      }),
    );
  }
  const out: string[] = [];
  const all: GeneratedLine[] = [];
  for (const e of entries) {
    if (!e) continue;
    out.push(JSON.stringify(e.obj));
    all.push(results.get(e) ?? { id: e.req.id, status: 'kept' });
  }
  return { text: out.join('\n') + (out.length ? '\n' : ''), results: all, usage };
}
