/**
 * The interaction probe's page opened ahead (BrowserKit.preopen): once the visit is over, the probe's context and a
 * blank page in it are opened while the runtime watch works, and the probe takes them; one never taken is closed
 * when the artifact ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BrowserKit } from '../../gather/browser-kit.js';
import { ProbeGatherer } from '../../gather/gatherers/probe.js';
import { staticEvidence, type Evidence } from '../../core/evidence.js';
import type { SandboxPhase } from '../../core/network.js';
import type { GatherContext } from '../../core/gatherer.js';
import { loadArtifact } from '../../lib/artifact/load.js';
import { writeSingleFile } from '../helpers.js';
import { browserEvidence } from '../metrics/synthetic-browser.js';

const evidence = (): Evidence => staticEvidence(loadArtifact(writeSingleFile('<!doctype html><title>t</title><p>hi</p>')));

/** A kit that records what the probe gatherer asks it to open ahead (and opens nothing). */
class RecordingKit extends BrowserKit {
  readonly asked: SandboxPhase[] = [];
  override preopen(_evidence: Evidence, phase: SandboxPhase): void {
    this.asked.push(phase);
  }
}

describe("the probe's page opened ahead", () => {
  it('the probe gatherer asks for it when the visit is over (at once without a visit), not for an unresponsive page, not after Lighthouse', async () => {
    const kit = new RecordingKit();
    try {
      const probe = new ProbeGatherer(kit);
      const ev = evidence();
      probe.ready(ev, ['lighthouse']);
      assert.deepEqual(kit.asked, [], 'another need is over: nothing opened');
      probe.ready(ev, ['browser', 'screenshot']);
      assert.deepEqual(kit.asked, ['interaction']);

      const hung = evidence();
      hung.browser = browserEvidence({ unavailable: { domHtml: 'the page did not answer' } });
      probe.ready(hung, ['browser']);
      assert.deepEqual(kit.asked, ['interaction'], 'a page the visit found unresponsive is not probed');

      new ProbeGatherer(kit, { interactionPlacement: 'after-lighthouse' }).ready(evidence(), ['browser']);
      assert.deepEqual(kit.asked, ['interaction'], 'run after Lighthouse: no idle page beside its measurement');

      // Before any gatherer runs: only when there is no visit to wait for.
      const ctx = (active: string[]) => ({ evidence: evidence(), needs: new Set(), metrics: [], active: new Set(active), deadline: 0, budgetMs: 0 });
      probe.prepare(ctx(['visit', 'runtime', 'probe']) as unknown as GatherContext);
      assert.deepEqual(kit.asked, ['interaction'], 'a visit runs first: opened when it is over');
      probe.prepare(ctx(['runtime', 'probe']) as unknown as GatherContext);
      assert.deepEqual(kit.asked, ['interaction', 'interaction'], 'no visit: opened at once');
    } finally {
      await kit.close();
    }
  });

  it('real Chrome: the page opened ahead is blank in a context of its own, taken once; one not taken is closed at the end', async () => {
    const kit = new BrowserKit({ network: { mode: 'offline' } });
    try {
      const browser = await kit.chrome.browser();
      const before = browser.browserContexts().length;
      const ev = evidence();
      kit.preopen(ev, 'interaction');
      kit.preopen(ev, 'interaction'); // asked twice: opened once
      const pre = await kit.takePreopened(ev, 'interaction');
      assert.ok(pre, 'a page was opened ahead');
      assert.equal(pre.page.url(), 'about:blank');
      assert.deepEqual(await pre.context.pages(), [pre.page]);
      assert.equal(browser.browserContexts().length, before + 1);
      assert.equal(await kit.takePreopened(ev, 'interaction'), undefined, 'taken once');
      await kit.closeContext(pre.context);

      const left = evidence();
      kit.preopen(left, 'interaction');
      await kit.end(left);
      assert.equal(browser.browserContexts().length, before, 'the context nobody took is closed when the artifact ends');
      assert.equal(await kit.takePreopened(left, 'interaction'), undefined);
    } finally {
      await kit.close();
    }
  });
});
