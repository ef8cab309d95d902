import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LOCK_STALE_MS, VotesFile, type VoteRecord } from '../../arena/votes.js';
import { parsePairs } from '../../weights/pairs.js';
import { tempDir } from '../helpers.js';

const vote = (id: string, winner: VoteRecord['winner'] = 'a'): VoteRecord => ({
  requirement: 'r1',
  model_a: 'm1',
  model_b: 'm2',
  winner,
  rater: 'ann',
  time: '2026-11-27T10:00:00.000Z',
  position: 'left',
  id,
});

describe('the votes file', () => {
  it('appends one whole line per vote, which the pairs reader takes as it is, and reads them back on reopening', async () => {
    const path = join(tempDir(), 'sub', 'votes.jsonl');
    const { file, votes } = await VotesFile.open(path);
    assert.deepEqual(votes, []);
    await Promise.all([file.append(vote('v1')), file.append(vote('v2', 'both-bad')), file.append(vote('v3', 'tie'))]);
    await file.close();
    const text = readFileSync(path, 'utf8');
    assert.equal(text.split('\n').length, 4);
    const read = parsePairs(text, path, 'jsonl');
    assert.deepEqual(
      read.pairs.map((p) => p.winner),
      ['a', 'tie', 'tie'],
    );
    const again = await VotesFile.open(path);
    assert.deepEqual(
      again.votes.map((v) => v.id),
      ['v1', 'v2', 'v3'],
    );
    await again.file.close();
  });

  it('cuts a torn last line on opening and keeps every whole vote; mends a last line without its newline', async () => {
    const dir = tempDir();
    const torn = join(dir, 'torn.jsonl');
    writeFileSync(torn, JSON.stringify(vote('v1')) + '\n' + '{"requirement":"r1","mod');
    const a = await VotesFile.open(torn);
    assert.equal(a.votes.length, 1);
    assert.match(a.notes[0]!, /cut a torn last line/);
    await a.file.append(vote('v2'));
    await a.file.close();
    assert.deepEqual(
      readFileSync(torn, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as VoteRecord).id),
      ['v1', 'v2'],
    );
    const unended = join(dir, 'unended.jsonl');
    writeFileSync(unended, JSON.stringify(vote('v1')));
    const b = await VotesFile.open(unended);
    await b.file.append(vote('v2'));
    await b.file.close();
    assert.equal(readFileSync(unended, 'utf8').split('\n').length, 3);
  });

  it('refuses a file that holds something other than votes, and leaves it as it was', async () => {
    const path = join(tempDir(), 'requirements.jsonl');
    const text = '{"id":"r1","requirement":"a todo app"}\n';
    writeFileSync(path, text);
    await assert.rejects(VotesFile.open(path), /line 1 is not a vote of webgrade arena: refusing/);
    assert.equal(readFileSync(path, 'utf8'), text);
  });

  it('takes one vote out by its id (undo) and leaves every other line as it was', async () => {
    const path = join(tempDir(), 'votes.jsonl');
    const { file } = await VotesFile.open(path);
    for (const id of ['v1', 'v2', 'v3']) await file.append(vote(id));
    const before = readFileSync(path, 'utf8').split('\n');
    assert.equal(await file.remove('v2'), true);
    assert.equal(await file.remove('nope'), false);
    await file.append(vote('v4'));
    await file.close();
    assert.deepEqual(readFileSync(path, 'utf8').split('\n'), [before[0], before[2], JSON.stringify(vote('v4')), '']);
  });

  it('lets one arena at a time write a votes file', async () => {
    const path = join(tempDir(), 'votes.jsonl');
    const first = await VotesFile.open(path);
    await assert.rejects(VotesFile.open(path), /another webgrade arena is writing this file/);
    await first.file.close();
    const second = await VotesFile.open(path);
    await second.file.close();
  });

  it('takes over the lock of an arena that crashed (not refreshed for 30 s), and keeps its votes', async () => {
    const path = join(tempDir(), 'votes.jsonl');
    writeFileSync(path, JSON.stringify(vote('v1')) + '\n');
    // What a killed arena leaves: the lock folder, last refreshed when it died.
    mkdirSync(`${path}.lock`);
    const now = Date.now() / 1000;
    utimesSync(`${path}.lock`, now - 5, now - 5);
    await assert.rejects(VotesFile.open(path), /another webgrade arena is writing this file \(one that crashed leaves its lock for 30 s at most\)/);
    const died = now - LOCK_STALE_MS / 1000 - 1;
    utimesSync(`${path}.lock`, died, died);
    const reopened = await VotesFile.open(path);
    assert.deepEqual(
      reopened.votes.map((v) => v.id),
      ['v1'],
    );
    await reopened.file.close();
  });
});
