/**
 * Would OCR earn its cost for PNG references? (issue: reference fidelity). Renders each Design2Code reference at
 * the desktop viewport (full-scale screenshot, the product's renderer, Chrome and sandbox), runs tesseract.js with
 * the bundled English data (`@tesseract.js-data/eng`, offline) on the screenshot, and measures:
 * - seconds per image (recognition only; the worker is started once);
 * - text-block recall: the share of the page's DOM text blocks (prepared as visual-fidelity prepares them, within
 *   the screenshot) for which some OCR line or paragraph reaches ρ ≥ 0.3 (the matching threshold), and ρ ≥ 0.8.
 *
 * tesseract.js is not a dependency of webgrade (it was left out on this measurement); install it anywhere and
 * point at that node_modules:
 *
 *   npm install --prefix /tmp/ocr tesseract.js@7 @tesseract.js-data/eng
 *   node dist/bench/fidelity-ocr.js --modules /tmp/ocr/node_modules [--dir ../shared/corpus/design2code] [--pages 100]
 *
 * Without --modules it looks in webgrade's own node_modules; when tesseract.js is in neither, it says so and exits
 * with CANNOT_RUN (bench/common.ts), as it does when the Design2Code corpus is absent.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadArtifact } from '../lib/artifact/load.js';
import { NAMED_VIEWPORTS } from '../core/fidelity.js';
import { ChromeProcess, sandboxContext } from '../gather/chrome-process.js';
import { SandboxThread } from '../gather/sandbox/sandbox-thread.js';
import { servedArtifact } from '../gather/server.js';
import { renderViews } from '../gather/fidelity/render.js';
import { prepareBlocks, ratio } from '../metrics/fidelity/fidelity-tools.js';
import { benchArgs, cannotRun, corpusDir, inputDir } from './common.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = benchArgs('usage: node dist/bench/fidelity-ocr.js [--modules DIR] [--dir ../shared/corpus/design2code] [--pages 100]', {
  modules: { type: 'string' },
  dir: { type: 'string' },
  pages: { type: 'number', default: 100 },
});
const dir = args.dir ?? join(corpusDir, 'design2code');
const modules = args.modules ?? join(here, '..', '..', 'node_modules');

interface OcrLine {
  text: string;
}

async function main(): Promise<void> {
  // Both packages are needed: the engine, and the English data it reads offline.
  for (const pkg of ['tesseract.js', '@tesseract.js-data/eng']) {
    if (!existsSync(join(modules, pkg, 'package.json'))) {
      cannotRun(
        `${pkg} is not installed in ${modules} (it is not a dependency of webgrade): npm install --prefix /tmp/ocr tesseract.js@7 @tesseract.js-data/eng, then pass --modules /tmp/ocr/node_modules`,
      );
    }
  }
  const require = createRequire(join(modules, 'noop.js'));
  const { createWorker } = require('tesseract.js') as {
    createWorker: (
      lang: string,
      oem: number,
      opts: Record<string, unknown>,
    ) => Promise<{
      recognize: (
        img: Buffer,
        o?: object,
        out?: object,
      ) => Promise<{ data: { blocks: Array<{ paragraphs: Array<{ text: string; lines: OcrLine[] }> }> | null } }>;
      terminate: () => Promise<void>;
    }>;
  };
  const langPath = join(modules, '@tesseract.js-data', 'eng', '4.0.0_best_int');
  const refs = readdirSync(inputDir(join(dir, 'references'), 'Design2Code references folder'))
    .filter((f) => f.endsWith('.html'))
    .sort()
    .slice(0, args.pages);
  const sandbox = new SandboxThread({ network: { mode: 'cdn' } });
  const chrome = new ChromeProcess({ spki: () => sandbox.certificates() });
  const tStart = performance.now();
  const worker = await createWorker('eng', 1, { langPath, gzip: true, cachePath: join(modules, '..', 'tess-cache'), logger: () => undefined });
  const startMs = performance.now() - tStart;
  const secs: number[] = [];
  let blocks = 0;
  let at03 = 0;
  let at08 = 0;
  const v = NAMED_VIEWPORTS.desktop!;
  try {
    const browser = await chrome.browser();
    for (const f of refs) {
      const path = join(dir, 'references', f);
      if (!existsSync(path)) continue;
      const site = await sandbox.open(servedArtifact(loadArtifact(path)));
      const ctx = await sandboxContext(browser, await site.endpoint('reference'));
      const r = await renderViews(ctx, site.entryUrl, { viewports: [v], deadline: performance.now() + 30_000, shotScale: 1 });
      await ctx.close();
      await site.close();
      const view = r.views[0];
      if (!view?.ok || !view.value.screenshot) continue;
      const t = performance.now();
      const out = await worker.recognize(view.value.screenshot.png, {}, { blocks: true, text: false });
      const s = (performance.now() - t) / 1000;
      secs.push(s);
      const candidates: string[] = [];
      for (const b of out.data.blocks ?? [])
        for (const p of b.paragraphs) {
          candidates.push(p.text.toLowerCase().replace(/\s+/g, ' ').trim());
          for (const l of p.lines) candidates.push(l.text.toLowerCase().replace(/\s+/g, ' ').trim());
        }
      const dom = prepareBlocks(view.value.blocks ?? [], v).blocks.filter((b) => b.y * v.height < view.value.screenshot!.height);
      let a = 0;
      let b8 = 0;
      for (const d of dom) {
        const best = Math.max(0, ...candidates.map((c) => ratio(d.text, c)));
        if (best >= 0.3) a++;
        if (best >= 0.8) b8++;
      }
      blocks += dom.length;
      at03 += a;
      at08 += b8;
      process.stderr.write(
        `${f}: ${s.toFixed(2)} s, ${dom.length} DOM blocks, recall ${(a / Math.max(1, dom.length)).toFixed(2)} (ρ≥0.3) ${(b8 / Math.max(1, dom.length)).toFixed(2)} (ρ≥0.8)\n`,
      );
    }
  } finally {
    await worker.terminate();
    await chrome.kill();
    await sandbox.terminate();
  }
  const sorted = [...secs].sort((a, b) => a - b);
  const med = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  process.stdout.write(
    `OCR (tesseract.js, eng best_int) on ${secs.length} Design2Code references at 1440 px: worker start ${(startMs / 1000).toFixed(2)} s; per image median ${med.toFixed(2)} s, max ${Math.max(...secs).toFixed(2)} s; text-block recall ${(at03 / blocks).toFixed(3)} at ρ ≥ 0.3, ${(at08 / blocks).toFixed(3)} at ρ ≥ 0.8 (${blocks} DOM blocks)\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
