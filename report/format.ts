/** Human-readable rendering of score documents for the terminal. */
import type { ProjectEvidence } from '../core/project.js';
import Table from 'cli-table3';
import type { MetricResult, ScoreDocument } from '../core/results.js';

function fmtScore(score: number | null): string {
  return score === null ? 'n/a' : score.toFixed(1);
}

export function terminalWidth(): number {
  return Math.max(80, Math.min(process.stdout.columns || 120, 200));
}

export function scoreTable(doc: ScoreDocument): string {
  const width = terminalWidth();
  const fixed = 28 + 22 + 8;
  const why = Math.max(20, width - fixed - 6);
  const table = new Table({
    head: ['Metric', 'Perspective', 'Score', 'Why'],
    colWidths: [28, 22, 8, why],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const m of doc.metrics) {
    table.push([m.id, m.perspective, fmtScore(m.score), m.score === null ? `n/a: ${m.reason}` : (m.summary ?? '')]);
  }
  const lines = [`${doc.artifact}${doc.requirement ? `  (requirement ${doc.requirement})` : ''}`, table.toString()];
  const scoredCount = doc.metrics.filter((m) => m.score !== null).length;
  lines.push(`${scoredCount} of ${doc.metrics.length} metrics of the ${doc.suite} suite scored; \`--explain <id>\` shows the details behind one.`);
  if (doc.network) {
    const n = doc.network;
    const libs = n.libraries.length ? `; CDN libraries served: ${n.libraries.join(', ')}` : '';
    lines.push(`network ${n.mode}${libs}; ${n.blocked} request${n.blocked === 1 ? '' : 's'} blocked, ${n.withheld} withheld`);
  }
  if (doc.project) lines.push(projectLine(doc.project));
  return lines.join('\n');
}

const kb = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} kB`);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One line on a project's install, build and output (core/project.ts). */
export function projectLine(p: ProjectEvidence): string {
  const parts: string[] = [];
  if (p.install)
    parts.push(
      `install ${secs(p.install.ms)}${p.install.packages !== undefined ? `, ${p.install.packages} packages` : ''}, ${p.install.downloads} downloaded${p.install.lockfile ? ` (${p.install.lockfile})` : ''}`,
    );
  if (p.build) parts.push(`build ${secs(p.build.ms)}, ${p.build.warnings.length} warning${p.build.warnings.length === 1 ? '' : 's'}`);
  if (p.output) parts.push(`output ${p.output.folder}/ ${kb(p.output.bytes)} (JS ${kb(p.output.jsBytes)}, CSS ${kb(p.output.cssBytes)})`);
  const head = p.status === 'built' ? 'project built' : `project ${p.status}: ${p.reason ?? ''}`;
  return `${head}${parts.length ? `; ${parts.join('; ')}` : ''}`;
}

/** Full details of one metric, as indented JSON under a header. */
export function explainMetric(m: MetricResult): string {
  const head = m.score === null ? `${m.id}: n/a (${m.reason})` : `${m.id}: ${fmtScore(m.score)}: ${m.summary ?? ''}`;
  return `${head}\n${JSON.stringify(m.details, null, 2)}`;
}
