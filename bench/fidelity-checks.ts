/**
 * The check behind rendering by resizing (gather/fidelity/render.ts): each page is rendered once at every
 * viewport by resizing one loaded page, and once more loaded fresh at each smaller viewport; visual-fidelity and
 * component-fidelity of the resized view against the fresh one say how much resizing changes (100 = nothing).
 * Uses the product's Chrome and sandbox, like the scorer. Used by `fidelity.js --checks`; run on its own it checks
 * the pages it is given (default: the Design2Code references of the shared corpus):
 *
 *   node dist/bench/fidelity-checks.js [PAGE ...]
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadArtifact } from '../lib/artifact/load.js';
import { DEFAULT_VIEWPORTS } from '../core/fidelity.js';
import { ChromeProcess, sandboxContext } from '../gather/chrome-process.js';
import { SandboxThread } from '../gather/sandbox/sandbox-thread.js';
import { servedArtifact } from '../gather/server.js';
import { renderViews } from '../gather/fidelity/render.js';
import { compareBlocks } from '../metrics/fidelity/visual-fidelity.js';
import { compareComponents } from '../metrics/fidelity/component-fidelity.js';
import { benchArgs, corpusDir, inputDir } from './common.js';

export async function renderFreshVsResized(paths: string[]): Promise<string> {
  const sandbox = new SandboxThread({ network: { mode: 'cdn' } });
  const chrome = new ChromeProcess({ spki: () => sandbox.certificates() });
  const per: Record<string, { visual: number[]; component: number[] }> = {};
  try {
    const browser = await chrome.browser();
    for (const p of paths) {
      const site = await sandbox.open(servedArtifact(loadArtifact(p)));
      try {
        const ctx = await sandboxContext(browser, await site.endpoint('reference'));
        const resized = await renderViews(ctx, site.entryUrl, { viewports: DEFAULT_VIEWPORTS, deadline: performance.now() + 30_000, screenshots: false });
        await ctx.close();
        for (const [i, v] of DEFAULT_VIEWPORTS.entries()) {
          if (i === 0) continue;
          const c2 = await sandboxContext(browser, await site.endpoint('reference'));
          const fresh = await renderViews(c2, site.entryUrl, { viewports: [v], deadline: performance.now() + 30_000, screenshots: false });
          await c2.close();
          const a = fresh.views[0];
          const b = resized.views[i];
          if (!a?.ok || !b?.ok) continue;
          const vis = compareBlocks(a.value, b.value, v).sub;
          const comp = compareComponents(a.value, b.value, v).sub;
          const e = (per[v.name] ??= { visual: [], component: [] });
          e.visual.push(25 * (vis.size! + vis.text! + vis.position! + vis.colour!));
          e.component.push((100 * ((comp.match ?? 0) + (comp.position ?? 0) + (comp.colour ?? comp.match ?? 0) + (comp.text ?? 1))) / 4);
        }
      } finally {
        await site.close();
      }
    }
  } finally {
    await chrome.kill();
    await sandbox.terminate();
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  return Object.entries(per)
    .map(
      ([vp, x]) =>
        `${vp}: visual mean ${mean(x.visual).toFixed(2)} (min ${Math.min(...x.visual).toFixed(1)}, ${x.visual.filter((s) => s < 99.5).length} of ${x.visual.length} below 99.5), component mean ${mean(x.component).toFixed(2)} (min ${Math.min(...x.component).toFixed(1)})`,
    )
    .join('; ');
}

// Imported by fidelity.ts; run directly, it checks the pages it is given.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let pages = benchArgs('usage: node dist/bench/fidelity-checks.js [PAGE ...]', {}, { positionals: true }).positionals;
  if (!pages.length) {
    const refs = inputDir(join(corpusDir, 'design2code', 'references'), 'Design2Code references folder');
    pages = readdirSync(refs)
      .filter((f) => f.endsWith('.html'))
      .sort()
      .map((f) => join(refs, f));
  }
  renderFreshVsResized(pages)
    .then((out) => console.log(`resized views vs views loaded fresh at that size, ${pages.length} pages: ${out}`))
    .catch((err) => {
      console.error(err instanceof Error ? err.stack : err);
      process.exit(1);
    });
}
