/**
 * Printing mutation results: the `--json` document (SPEC-style, stable) and the table a person reads, and the
 * operator list of `webgrade mutate --list`.
 */
import Table from 'cli-table3';
import type { MutationOperator } from './operator.js';
import { judgeable, type Move, type MutationReport, type OperatorResult } from './run.js';

const fmt = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : String(Math.round(x * 100) / 100));

/** The JSON document of `webgrade mutate --json`. */
export function reportJson(r: MutationReport): Record<string, unknown> {
  return {
    artifact: r.artifact,
    suite: r.suite,
    scope: r.scope,
    repeats: r.repeats,
    rule: r.rule,
    operators: r.operators.map((o) => ({
      id: o.id,
      targets: o.targets,
      applied: o.applied,
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.edit ? { edit: o.edit } : {}),
      detected: o.detected,
      scores: o.scores,
      moved: o.moved,
      ...(o.notes ? { notes: o.notes } : {}),
      ...(o.skippedTargets ? { skippedTargets: o.skippedTargets } : {}),
      ...(o.measured ? { measured: o.measured } : {}),
      ...(o.ms !== undefined ? { ms: o.ms } : {}),
    })),
    base: r.base,
    summary: summary(r),
    timings: r.timings,
  };
}

export interface Summary {
  /** Operators that applied (edit made and at least one target in this build). */
  applied: number;
  /** Targets that could be judged (scorable and above 0 on the original), and those that detected. */
  judged: number;
  detected: number;
  /** Moves of non-target metrics not named as collateral. */
  falseMoves: number;
  expectedMoves: number;
}

export function summary(r: MutationReport): Summary {
  let judged = 0;
  let detected = 0;
  let falseMoves = 0;
  let expectedMoves = 0;
  for (const o of r.operators) {
    for (const t of Object.keys(o.detected)) {
      if (!judgeable(o, t)) continue;
      judged++;
      if (o.detected[t]) detected++;
    }
    for (const m of o.moved) m.expected ? expectedMoves++ : falseMoves++;
  }
  return { applied: r.operators.filter((o) => o.applied).length, judged, detected, falseMoves, expectedMoves };
}

function targetCell(o: OperatorResult): string {
  if (!o.applied) return `not applied: ${o.reason ?? ''}`;
  const lines = Object.keys(o.detected).map((t) => {
    const s = o.scores[t];
    const mark = o.detected[t] ? '✓ detected' : judgeable(o, t) ? '✗ missed' : `– ${o.notes?.[t] ?? ''}`;
    return `${t} ${fmt(s?.base)} → ${fmt(s?.mutant)} ${mark}`;
  });
  for (const [t, why] of Object.entries(o.skippedTargets ?? {})) lines.push(`${t}: ${why}`);
  return lines.join('\n');
}

function moveCell(moves: readonly Move[]): string {
  return moves.map((m) => `${m.id} ${fmt(m.base)} → ${fmt(m.mutant)}${m.expected ? ' (expected)' : ''}`).join('\n');
}

/** The table `webgrade mutate` prints. */
export function reportTable(r: MutationReport): string {
  const t = new Table({
    head: ['operator', 'targets: original → mutant', 'other metrics that moved'],
    colWidths: [22, 62, 44],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const o of r.operators) t.push([o.id + (o.edit ? `\n${o.edit}` : ''), targetCell(o), moveCell(o.moved)]);
  const s = summary(r);
  const lines = [
    `${r.artifact}: ${r.operators.length} operators, suite ${r.suite}, scope ${r.scope}; ${r.rule}`,
    t.toString(),
    `${s.applied} of ${r.operators.length} operators applied; targets detected ${s.detected} of ${s.judged} that could drop; ${s.falseMoves} false move(s), ${s.expectedMoves} expected move(s) of other metrics`,
    `time: original ${(r.timings.baseMs / 1000).toFixed(1)} s, mutants ${(r.timings.mutantsMs / 1000).toFixed(1)} s, total ${(r.timings.totalMs / 1000).toFixed(1)} s`,
  ];
  return lines.join('\n');
}

/** `webgrade mutate --list`. */
export function operatorTable(ops: readonly MutationOperator[], inBuild: (id: string) => boolean): string {
  const t = new Table({ head: ['operator', 'targets', 'what it edits'], colWidths: [22, 30, 78], wordWrap: true, style: { head: [], border: [] } });
  for (const o of ops) t.push([o.id, o.targets.map((id) => (inBuild(id) ? id : `${id} (not in this build)`)).join('\n'), o.description]);
  return t.toString();
}
