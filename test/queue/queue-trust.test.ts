/**
 * What a queue worker accepts from Redis (distribute/queue-trust.ts, `materialise` in distribute/queue-jobs.ts), without Redis:
 * the payloads `queue add` writes pass; every hand-made hostile one is refused with the field named, and writes
 * nothing; stored settings pass only with scoring fields on the allow-list. test/queue/queue-hostile.test.ts
 * shows the same through real Redis and a real worker.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeQueueSettings } from '../../distribute/queue.js';
import { artifactFiles, contentHash, type JobData, materialise } from '../../distribute/queue-jobs.js';
import { RefusedPayload, validateJobData, validateQueueSettings } from '../../distribute/queue-trust.js';
import { tempDir } from '../helpers.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const HASH = 'a'.repeat(64);
const SETTINGS_ID = '0123456789abcdef';

/** A folder artifact and the job `queue add` makes of it. */
function honestDirJob(): { data: JobData; dir: string } {
  const dir = join(tempDir(), 'page');
  mkdirSync(join(dir, 'css'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(dir, 'css', 'a.css'), 'body{}');
  const files = artifactFiles(dir);
  const data: JobData = {
    model: 'm',
    requirement: 'r1',
    hash: contentHash(files),
    settingsId: SETTINGS_ID,
    artifact: dir,
    kind: 'dir',
    files: files.map(([rel, b]) => [rel, b.toString('base64')]),
    req: { id: 'r1', requirement: 'A page', checklist: { functional: ['a'], visual: [], content: [] }, reference: '/etc/passwd' },
  };
  return { data, dir };
}

function refused(raw: unknown, pattern: RegExp): void {
  assert.throws(
    () => validateJobData(raw),
    (err: unknown) => err instanceof RefusedPayload && pattern.test(err.message),
  );
}

/** Run `fn` with the system temp folder pointed at a fresh folder, and return that folder. */
function withTmp(fn: () => void): string {
  const tmp = tempDir();
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    fn();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  return tmp;
}

describe('queue job payloads a worker accepts', () => {
  it("accepts the jobs queue add writes, and drops the requirement's reference path", () => {
    const { data } = honestDirJob();
    const v = validateJobData(data);
    assert.deepEqual(
      v.files!.map(([rel]) => rel),
      ['css/a.css', 'index.html'],
    );
    assert.equal(v.req?.reference, undefined, 'a path named in Redis is never read');
    assert.deepEqual(v.req?.checklist?.functional, ['a']);
  });

  it('refuses file paths that are not plain relative paths inside the artifact', () => {
    const { data } = honestDirJob();
    for (const [path, why] of [
      ['../../../etc/cron.d/x', /not a plain relative path/],
      ['css/../../x', /not a plain relative path/],
      ['/etc/passwd', /is absolute/],
      ['..\\..\\x', /backslash/],
      ['C:/x', /drive letter/],
      ['a\u0000b', /control character/],
      ['a//b', /not a plain relative path/],
      ['./a', /not a plain relative path/],
      ['', /empty/],
    ] as const) {
      refused({ ...data, files: [[path, b64('x')]] }, why);
    }
  });

  it('refuses a job without kind, or with any other kind than file or dir', () => {
    const { data } = honestDirJob();
    const { kind: _kind, ...noKind } = data;
    refused(noKind, /^kind: expected one of file, dir/);
    refused({ ...data, kind: 'folder' }, /^kind:/);
  });

  it('refuses malformed payloads: files 42, bad base64, unknown fields, bad repeat, hash, settings id, names', () => {
    const { data } = honestDirJob();
    refused(null, /job: expected an object/);
    refused({ ...data, files: 42 }, /^files: expected a list/);
    refused({ ...data, files: [] }, /^files: empty/);
    refused({ ...data, files: [['index.html']] }, /files\[0\]: expected \[relative path, base64\]/);
    refused({ ...data, files: [['index.html', '***']] }, /not base64/);
    refused({ ...data, workerModule: '/tmp/x.js' }, /unknown field "workerModule"/);
    for (const repeat of [0, -1, 1.5, 1e9, '2']) refused({ ...data, repeat }, /^repeat:/);
    refused({ ...data, hash: 'A'.repeat(64) }, /^hash:/);
    refused({ ...data, settingsId: '../x' }, /^settingsId:/);
    refused({ ...data, model: 'a\nb' }, /^model: holds a control character/);
    refused({ ...data, requirement: 'x'.repeat(10_000) }, /^requirement: longer than/);
    refused({ ...data, req: { id: 'other', requirement: 'x' } }, /^req: id "other" is not the job's requirement/);
    refused({ ...data, req: { id: 'r1' } }, /^req: missing "requirement"/);
  });

  it('refuses an artifact path that does not end in a plain name (so "/x/.." cannot make the temp folder the job\'s)', () => {
    const { data } = honestDirJob();
    for (const artifact of ['/tmp/x/..', '/tmp/x/.', '/', 'a\\..']) refused({ ...data, artifact }, /^artifact:/);
  });

  it('bounds the files: their count, their decoded bytes, duplicates, a file that is also a folder', () => {
    const { data } = honestDirJob();
    const many = Array.from({ length: 5001 }, (_, i) => [`f${i}.txt`, b64('x')]);
    refused({ ...data, files: many }, /^files: more than 5000/);
    assert.throws(() => validateJobData({ ...data, files: [['index.html', b64('x'.repeat(2000))]] }, { maxBytes: 1000 }), /decoded/);
    refused(
      {
        ...data,
        files: [
          ['a', b64('x')],
          ['a', b64('y')],
        ],
      },
      /a twice/,
    );
    refused(
      {
        ...data,
        files: [
          ['a', b64('x')],
          ['a/b', b64('y')],
        ],
      },
      /a is both a file and a folder/,
    );
  });

  it('gives a file artifact exactly one file, named as the artifact', () => {
    const { data } = honestDirJob();
    const file = { ...data, artifact: '/runs/m/r1.html', kind: 'file' };
    refused(
      {
        ...file,
        files: [
          ['r1.html', b64('a')],
          ['x.html', b64('b')],
        ],
      },
      /exactly one file/,
    );
    refused({ ...file, files: [['other.html', b64('a')]] }, /named as the artifact/);
    assert.equal(validateJobData({ ...file, files: [['r1.html', b64('a')]] }).kind, 'file');
  });

  it('takes a shared job only as an absolute path with no files', () => {
    const { data } = honestDirJob();
    const { files: _f, ...rest } = data;
    refused({ ...rest, shared: true, artifact: 'runs/x' }, /absolute path/);
    refused({ ...data, shared: true }, /a shared job carries no files/);
    refused({ ...rest, shared: 'yes' }, /^shared:/);
  });
});

describe("writing a job's artifact on a worker (materialise)", () => {
  it('writes every file inside a fresh folder named as the artifact, and removes it on cleanup', () => {
    const { data } = honestDirJob();
    let path = '';
    const tmp = withTmp(() => {
      const art = materialise(validateJobData(data));
      path = art.path;
      assert.equal(readFileSync(join(path, 'css', 'a.css'), 'utf8'), 'body{}');
      art.cleanup();
    });
    assert.ok(path.startsWith(tmp));
    assert.deepEqual(readdirSync(tmp), []);
  });

  it("writes nothing and leaves no folder when the files are not the ones the job's hash names", () => {
    const { data } = honestDirJob();
    const tmp = withTmp(() => {
      assert.throws(() => materialise(validateJobData({ ...data, hash: HASH })), /hash: not the hash/);
    });
    assert.deepEqual(readdirSync(tmp), []);
  });

  it('refuses a shared job without --shared-root, outside it, and through a link that leaves it', () => {
    const root = tempDir();
    const outside = tempDir();
    mkdirSync(join(root, 'runs', 'm', 'p'), { recursive: true });
    writeFileSync(join(outside, 'secret.html'), 'x');
    symlinkSync(outside, join(root, 'runs', 'escape'));
    const job = (artifact: string) =>
      validateJobData({ model: 'm', requirement: 'p', hash: HASH, settingsId: SETTINGS_ID, artifact, kind: 'dir', shared: true });
    assert.throws(() => materialise(job(join(root, 'runs', 'm', 'p'))), /a shared job, and this worker takes none/);
    assert.throws(() => materialise(job(join(outside, 'secret.html')), { sharedRoot: root }), /outside this worker's --shared-root/);
    assert.throws(() => materialise(job(join(root, 'runs', 'escape', 'secret.html')), { sharedRoot: root }), /outside this worker's --shared-root/);
    assert.throws(() => job(`${join(root, 'runs', 'm', 'p')}/..`), /does not end in a plain file or folder name/);
    assert.throws(() => materialise(job(root), { sharedRoot: root }), /outside this worker's --shared-root/, 'the root itself is not an artifact');
    assert.equal(materialise(job(join(root, 'runs', 'm', 'p')), { sharedRoot: root }).path, join(root, 'runs', 'm', 'p'));
  });
});

describe('queue settings a worker accepts from Redis', () => {
  const honest = () =>
    JSON.parse(
      JSON.stringify(makeQueueSettings({ budgetMs: 30_000, checkNetwork: false, network: { mode: 'cdn' }, only: ['comment-rate'], lighthouseRuns: 3 })),
    ) as Record<string, Record<string, unknown>>;

  it('accepts the settings queue add stores', () => {
    const s = honest();
    assert.deepEqual(validateQueueSettings(s), s);
    // With the visit on the page clock, in the pool (what workers use) and in the rows' scoring settings.
    const paged = JSON.parse(
      JSON.stringify(makeQueueSettings({ budgetMs: 30_000, checkNetwork: false, network: { mode: 'cdn' }, only: ['comment-rate'], visitClock: 'page' })),
    ) as Record<string, Record<string, unknown>>;
    assert.equal(paged.pool!.visitClock, 'page');
    assert.equal(paged.scoring!.visitClock, 'page');
    assert.deepEqual(validateQueueSettings(paged), paged);
  });

  it('refuses settings that choose a program, a folder, hosts to reach or anything not on the allow-list', () => {
    const cases: Array<[(s: Record<string, Record<string, unknown>>) => void, RegExp]> = [
      [(s) => (s.pool!.workerModule = '/tmp/evil.js'), /settings\.pool: unknown field "workerModule"/],
      [(s) => (s.pool!.workerArgs = ['--x']), /settings\.pool: unknown field "workerArgs"/],
      [(s) => (s.pool!.network = { mode: 'live', allowHosts: ['169.254.169.254'] }), /settings\.pool\.network: unknown field "allowHosts"/],
      [(s) => (s.pool!.network = { mode: 'record', dir: '/etc' }), /settings\.pool\.network: unknown field "dir"/],
      [(s) => (s.pool!.network = { mode: 'cdn', cdnCache: '/root' }), /settings\.pool\.network: unknown field "cdnCache"/],
      [(s) => (s.pool!.network = { mode: 'evil' }), /settings\.pool\.network\.mode: expected one of/],
      [(s) => (s.pool!.lighthouseRuns = 1000), /settings\.pool\.lighthouseRuns/],
      [(s) => (s.pool!.visitClock = 'wall'), /settings\.pool\.visitClock: expected one of real, page/],
      [(s) => (s.scoring!.visitClock = 1), /settings\.scoring\.visitClock: expected one of real, page/],
      [(s) => (s.pool!.budgetMs = -1), /settings\.pool\.budgetMs/],
      [(s) => (s.pool!.suite = 'evil'), /settings\.pool\.suite/],
      [(s) => (s.pool!.only = ['../x']), /settings\.pool\.only\[0\]: not an id/],
      [(s) => (s.scoring!.extra = 1), /settings\.scoring: unknown field "extra"/],
      [(s) => ((s as Record<string, unknown>).env = {}), /settings: unknown field "env"/],
      [(s) => ((s as Record<string, unknown>).id = 'x'), /settings\.id/],
    ];
    for (const [spoil, why] of cases) {
      const s = honest();
      spoil(s);
      assert.throws(
        () => validateQueueSettings(s),
        (err: unknown) => err instanceof RefusedPayload && why.test(err.message),
        why.source,
      );
    }
    assert.ok(!existsSync('/tmp/evil.js'));
  });
});
