/**
 * `webgrade metrics [--suite s] [--markdown | --json | --explain <id>]`: the metrics of a suite as the registry
 * declares them (number, id, perspective, kind, needs, the question each answers, and its module), or one
 * metric's page. The metric tables of docs/metrics/README.md come from the registry too. `--explain` prints
 * docs/metrics/<id>.md, shipped with the package: the page is generated from the module's doc comment and its
 * test table, which the package does not ship (test/docs/metric-pages.ts; a test fails when a page is stale).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import Table from 'cli-table3';
import { DEFAULT_SUITE, SUITES, type SuiteId } from '../../core/metric.js';
import { findMetric, METRIC_IDS, METRICS, metricModulePath, suiteMetrics } from '../../metrics/registry.js';
import { InputError } from '../../core/errors.js';
import { action, parseSuite, printJson, SUITE_HELP, say, warn } from '../cli-support.js';

/**
 * The metric table of a suite, as docs/scoring.md holds it (links relative to docs/: each id to its page, each
 * module to its source): `study` lists the 24; `added` only what the extended suite adds.
 */
export function metricsMarkdown(which: SuiteId | 'added'): string {
  const list = which === 'added' ? METRICS.filter((m) => m.suite !== 'study') : suiteMetrics(which);
  const lines = ['| # | id | perspective | kind | what it asks | module |', '|---|---|---|---|---|---|'];
  for (const m of list) {
    const mod = metricModulePath(m);
    lines.push(
      `| ${m.number} | [\`${m.id}\`](metrics/${m.id}.md) | ${m.perspective} | ${m.kind} | ${m.question} | [${mod.replace(/^metrics\//, '')}](../${mod}) |`,
    );
  }
  return lines.join('\n');
}

/** The generated page of one metric (docs/metrics/<id>.md beside dist/ in a checkout and in the package). */
export function metricPage(id: string): string {
  if (!findMetric(id)) throw new InputError(`unknown metric "${id}" (one of: ${METRIC_IDS.join(', ')})`);
  const path = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'metrics', `${id}.md`);
  if (!existsSync(path)) throw new Error(`the page of ${id} is missing (${path}): run \`npm run docs:metrics\``);
  return readFileSync(path, 'utf8');
}

export function metricsCommand(): Command {
  return new Command('metrics')
    .description('list the metrics of a suite: number, id, perspective, kind, evidence needed, and the question each answers')
    .option('--suite <suite>', SUITE_HELP, parseSuite)
    .option('--markdown', 'a Markdown table (as in docs/scoring.md)')
    .option('--json', 'the declarations as JSON')
    .option('--explain <id>', "one metric's page: evidence, how it is scored, examples from its tests, mutation operators")
    .action(
      action((flags: { suite?: SuiteId; markdown?: boolean; json?: boolean; explain?: string }) => {
        if (flags.explain !== undefined) {
          say(metricPage(flags.explain));
          return;
        }
        const suite = flags.suite ?? DEFAULT_SUITE;
        const list = suiteMetrics(suite);
        if (flags.json) {
          printJson({
            suite,
            suites: SUITES,
            metrics: list.map(({ number, id, perspective, kind, needs, optional, title, question, suite: s }) => ({
              number,
              id,
              perspective,
              kind,
              needs,
              ...(optional ? { optional } : {}),
              title,
              question,
              suite: s,
            })),
          });
          return;
        }
        if (flags.markdown) {
          say(metricsMarkdown(suite) + '\n');
          return;
        }
        const t = new Table({
          head: ['#', 'id', 'perspective', 'kind', 'needs', 'question'],
          style: { head: [], border: [] },
          colWidths: [4, 27, 22, 7, 22, 60],
          wordWrap: true,
        });
        for (const m of list)
          t.push([String(m.number), m.id, m.perspective, m.kind, [...m.needs, ...(m.optional ?? []).map((n) => `${n}?`)].join(', '), m.question]);
        say(`${list.length} metrics in the ${suite} suite\n${t.toString()}\n`);
      }),
    );
}
