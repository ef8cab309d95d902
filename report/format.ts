/** Human-readable rendering of score documents for the terminal. */
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
  return lines.join('\n');
}

/** Full details of one metric, as indented JSON under a header. */
export function explainMetric(m: MetricResult): string {
  const head = m.score === null ? `${m.id}: n/a (${m.reason})` : `${m.id}: ${fmtScore(m.score)}: ${m.summary ?? ''}`;
  return `${head}\n${JSON.stringify(m.details, null, 2)}`;
}
