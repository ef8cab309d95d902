/**
 * Records the interaction probe's logs of the fixture pages (fixtures/interaction/) for the table-driven metric
 * tests: `node dist/test/metrics/interaction/record.js` writes fixtures/interaction/recorded/<name>.json (the
 * evidence without its images and timings). Run it again when the probe's evidence format changes; the metric
 * tests then say whether the scores still hold. Names given after it record only those fixtures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadArtifact } from '../../../lib/artifact/load.js';
import type { Evidence } from '../../../core/evidence.js';
import { browserGatherers } from '../../../gather/browser-gatherers.js';
import { closeGatherers } from '../../../runner/gatherers.js';
import { gatherEvidence } from '../../../runner/gathering.js';
import { fixture } from '../../helpers.js';

export const RECORDED = [
  'todo',
  'dead-form',
  'tabs',
  'canvas-game',
  'throws',
  'sound-copy',
  'site',
  'webgl-scene',
  'canvas-scene',
  'canvas-throws',
  'opposite-keys',
  'held-keys',
  'dead-keys',
  'restart-animation',
  'canvas-spawn',
];

async function main(): Promise<void> {
  const out = fixture('interaction', 'recorded');
  mkdirSync(out, { recursive: true });
  const g = browserGatherers({ network: { mode: 'offline' } });
  try {
    const names = process.argv.slice(2);
    for (const name of names.length ? names : RECORDED) {
      if (!RECORDED.includes(name)) throw new Error(`${name} is not a recorded fixture (${RECORDED.join(', ')})`);
      const path = fixture('interaction', name === 'site' ? 'site' : `${name}.html`);
      const evidence: Evidence = { artifact: loadArtifact(path), options: { checkNetwork: false } };
      await gatherEvidence(g, evidence, { needs: new Set(['interaction']), metrics: [], budgetMs: 60_000 });
      if (!evidence.interaction?.ok) throw new Error(`${name}: ${evidence.interaction?.reason}`);
      const { screenshot: _s, timings: _t, network, ...rest } = evidence.interaction.value;
      const value = {
        ...rest,
        timings: {},
        network: (network ?? []).map((e) => ({ ...e, url: e.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, 'http://127.0.0.1:1'), ms: 0 })),
        actions: rest.actions.map(({ crop: _c, ...a }) => ({ ...a, ms: 0 })),
      };
      writeFileSync(join(out, `${name}.json`), JSON.stringify(value, null, 1) + '\n');
      process.stdout.write(`${name}: ${value.actions.length} actions\n`);
    }
  } finally {
    await closeGatherers(g);
  }
}

await main();
