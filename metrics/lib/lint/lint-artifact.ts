/** The three linters of the `lint` metric over one artifact, findings in the order HTML, CSS, JS. */
import type { Artifact } from '../../../core/artifact/model.js';
import { lintJs } from './eslint.js';
import type { LintFinding, Skipped } from './findings.js';
import { lintHtml } from './htmlhint.js';
import { lintCss } from './stylelint.js';

export interface LintResult {
  findings: LintFinding[];
  /** no-undef findings not counted because the page injects scripts at run time. */
  unverified: LintFinding[];
  configProblems: string[];
  skipped: Skipped[];
}

export async function lintArtifact(artifact: Artifact): Promise<LintResult> {
  const findings: LintFinding[] = [];
  const unverified: LintFinding[] = [];
  const configProblems: string[] = [];
  const skipped: Skipped[] = [];
  await lintHtml(artifact, findings, skipped);
  await lintCss(artifact, findings, configProblems, skipped);
  await lintJs(artifact, findings, unverified, skipped);
  return { findings, unverified, configProblems, skipped };
}
