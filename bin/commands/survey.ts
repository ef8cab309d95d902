/**
 * `webgrade survey serve` (the questionnaire on loopback) and `webgrade survey weights` (Borda weights from the
 * responses, in the weights-file format `webgrade leaderboard --weights` reads).
 */
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import Table from 'cli-table3';
import { DEFAULT_SUITE, type PerspectiveId, type SuiteId } from '../../core/metric.js';
import { InputError, errorMessage } from '../../core/errors.js';
import { toPercent1 } from '../../weights/borda.js';
import { metricsOf, surveyPerspectives } from '../../survey/catalogue.js';
import { startSurveyServer } from '../../survey/server.js';
import { DEFAULT_MIN_SECONDS, readResponsesFile, surveyWeights, type WeightsReport } from '../../survey/weights.js';
import { action, parsePositiveInt, parseSuite, printJson, SUITE_HELP, say, warn } from '../cli-support.js';

const PERSONA_ORDER = ['dev', 'qa', 'ds', 'pm', 'ops', 'legal', 'designer', 'other', 'all'];

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds ≥ 0');
  return n;
}

/** A table like SPEC's persona table: perspectives (%) with each metric's share inside it (%) below. */
export function weightsTable(report: WeightsReport, minSeconds: number): string {
  const personas = PERSONA_ORDER.filter((p) => report.personas[p]);
  const suite: SuiteId = report.personas.all?.suite ?? DEFAULT_SUITE;
  let equal = false;
  const table = new Table({
    head: ['', ...personas.map((p) => `${p} (n=${report.personas[p]!.respondents})`)],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const p of surveyPerspectives(suite) as PerspectiveId[]) {
    table.push([p, ...personas.map((id) => toPercent1(report.personas[id]!.perspectives[p]!).toFixed(1))]);
    const metrics = metricsOf(p, suite);
    if (metrics.length < 2) continue;
    for (const m of metrics) {
      table.push([
        `  ${m.id} (share)`,
        ...personas.map((id) => {
          const share = report.personas[id]!.shares?.[m.id];
          if (share === undefined) equal = true;
          return share === undefined ? 'equal' : toPercent1(share).toFixed(1);
        }),
      ]);
    }
  }
  const lines = [
    `Perspective weights per persona (%), with each metric's share inside its perspective (%); Borda count; suite ${suite}.`,
    table.toString(),
    `kept ${report.personas.all?.respondents ?? 0} responses; dropped ${report.dropped.too_fast} faster than ${minSeconds} s and ${report.dropped.invalid} invalid`,
  ];
  for (const bad of report.invalidLines.slice(0, 10)) lines.push(`  line ${bad.line}: ${bad.error}`);
  if (report.invalidLines.length > 10) lines.push(`  ... and ${report.invalidLines.length - 10} more invalid lines`);
  if (equal) lines.push('"equal": nobody in that persona ranked those metrics, so readers give them equal shares.');
  return lines.join('\n');
}

export function surveyCommand(): Command {
  const survey = new Command('survey').description("collect people's priorities with a questionnaire and turn them into persona weights");
  survey
    .command('serve')
    .description('serve the questionnaire on 127.0.0.1 and append each submitted response to a JSONL file')
    .option('--port <n>', 'port to listen on (default: 8377; 0 picks a free one)', parsePositiveIntOrZero, 8377)
    .option('--responses <file>', 'responses JSONL file to append to', 'responses.jsonl')
    .option('--suite <suite>', `${SUITE_HELP}: which perspectives and metrics the survey asks about`, parseSuite)
    .option(
      '--allow-host <hosts>',
      'comma-separated host names (host or host:port) to answer besides 127.0.0.1, localhost and [::1], e.g. the name of a reverse proxy',
      parseHostList,
    )
    .action(
      action(async (flags: { port: number; responses: string; suite?: SuiteId; allowHost?: string[] }) => {
        let server;
        try {
          server = await startSurveyServer({
            port: flags.port,
            responses: flags.responses,
            ...(flags.suite ? { suite: flags.suite } : {}),
            ...(flags.allowHost ? { allowHosts: flags.allowHost } : {}),
          });
        } catch (err) {
          if (err instanceof InputError) throw err; // the responses file
          throw new InputError(`survey serve: cannot listen on port ${flags.port} (${errorMessage(err)})`);
        }
        say(`survey at ${server.url} — responses are appended to ${flags.responses}; Ctrl-C stops\n`);
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await server.close();
        say(`stopped; ${server.written()} responses written this session\n`);
      }),
    );
  survey
    .command('weights')
    .description('Borda weights per persona (and `all`) from a responses JSONL file')
    .argument('<responses.jsonl>', 'responses file written by `survey serve` (SPEC format)')
    .option('--min-seconds <s>', `drop responses faster than this (default ${DEFAULT_MIN_SECONDS})`, parseSeconds, DEFAULT_MIN_SECONDS)
    .option('--json', 'print the weights document (SPEC format)')
    .option('--out <weights.json>', 'write the weights file for `webgrade leaderboard --weights`')
    .action(
      action((file: string, flags: { minSeconds: number; json?: boolean; out?: string }) => {
        const report = surveyWeights(readResponsesFile(file), flags.minSeconds);
        if (!report.personas.all) {
          throw new InputError(
            `${file}: no usable response (${report.dropped.too_fast} too fast, ${report.dropped.invalid} invalid${report.invalidLines[0] ? `; line ${report.invalidLines[0].line}: ${report.invalidLines[0].error}` : ''})`,
          );
        }
        const doc = { personas: report.personas, dropped: report.dropped };
        if (flags.out) {
          try {
            writeFileSync(flags.out, JSON.stringify(doc, null, 2) + '\n');
          } catch (err) {
            throw new InputError(`--out ${flags.out}: cannot write (${errorMessage(err)})`);
          }
        }
        if (flags.json) printJson(doc);
        else say(weightsTable(report, flags.minSeconds) + (flags.out ? `\nwrote ${flags.out}` : '') + '\n');
      }),
    );
  return survey;
}

export function parseHostList(value: string): string[] {
  const hosts = value
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const bad = hosts.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/i.test(h));
  if (bad !== undefined || hosts.length === 0)
    throw new InvalidArgumentError(`expected host names such as survey.example.org or survey.example.org:443${bad ? ` (not ${JSON.stringify(bad)})` : ''}`);
  return hosts;
}

export function parsePositiveIntOrZero(value: string): number {
  if (value === '0') return 0;
  return parsePositiveInt(value);
}
