/**
 * Deriving checklists (`webgrade checklist`): for every requirement of a requirements JSONL file that has no
 * checklist items, a judge derives functional, visual and content items from the requirement text (prompt:
 * prompts/checklist.ts). Lines that already have items are copied unchanged. A derived line is the original JSON
 * object with `checklist` set and `checklistSource: {model, promptVersion}` added (readers ignore unknown keys).
 * A requirement whose derivation fails keeps its line unchanged and is reported.
 */
import { JudgeCache } from './cache.js';
import { JudgeClient } from './client.js';
import { checklistPrompt } from './prompts/checklist.js';
import { askRepeated, type JudgeUsage } from './run.js';
import { modelFor, notConfiguredReason, type JudgeSettings } from './settings.js';
import { InputError } from '../core/errors.js';
import { parseRequirement, parseRequirementsJsonl, type Requirement } from '../core/requirements.js';

export interface ChecklistLineResult {
  id: string;
  status: 'kept' | 'derived' | 'failed';
  reason?: string;
}

export interface ChecklistRun {
  /** Output JSONL text. */
  text: string;
  results: ChecklistLineResult[];
  usage: { calls: number; cacheHits: number; promptTokens: number; completionTokens: number; costUsd: number | null };
}

export function hasChecklist(r: Requirement): boolean {
  const c = r.checklist;
  return !!c && c.functional.length + c.visual.length + c.content.length > 0;
}

export async function deriveChecklists(text: string, name: string, settings: JudgeSettings, opts: { force?: boolean } = {}): Promise<ChecklistRun> {
  parseRequirementsJsonl(text, name); // validates every line, naming the bad one
  const lines = text.split(/\r?\n/);
  const entries = lines.map((line) => {
    if (line.trim() === '') return null;
    const obj = JSON.parse(line) as Record<string, unknown>;
    return { obj, req: parseRequirement(obj) };
  });
  const todo = entries.filter((e): e is NonNullable<typeof e> => e !== null && (opts.force || !hasChecklist(e.req)));
  const usage: ChecklistRun['usage'] = { calls: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
  const results = new Map<NonNullable<(typeof entries)[number]>, ChecklistLineResult>();
  if (todo.length > 0) {
    const nc = notConfiguredReason(settings, 'checklist');
    if (nc) throw new InputError(nc);
    const client = new JudgeClient(settings);
    const cache = new JudgeCache(settings.cacheDir);
    const model = modelFor(settings, 'checklist')!;
    const add = (u: JudgeUsage) => {
      usage.calls += u.calls;
      usage.cacheHits += u.cacheHits;
      usage.promptTokens += u.promptTokens;
      usage.completionTokens += u.completionTokens;
      usage.costUsd = u.costUsd === null || usage.costUsd === null ? null : usage.costUsd + u.costUsd;
    };
    await Promise.all(
      todo.map(async (e) => {
        const spec = checklistPrompt(e.req);
        const signal = AbortSignal.timeout(settings.deadlineMs);
        const r = await askRepeated({ client, cache, settings, signal }, spec, model, 1);
        if (!r.ok) {
          add(r.usage);
          results.set(e, { id: e.req.id, status: 'failed', reason: r.reason });
          return;
        }
        add(r.answer.usage);
        e.obj.checklist = r.answer.values[0]!;
        e.obj.checklistSource = { model, promptVersion: spec.promptVersion };
        results.set(e, { id: e.req.id, status: 'derived' });
      }),
    );
  }
  const out: string[] = [];
  const all: ChecklistLineResult[] = [];
  for (const e of entries) {
    if (!e) continue;
    out.push(JSON.stringify(e.obj));
    all.push(results.get(e) ?? { id: e.req.id, status: 'kept' });
  }
  return { text: out.join('\n') + (out.length ? '\n' : ''), results: all, usage };
}
