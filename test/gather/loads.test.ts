/**
 * Page loads per phase from the sandbox's log: top-level documents of the artifact's origin, per phase; iframes,
 * subresources, other origins and refused navigations are not loads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NetworkEntry } from '../../core/network.js';
import { countLoads } from '../../gather/loads.js';

const origin = 'http://127.0.0.1:4000';
const entry = (phase: NetworkEntry['phase'], url: string, destination: string, disposition: NetworkEntry['disposition'] = 'artifact'): NetworkEntry => ({
  phase,
  method: 'GET',
  url,
  destination,
  disposition,
});

describe('page loads per phase', () => {
  it("counts the artifact's top-level documents of each phase, and nothing else", () => {
    const log = [
      entry('visit', `${origin}/index.html`, 'document'),
      entry('visit', `${origin}/app.js`, 'script'),
      entry('visit', `${origin}/frame.html`, 'iframe'),
      entry('interaction', `${origin}/index.html`, 'document'),
      entry('interaction', `${origin}/index.html`, 'document'),
      entry('interaction', `${origin}/about.html`, 'document'),
      entry('interaction', 'https://example.com/', 'document', 'blocked'),
      entry('lighthouse', `${origin}/index.html`, 'document'),
      entry('fidelity', 'http://127.0.0.1:4001/index.html', 'document'),
    ];
    assert.deepEqual(countLoads(log, origin), { loads: 5, 'loads.visit': 1, 'loads.interaction': 3, 'loads.lighthouse': 1 });
    assert.deepEqual(countLoads([], origin), { loads: 0 });
  });
});
