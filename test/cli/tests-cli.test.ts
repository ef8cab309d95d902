/** `webgrade tests generate` against a real local chat-completions server, and `webgrade tests import` of WebGen-Bench's format. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseRequirementsJsonl } from '../../core/requirements.js';
import { isNaturalTest } from '../../core/requirement-tests.js';
import { fixture, runCli, tempDir } from '../helpers.js';
import { promptText, startChatServer, type ChatServer } from '../judges/chat-server.js';

const dir = tempDir();
const servers: ChatServer[] = [];
after(async () => Promise.all(servers.map((s) => s.close())));
const env = (url: string) => ({
  OPENAI_BASE_URL: url,
  OPENAI_API_KEY: 'k',
  WEBGRADE_JUDGE_MODEL: 'judge-test',
  WEBGRADE_CACHE_DIR: dir,
  WEBGRADE_JUDGE_CONFIG: '',
});

// The shape of WebGen-Bench's data/test.jsonl (github.com/mnluzimu/WebGen-Bench), one app, our own words.
const WEBGEN = JSON.stringify({
  id: '000007',
  instruction: 'Please implement a shopping list where users add and remove items.',
  Category: { primary_category: 'Data Management', subcategories: ['CRUD Operations'] },
  application_type: 'Productivity Tools',
  ui_instruct: [
    {
      task: 'Add an item called milk.',
      expected_result: 'milk is shown in the list.',
      task_category: { primary_category: 'Functional Testing', subcategories: ['Form Operations'] },
    },
    {
      task: 'Remove the item milk.',
      expected_result: 'The list no longer shows milk.',
      task_category: { primary_category: 'Functional Testing', subcategories: [] },
    },
  ],
});

describe('webgrade tests', () => {
  it('generate: the judge writes natural-language tests from the requirement and its checklist; scripted tests are kept', async () => {
    const server = await startChatServer([
      {
        content: JSON.stringify({
          tests: [
            { task: 'Add milk.', expected: 'milk is listed.' },
            { task: 'Reload.', expected: 'milk is still listed.' },
          ],
        }),
      },
    ]);
    servers.push(server);
    const reqs = join(dir, 'reqs.jsonl');
    const line = JSON.parse(readFileSync(fixture('requirement-tests', 'reqs.jsonl'), 'utf8')) as Record<string, unknown>;
    writeFileSync(reqs, JSON.stringify({ ...line, checklist: { functional: ['Remove takes an item off'], visual: [], content: [] } }) + '\n');
    const r = await runCli(['tests', 'generate', reqs], { env: env(server.url) });
    assert.equal(r.code, 0, r.stderr);
    const [req] = parseRequirementsJsonl(r.stdout, 'out');
    assert.deepEqual(req!.tests!.filter(isNaturalTest), [
      { id: 'nl-1', task: 'Add milk.', expected: 'milk is listed.' },
      { id: 'nl-2', task: 'Reload.', expected: 'milk is still listed.' },
    ]);
    assert.equal(req!.tests!.length, 7);
    assert.match(r.stderr, /2 written for 1 requirements, 0 kept, 0 failed; 1 judge calls/);
    assert.match(promptText(server.requests[0]!), /⟦BEGIN CHECKLIST [0-9a-f]+⟧\nfunctional: Remove takes an item off/);
    // A second run keeps the line (it has natural-language tests now) and asks nothing.
    writeFileSync(reqs, r.stdout);
    const again = await runCli(['tests', 'generate', reqs], { env: env(server.url) });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.requests.length, 1);
    assert.match(again.stderr, /0 written for 0 requirements, 1 kept/);
  });

  it('generate without a judge: one line and exit 2', async () => {
    const r = await runCli(['tests', 'generate', fixture('requirement-tests', 'reqs.jsonl')], {
      env: { OPENAI_BASE_URL: '', OPENAI_API_KEY: '', WEBGRADE_JUDGE_MODEL: '', WEBGRADE_JUDGE_CONFIG: '' },
    });
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /no judge configured/);
  });

  it('import: WebGen-Bench ui_instruct entries become natural-language tests, on their own or into our requirements', async () => {
    const wg = join(dir, 'webgen.jsonl');
    writeFileSync(wg, WEBGEN + '\n');
    const r = await runCli(['tests', 'import', wg]);
    assert.equal(r.code, 0, r.stderr);
    const [req] = parseRequirementsJsonl(r.stdout, 'out');
    assert.equal(req!.id, '000007');
    assert.deepEqual(req!.labels, { category: 'Data Management', application: 'Productivity Tools' });
    assert.deepEqual(req!.tests, [
      { id: '000007-1', task: 'Add an item called milk.', expected: 'milk is shown in the list.' },
      { id: '000007-2', task: 'Remove the item milk.', expected: 'The list no longer shows milk.' },
    ]);
    const mine = join(dir, 'mine.jsonl');
    writeFileSync(
      mine,
      JSON.stringify({ id: '000007', requirement: 'Our words.', tests: [{ id: 's', steps: [{ click: 'Add' }], expect: [{ noErrors: true }] }] }) +
        '\n' +
        JSON.stringify({ id: 'other', requirement: 'x' }) +
        '\n',
    );
    const m = await runCli(['tests', 'import', wg, '--into', mine]);
    assert.equal(m.code, 0, m.stderr);
    const merged = parseRequirementsJsonl(m.stdout, 'out');
    assert.deepEqual(
      merged[0]!.tests!.map((t) => t.id),
      ['s', '000007-1', '000007-2'],
    );
    assert.equal(merged[0]!.requirement, 'Our words.');
    assert.equal(merged[1]!.tests, undefined);
  });

  it('import of a bad line: one line naming it, exit 2', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, WEBGEN + '\n' + JSON.stringify({ id: 'x', instruction: 'y', ui_instruct: [{ task: 'z' }] }) + '\n');
    const r = await runCli(['tests', 'import', bad]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), `webgrade: ${bad}:2: ui_instruct[0] needs "task" and "expected_result" strings`);
  });
});

describe('natural-language tests in batch', () => {
  it('batch --judge-base-url … --only requirement-tests runs them as score does (the workers get the judge flags)', async () => {
    const answers = [
      { action: 'step', step: { type: { label: 'New item' }, text: 'milk' }, why: 'add it' },
      { action: 'step', step: { click: 'Add' }, why: 'submit' },
      { action: 'verdict', passed: true, evidence: 'milk is listed', expect: [{ visible: 'milk' }] },
    ];
    const server = await startChatServer((_req, i) => ({ content: JSON.stringify(answers[Math.min(i, answers.length - 1)]) }));
    servers.push(server);
    const work = tempDir();
    const runs = join(work, 'runs', 'm');
    const { cpSync } = await import('node:fs');
    cpSync(fixture('requirement-tests', 'runs', 'working', 'shopping-list'), join(runs, 'shopping-list'), { recursive: true });
    const reqs = join(work, 'reqs.jsonl');
    writeFileSync(
      reqs,
      JSON.stringify({ id: 'shopping-list', requirement: 'A shopping list.', tests: [{ id: 'nl', task: 'Add milk.', expected: 'milk is listed.' }] }) + '\n',
    );
    const out = join(work, 'results.jsonl');
    const r = await runCli(
      [
        'batch',
        join(work, 'runs'),
        '--out',
        out,
        '--requirements',
        reqs,
        '--suite',
        'extended',
        '--only',
        'requirement-tests',
        '--network',
        'offline',
        '--judge-base-url',
        server.url,
        '--judge-model',
        'agent-test',
      ],
      {
        env: { OPENAI_BASE_URL: '', OPENAI_API_KEY: 'k', WEBGRADE_JUDGE_MODEL: '', WEBGRADE_CACHE_DIR: join(work, 'cache'), WEBGRADE_JUDGE_CONFIG: '' },
        timeoutMs: 180_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const row = JSON.parse(readFileSync(out, 'utf8').trim()) as { metrics: Array<{ id: string; score: number | null; reason?: string }> };
    const m = row.metrics.find((x) => x.id === 'requirement-tests')!;
    assert.equal(m.score, 100, JSON.stringify(m));
    assert.equal(server.requests.length, 3);
  });
});
