/**
 * The guardian of a process that pauses others while it measures (measure-alone.ts): started by that process at
 * its first pause, in a process group of its own, and never stopped by anyone (holders skip command lines with
 * GUARDIAN_MARK). Every POLL_MS it looks at the holder's pause record; it continues the stopped processes when
 * the holder is gone (killed while it measured) or the record is older than its cap plus GRACE_MS (a holder
 * whose Lighthouse thread was terminated mid-measurement), and removes the record. It ends when the holder does.
 *
 *   node measure-guardian.js <mark> <holder pid> <holder start time> <record file>
 */
import { readFileSync, rmSync } from 'node:fs';
import { continueAll, startTimeOf, type PauseRecord } from './measure-alone.js';

export const POLL_MS = 200;
export const GRACE_MS = 1_000;

const [, , , pidArg, holderStart, record] = process.argv;
const holder = Number(pidArg);

function check(): void {
  const alive = startTimeOf(holder) === holderStart;
  let rec: PauseRecord | undefined;
  try {
    rec = JSON.parse(readFileSync(record!, 'utf8')) as PauseRecord;
  } catch {
    /* no pause under way (or being written) */
  }
  if (rec && (!alive || Date.now() - rec.at > rec.capMs + GRACE_MS)) {
    continueAll(rec.stopped);
    rmSync(record!, { force: true });
  }
  if (!alive) process.exit(0);
}

if (!holder || !holderStart || !record) {
  process.stderr.write('usage: measure-guardian.js <mark> <holder pid> <holder start time> <record file>\n');
  process.exit(2);
}
setInterval(check, POLL_MS);
