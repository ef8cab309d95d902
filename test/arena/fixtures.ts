/**
 * A results file with real artifacts for the arena tests: `runs/<model>/<requirement>/` folders written into a
 * temporary folder, a results.jsonl naming them (with metric scores, so that pages differ), and a desktop
 * screenshot for each page under `evidence/`.
 *
 * The good page checks, in the browser, what a model-made page needs and writes it into `<output id="checks">`:
 * a module script of its own, a `fetch` of its own JSON file, a file under a root-relative path, storage that
 * works, and a library from a CDN (`tiny@1` of the test registry, answered from the CDN cache).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { tempDir } from '../helpers.js';
import { row } from '../weights/synthetic.js';
import type { ResultRow } from '../../store/results-file.js';

export function goodPage(model: string, requirement: string): Record<string, string> {
  return {
    'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${model}</title>
<link rel="stylesheet" href="/style.css">
<script src="https://unpkg.com/tiny@1/dist/tiny.js"></script>
<script type="module" src="app.mjs"></script></head>
<body><h1 id="model">${model}</h1><p id="req">${requirement}</p><button id="add">Add</button><output id="checks"></output></body></html>`,
    'style.css': 'h1 { color: rgb(1, 2, 3); }\n',
    'app.mjs': `import { answer } from './lib.mjs';
const checks = { module: answer, tiny: window.tiny ?? null };
localStorage.setItem('todo', 'kept');
checks.storage = localStorage.getItem('todo');
checks.styled = getComputedStyle(document.getElementById('model')).color;
fetch('data.json').then((r) => r.json()).then((d) => { checks.fetched = d.value; })
  .catch((e) => { checks.fetched = 'failed: ' + e.message; })
  .finally(() => { document.getElementById('checks').textContent = JSON.stringify(checks); });
`,
    'lib.mjs': 'export const answer = 42;\n',
    'data.json': '{"value": "data"}\n',
  };
}

/** Writes the pages and the results file; `pages[model][requirement]` are the artifact's files. */
export async function writeResults(
  pages: Record<string, Record<string, Record<string, string>>>,
  scores: (model: string, requirement: string) => Record<string, number> = () => ({ lint: 50 }),
): Promise<{ dir: string; results: string; requirements: string }> {
  const dir = tempDir('webgrade-arena-');
  const rows: ResultRow[] = [];
  const reqs = new Set<string>();
  for (const [model, byReq] of Object.entries(pages)) {
    for (const [requirement, files] of Object.entries(byReq)) {
      reqs.add(requirement);
      const folder = join(dir, 'runs', model, requirement);
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(folder, rel, '..'), { recursive: true });
        writeFileSync(join(folder, rel), text);
      }
      const shotRel = `evidence/${model}/${requirement}/desktop.png`;
      mkdirSync(join(dir, shotRel, '..'), { recursive: true });
      await sharp({ create: { width: 64, height: 40, channels: 3, background: { r: 200, g: 30, b: 30 } } })
        .png()
        .toFile(join(dir, shotRel));
      const r = row(model, requirement, scores(model, requirement));
      r.artifact = folder;
      r.evidence = {
        folder: `evidence/${model}/${requirement}`,
        pictures: [{ file: shotRel, kind: 'desktop', caption: 'desktop viewport', width: 64, height: 40, bytes: 100 }],
        bytes: 100,
        cap: 1_500_000,
      };
      rows.push(r);
    }
  }
  const results = join(dir, 'results.jsonl');
  writeFileSync(results, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const requirements = join(dir, 'requirements.jsonl');
  writeFileSync(requirements, [...reqs].map((id) => JSON.stringify({ id, requirement: `Build the <b>${id}</b> app & make it "work"` })).join('\n') + '\n');
  return { dir, results, requirements };
}
