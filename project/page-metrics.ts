/**
 * What a project that was not built scores (SPEC "Inputs": "a failed build is evidence (the study's page metrics
 * score 0 with the build's reason)", UI2App's rule: an app whose build fails scores 0 on what needs it running).
 *
 * A metric needs a page when it requires evidence that only a page gives: the browser run, its screenshot, the
 * phone measurement, Lighthouse, the interaction probe, the runtime watch, the requirement tests or the fidelity renders; or when it
 * reads nothing of the source and only the page beside its judge (`visual-experience`, which rates the first
 * screen). In the study suite: visual-experience, the rule metrics that read the browser (console-errors,
 * icon-consistency, layout-consistency, layout-sparsity, color-harmony, media-quality, placeholder-quality,
 * mobile-compat) and the Lighthouse ones (best-practices, performance, accessibility, code-redundancy); in the
 * extended suite also dead-code, the interaction metrics, the requirement
 * tests, the fidelity metrics and the runtime performance ones (frame-smoothness, responsiveness, memory-stability). These score 0 when the build `failed` (the project's defect), with the reason,
 * and are unscorable with the reason when it was `refused` (webgrade's limit: core/project.ts).
 *
 * Everything else is scored from the sources as for any artifact: lint, error-handling, comment-rate,
 * copywriting and component-consistency (the static page), resource-validity (the references the sources make),
 * cross-browser (the features the sources use; the rendered DOM is optional evidence), and the judges that read
 * the source (functionality-correctness and the three alignment judges; visual-alignment without a screenshot).
 */
import type { EvidenceNeed, MetricDefinition } from '../core/metric.js';
import type { ProjectEvidence } from '../core/project.js';

export const PAGE_NEEDS: ReadonlySet<EvidenceNeed> = new Set([
  'browser',
  'screenshot',
  'mobile',
  'lighthouse',
  'interaction',
  'requirement-tests',
  'reference',
  'runtime',
]);

/** Does `m` need a built page (module comment)? */
export function needsPage(m: Pick<MetricDefinition, 'needs' | 'optional'>): boolean {
  if (m.needs.some((n) => PAGE_NEEDS.has(n))) return true;
  return !m.needs.includes('source') && (m.optional ?? []).some((n) => PAGE_NEEDS.has(n));
}

/** The outcome of a page metric of a project that was not built: 0 (failed) or unscorable (refused), with why. */
export function unbuiltOutcome(project: ProjectEvidence): { score: 0; summary: string } | { score: null; reason: string } {
  const why = project.reason ?? 'the project was not built';
  if (project.status === 'failed') return { score: 0, summary: `0: no page, ${why}` };
  return { score: null, reason: `no page: ${why}` };
}
