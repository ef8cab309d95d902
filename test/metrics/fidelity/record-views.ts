/**
 * Records the fidelity views of the fixture pages (fixtures/fidelity/*.html) with the product's renderer, Chrome and
 * sandbox, into fixtures/fidelity/recorded/<page>.json (text blocks, components, sizes; screenshots as
 * <page>-<viewport>.png beside it). The table-driven metric tests read them without a browser.
 *
 *   npm run build && node dist/test/metrics/fidelity/record-views.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadArtifact } from '../../../lib/artifact/load.js';
import { DEFAULT_VIEWPORTS } from '../../../core/fidelity.js';
import { ChromeProcess, sandboxContext } from '../../../gather/chrome-process.js';
import { SandboxThread } from '../../../gather/sandbox/sandbox-thread.js';
import { servedArtifact } from '../../../gather/server.js';
import { renderViews } from '../../../gather/fidelity/render.js';
import { fixture } from '../../helpers.js';

export const RECORDED_PAGES = ['landing', 'landing-shuffled', 'landing-inverted', 'empty'] as const;

async function main(): Promise<void> {
  const out = fixture('fidelity', 'recorded');
  mkdirSync(out, { recursive: true });
  const sandbox = new SandboxThread({ network: { mode: 'offline' } });
  const chrome = new ChromeProcess({ spki: () => sandbox.certificates() });
  try {
    const browser = await chrome.browser();
    for (const name of RECORDED_PAGES) {
      const site = await sandbox.open(servedArtifact(loadArtifact(fixture('fidelity', `${name}.html`))));
      const ctx = await sandboxContext(browser, await site.endpoint('reference'));
      const r = await renderViews(ctx, site.entryUrl, { viewports: DEFAULT_VIEWPORTS, deadline: performance.now() + 30_000 });
      await ctx.close();
      await site.close();
      const views = r.views.map((g) => {
        if (!g.ok) throw new Error(`${name}: ${g.reason}`);
        const { screenshot, ...v } = g.value;
        const file = `${name}-${v.viewport.name}.png`;
        writeFileSync(join(out, file), screenshot!.png);
        const { png: _png, ...meta } = screenshot!;
        return { ...v, screenshot: { ...meta, file } };
      });
      writeFileSync(join(out, `${name}.json`), JSON.stringify({ page: `${name}.html`, views }, null, 1) + '\n');
      process.stdout.write(`${name}: ${views.map((v) => `${v.viewport.name} ${v.blocks?.length} blocks ${v.components?.length} components`).join('; ')}\n`);
    }
  } finally {
    await chrome.kill();
    await sandbox.terminate();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
