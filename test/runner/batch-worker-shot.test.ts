/**
 * A batch worker whose parent asks the judges (distribute/batch-worker.ts with `deferJudges`) reports the visit's
 * screenshot as soon as it is saved, before Lighthouse measures, so the parent's screenshot judges start then
 * and not when the page's browser work ends.
 */
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FromWorker, ToWorker } from '../../distribute/batch-worker.js';
import { fixture, tempDir } from '../helpers.js';

const WORKER = fileURLToPath(new URL('../../distribute/batch-worker.js', import.meta.url));

describe('batch worker: the screenshot for the parent’s judges', () => {
  it('is reported when the visit has it, before the job is done, and the done message points at the same file', async () => {
    const child = fork(WORKER, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const got: Array<{ msg: FromWorker; at: number; png?: boolean }> = [];
    const shotPath = join(tempDir('webgrade-shot-'), 'shot.png');
    try {
      await new Promise<void>((resolve, reject) => {
        child.on('message', (msg: FromWorker) => {
          if (msg.type === 'chrome') return;
          // Whether the file holds a PNG when the message arrives (the parent reads it then).
          const png = msg.type === 'shot' ? readFileSync(shotPath).subarray(1, 4).toString() === 'PNG' : undefined;
          got.push({ msg, at: performance.now(), ...(png === undefined ? {} : { png }) });
          if (msg.type === 'ready') {
            const job: ToWorker = { type: 'job', jobId: 1, path: fixture('browser', 'clean-1000.html'), shotPath };
            child.send(job);
          }
          if (msg.type === 'done' || msg.type === 'error') resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
        const init: ToWorker = { type: 'init', only: ['visual-experience', 'accessibility'], budgetMs: 60_000, checkNetwork: false, deferJudges: true };
        child.send(init);
      });
    } finally {
      child.disconnect();
    }
    assert.deepEqual(
      got.map((g) => g.msg.type),
      ['ready', 'shot', 'done'],
    );
    const [, shot, done] = got;
    assert.equal(shot!.png, true, 'the screenshot file is written when the message arrives');
    assert.ok(shot!.msg.type === 'shot' && done!.msg.type === 'done');
    assert.deepEqual(shot!.msg.shot, { path: shotPath, width: 1280, height: 800 });
    assert.deepEqual(done!.msg.shot, shot!.msg.shot);
    // Lighthouse measured between the two (accessibility needs its run).
    const timings = (done!.msg.doc as { timings: Record<string, number> }).timings;
    assert.ok((timings.lighthouse ?? 0) > 0, JSON.stringify(timings));
  });
});
