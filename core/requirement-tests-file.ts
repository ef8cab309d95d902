/**
 * `webgrade tests check`: every problem of a requirements file's tests, one line each with its line number, found
 * before any page runs: the JSON of each line, the requirement's own keys (core/requirements.ts), and each test
 * against the language (requirement-tests-check.ts: unknown keys, missing keys, regular expressions that do not
 * compile, CSS selectors that do not parse, names used before a step gives them) and its JSON Schema
 * (requirement-tests.schema.json, checked with Ajv, the maintained JSON Schema validator editors also use). The
 * two agree on every case of test/core/requirement-tests-schema.test.ts; a line the parser accepts and the schema
 * rejects is reported too, so that a drift between them shows.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { parseRequirement } from './requirements.js';
import { testProblems } from './requirement-tests-check.js';

/** The schema of one requirement line (its `tests` in full). */
export const REQUIREMENT_TESTS_SCHEMA = JSON.parse(readFileSync(new URL('../../core/requirement-tests.schema.json', import.meta.url), 'utf8')) as object;

let validate: ReturnType<Ajv2020['compile']> | undefined;

/** The schema's complaints about one parsed line, most specific first (Ajv's paths, e.g. `/tests/0/steps/1`). */
export function schemaProblems(line: unknown): string[] {
  validate ??= new Ajv2020({ allErrors: false, strict: false }).compile(REQUIREMENT_TESTS_SCHEMA);
  if (validate(line)) return [];
  const errs = (validate.errors ?? []) as ErrorObject[];
  const deepest = [...errs].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  return deepest ? [`schema: ${deepest.instancePath || '/'} ${deepest.message ?? 'is invalid'}`] : ['schema: invalid'];
}

export interface FileReport {
  requirements: number;
  tests: number;
  problems: string[];
}

/** Check a requirements JSONL text (`name` in the messages). */
export function checkRequirementsText(text: string, name: string): FileReport {
  const out: FileReport = { requirements: 0, tests: 0, problems: [] };
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${name}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      out.problems.push(`${where}: not JSON (${err instanceof Error ? err.message : String(err)})`);
      return;
    }
    out.requirements++;
    const o = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    if (Array.isArray(o.tests)) out.tests += o.tests.length;
    const found = o.tests !== undefined ? testProblems(o.tests) : [];
    if (!found.length) {
      try {
        parseRequirement({ ...o, tests: undefined });
      } catch (err) {
        found.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (!found.length) found.push(...schemaProblems(value));
    for (const p of found) out.problems.push(`${where}: ${p}`);
  });
  return out;
}
