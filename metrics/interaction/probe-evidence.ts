/**
 * Shared by the interaction metrics: the interaction probe's evidence (the runner checked it is there), and how an
 * action and a control are named in details. What the probe does is documented in
 * gather/interaction/probe.ts; the evidence format in core/browser-evidence.ts.
 */
import { present, type Evidence } from '../../core/evidence.js';
import type { InteractionAction, InteractionControl, InteractionEvidence } from '../../core/browser-evidence.js';

/** The probe's evidence. */
export function probeEvidence(evidence: Evidence): InteractionEvidence {
  return present(evidence.interaction, "the interaction probe's evidence");
}

/** A control as a person reads it: its kind, label and selector. */
export function describeControl(c: InteractionControl): { selector: string; text: string; kind: string; page?: string } {
  return { selector: c.selector, text: c.text, kind: c.kind, ...(c.page ? { page: c.page } : {}) };
}

/** `click "Subscribe"` */
export function actionLabel(a: InteractionAction, c: InteractionControl | undefined): string {
  const what = c ? (c.text ? `"${c.text.slice(0, 40)}"` : c.selector) : `control ${a.control}`;
  return `${a.action} ${what}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
