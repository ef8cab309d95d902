/**
 * Static applicability of the mutation operators (issue 36): on a deterministic sample of corpus pages, which
 * operators can seed their defect (the operator's own check: `apply` on the parsed page, no browser, nothing
 * scored), and per rule metric of the study suite, on how many pages at least one of its operators applies.
 * It answers "can every study metric be mutation-tested on a typical corpus page?"; whether the metric then
 * detects the defect is bench/mutate.ts's question.
 *
 *   node dist/bench/mutate-applicability.js [--pages 10] [--json]
 *
 * Pages: the same sample as bench/mutate.ts, without the fixtures: `--pages` corpus pages, half from
 * ../shared/corpus/llm-tools/pages and half from ../shared/corpus/design2code/predictions (every model's folder),
 * each the first by the SHA-1 of its path relative to the corpus.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suiteMetrics } from '../metrics/registry.js';
import { Mutation, PageModel } from '../mutate/page.js';
import { OPERATORS, operatorsFor } from '../mutate/registry.js';
import { benchArgs } from './common.js';

const { values: args } = benchArgs('usage: node dist/bench/mutate-applicability.js [--pages 10] [--json]', {
  pages: { type: 'number', default: 10 },
  json: { type: 'boolean' },
});
const here = dirname(fileURLToPath(import.meta.url));
const corpus = join(here, '..', '..', '..', 'shared', 'corpus');
const nPages = args.pages;
const sha = (s: string) => createHash('sha1').update(s).digest('hex');

function sample(dirs: string[], n: number): string[] {
  const files: string[] = [];
  for (const d of dirs) if (existsSync(d)) for (const f of readdirSync(d)) if (f.endsWith('.html')) files.push(join(d, f));
  return files.sort((a, b) => sha(relative(corpus, a)).localeCompare(sha(relative(corpus, b)))).slice(0, n);
}

async function main(): Promise<void> {
  const d2c = join(corpus, 'design2code', 'predictions');
  const llm = sample([join(corpus, 'llm-tools', 'pages')], Math.ceil(nPages / 2));
  const design = sample(existsSync(d2c) ? readdirSync(d2c).map((m) => join(d2c, m)) : [], Math.floor(nPages / 2));
  const pages = [...llm, ...design];
  if (pages.length === 0) {
    process.stdout.write(`no corpus at ${corpus}: nothing to do\n`);
    return;
  }
  const applies = new Map<string, string[]>(); // operator → pages it applies to
  const reasons = new Map<string, Map<string, number>>(); // operator → why not → pages
  for (const p of pages) {
    const page = PageModel.load(p);
    for (const op of OPERATORS) {
      let ok = false;
      let why = '';
      try {
        const r = await op.apply(page, new Mutation(page));
        ok = r.applied;
        if (!r.applied) why = r.reason;
      } catch (err) {
        why = `error: ${(err as Error).message}`;
      }
      if (ok) applies.set(op.id, [...(applies.get(op.id) ?? []), p]);
      else {
        const m = reasons.get(op.id) ?? new Map<string, number>();
        m.set(why, (m.get(why) ?? 0) + 1);
        reasons.set(op.id, m);
      }
    }
  }
  const M = pages.length;
  const rows = suiteMetrics('study')
    .filter((m) => m.kind === 'rule')
    .map((m) => {
      const ops = operatorsFor(m.id);
      const any = new Set(ops.flatMap((o) => applies.get(o.id) ?? []));
      return { metric: m.id, operators: ops.map((o) => ({ id: o.id, applies: (applies.get(o.id) ?? []).length })), pages: any.size };
    });
  if (args.json) {
    process.stdout.write(
      JSON.stringify(
        {
          pages: pages.map((p) => relative(corpus, p)),
          metrics: rows,
          notApplied: Object.fromEntries([...reasons].map(([k, v]) => [k, Object.fromEntries(v)])),
        },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  const lines = [
    `${M} corpus pages (${llm.length} llm-tools, ${design.length} Design2Code), static applicability`,
    '',
    '| metric | operators (applies on N of M pages) | at least one applies |',
    '|---|---|---|',
  ];
  for (const r of rows) lines.push(`| ${r.metric} | ${r.operators.map((o) => `\`${o.id}\` ${o.applies}/${M}`).join(', ')} | ${r.pages}/${M} |`);
  lines.push('', 'Why operators did not apply:');
  for (const [op, m] of reasons) lines.push(`- ${op}: ${[...m].map(([why, n]) => `${n}× ${why}`).join('; ')}`);
  process.stdout.write(lines.join('\n') + '\n');
}

await main();
