/** Terminal rendering of a weights fit (fit.ts). */
import Table from 'cli-table3';
import type { FitDoc } from '../weights/fit.js';
import { estimateText, type Estimate } from '../weights/judgements.js';
import { guardSummary } from '../weights/noise.js';

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [] }, chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' } });
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const counted = (e: Estimate, unit: string) => `${e.groups} reqs, ${e.n} ${unit}`;

export function fitTable(doc: FitDoc, written?: string): string {
  const d = doc.data;
  const out: string[] = [];
  const what = d.kind === 'ratings' ? `${d.pages} rated pages` : `${d.judgements} judgements (${d.ties} ties${d.raters ? `, ${d.raters} raters` : ''})`;
  out.push(
    `Weights fitted to ${d.kind} ${d.file}: ${what} of ${d.requirements} requirements, ${d.comparisons} within-requirement comparisons; results ${doc.results} (suite ${doc.suite})`,
  );
  out.push(
    `${doc.method.loss}; weights ≥ 0, L2 ${doc.method.l2}${doc.method.ties ? `, ties ${doc.method.ties === 'half' ? 'as half a win each' : 'left out'}` : ''}; ${doc.method.solver}, ${doc.method.steps} steps${doc.method.converged ? '' : ' (not converged)'}`,
  );
  out.push(guardSummary(doc.noiseGuard));
  out.push('');
  const boot =
    doc.method.bootstrap > 0 ? `95% CI: ${doc.method.bootstrap} refits on bootstrap resamples of the requirements (seed ${doc.method.seed})` : 'no bootstrap';
  out.push(`Fitted weights (normalised to sum 1; ${boot})`);
  const t = table(['metric', 'perspective', 'weight', '95% CI', '> 0 in']);
  for (const w of doc.weights) {
    if (w.note === 'no results') continue;
    t.push([
      w.id,
      w.perspective ?? '',
      pct(w.weight),
      w.ci ? `${pct(w.ci[0])} … ${pct(w.ci[1])}` : (w.note ?? 'n/a'),
      w.positive === null ? '' : `${Math.round(w.positive * 100)}%`,
    ]);
  }
  out.push(t.toString());
  out.push('');
  const unit = d.kind === 'ratings' ? 'pages' : 'judgements';
  out.push(
    `Held-out agreement with people: ${doc.measure.description}; ${doc.method.folds}-fold cross-validation by requirement (seed ${doc.method.seed}); chance ${doc.measure.chance.toFixed(2)}`,
  );
  const a = table(['weights', doc.measure.id === 'pairwise-accuracy' ? 'accuracy [95% CI]' : 'Spearman ρ [95% CI]', 'over']);
  a.push(['fitted (held out)', estimateText(doc.agreement.fitted), counted(doc.agreement.fitted, unit)]);
  // A persona of a survey weights file is named with its file, so it is not taken for the preset of that name.
  for (const s of doc.agreement.survey)
    a.push([`survey persona ${s.persona}${s.source.startsWith('SPEC') ? '' : ` (${s.source})`}`, estimateText(s.estimate), counted(s.estimate, unit)]);
  for (const m of doc.agreement.metrics) a.push([`metric ${m.id}`, estimateText(m.estimate), counted(m.estimate, unit)]);
  out.push(a.toString());
  out.push(`Verdict: ${doc.verdict.text}`);
  if (written) out.push(`wrote the fitted weights to ${written} (use: webgrade leaderboard <results> --weights ${written})`);
  if (doc.notes.length) {
    out.push('');
    out.push('Notes:');
    for (const n of doc.notes) out.push(`- ${n}`);
  }
  return out.join('\n');
}
