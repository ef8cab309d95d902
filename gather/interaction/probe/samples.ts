/** Sample files for file inputs and file choosers: a picture, text, CSV and JSON, written once per process. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let samples: string | undefined;
function sampleDir(): string {
  if (samples) return samples;
  const dir = mkdtempSync(join(tmpdir(), 'webgrade-probe-files-'));
  // 4×4 PNG (red, green, blue, white quarters), generated once.
  writeFileSync(
    join(dir, 'sample.png'),
    Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAHUlEQVR4nGP4z8DwHwyBDAYGBgZGRgYGJgYGBgBCIAQBJ2dDeAAAAABJRU5ErkJggg==', 'base64'),
  );
  writeFileSync(join(dir, 'sample.txt'), 'webgrade sample text\nsecond line\n');
  writeFileSync(join(dir, 'sample.csv'), 'name,value\nalpha,1\nbeta,2\n');
  writeFileSync(join(dir, 'sample.json'), '{"name": "sample", "values": [1, 2, 3]}\n');
  samples = dir;
  return dir;
}

/** The sample file for an `accept` attribute. */
export function sampleFile(accept: string): string {
  const a = accept.toLowerCase();
  const dir = sampleDir();
  if (/image|\.png|\.jpe?g|\.gif|\.webp|\.svg/.test(a)) return join(dir, 'sample.png');
  if (/csv/.test(a)) return join(dir, 'sample.csv');
  if (/json/.test(a)) return join(dir, 'sample.json');
  return join(dir, 'sample.txt');
}
