/**
 * The one list of mutation operators, grouped by the perspective of their targets in SPEC order. Adding an
 * operator: its object in a module under `operators/`, one entry here, and a row in test/mutate/operators.test.ts
 * (input source → output source). Targets are metric ids; a target this build's metric registry lacks is
 * skipped at run time, so operators for metrics still being written (the interaction probe) can live here.
 */
import type { MutationOperator } from './operator.js';
import { CODE_OPERATORS } from './operators/code.js';
import { CONTENT_OPERATORS } from './operators/content.js';
import { ACCESSIBILITY_OPERATORS } from './operators/accessibility.js';
import { MAINTAINABILITY_OPERATORS } from './operators/maintainability.js';
import { PERFORMANCE_OPERATORS, VISUAL_OPERATORS } from './operators/visual.js';
import { INTERACTION_OPERATORS } from './operators/interaction.js';
import { RUNTIME_OPERATORS } from './operators/runtime.js';

export const OPERATORS: readonly MutationOperator[] = [
  ...CODE_OPERATORS,
  ...VISUAL_OPERATORS,
  ...CONTENT_OPERATORS,
  ...PERFORMANCE_OPERATORS,
  ...RUNTIME_OPERATORS,
  ...ACCESSIBILITY_OPERATORS,
  ...MAINTAINABILITY_OPERATORS,
  ...INTERACTION_OPERATORS,
];

export function findOperator(id: string): MutationOperator | undefined {
  return OPERATORS.find((o) => o.id === id);
}

/** The operators that target a metric. */
export function operatorsFor(metricId: string): MutationOperator[] {
  return OPERATORS.filter((o) => o.targets.includes(metricId));
}
