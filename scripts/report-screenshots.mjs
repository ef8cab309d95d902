// Screenshots of each page type of a report folder (README "A report to explore"):
//   node scripts/report-screenshots.mjs <report-dir> <out-dir> [width] [model/requirement of the artifact page to show]
// Needs a build (dist/). Writes index, model, requirement, artifact, failures (and compare, when present) as WebP.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { launchBrowser } from '../dist/gather/chrome.js';

const [dir, out, width = '1200', pick] = process.argv.slice(2);
if (!dir || !out) {
  process.stderr.write('usage: node scripts/report-screenshots.mjs <report-dir> <out-dir> [width]\n');
  process.exit(2);
}
const first = (sub) => {
  const d = join(dir, sub);
  const walk = (p) => {
    for (const n of readdirSync(p, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (n.isDirectory()) return walk(join(p, n.name));
      if (n.name.endsWith('.html')) return join(p, n.name);
    }
    return null;
  };
  return existsSync(d) ? walk(d) : null;
};
const pages = {
  index: join(dir, 'index.html'),
  model: pick ? join(dir, 'model', `${pick.split('/')[0]}.html`) : first('model'),
  requirement: pick ? join(dir, 'requirement', `${pick.split('/')[1]}.html`) : first('requirement'),
  artifact: pick ? join(dir, 'artifact', `${pick}.html`) : first('artifact'),
  failures: join(dir, 'failures.html'),
  compare: join(dir, 'compare.html'),
};
mkdirSync(out, { recursive: true });
const { browser, close } = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.setViewport({ width: Number(width), height: 900 });
  for (const [name, file] of Object.entries(pages)) {
    if (!file || !existsSync(file)) continue;
    await page.goto(pathToFileURL(resolve(file)).href, { waitUntil: 'load' });
    const png = await page.screenshot({ fullPage: true, captureBeyondViewport: true });
    const target = join(out, `${name}.webp`);
    await sharp(png)
      .extract({ left: 0, top: 0, width: Number(width), height: Math.min(name === 'artifact' ? 5600 : 3200, (await sharp(png).metadata()).height) })
      .resize({ width: 900 })
      .webp({ quality: 70 })
      .toFile(target);
    process.stdout.write(`${target}\n`);
  }
} finally {
  await close();
}
