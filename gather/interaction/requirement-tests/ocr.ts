/**
 * Text drawn on a canvas or anywhere on screen, read by OCR from our own capture of the viewport (never from the
 * page's word): tesseract.js (a maintained WebAssembly build of Tesseract), whose engine comes from the npm package
 * tesseract.js-core and whose English model from @tesseract.js-data/eng (LSTM, "best_int"), both on disk: nothing
 * is downloaded at run time. The model is unpacked once into a cache folder (os.tmpdir()/webgrade-ocr) and the
 * worker is started once per process, on first use, and ended by `closeOcr` (the browser gatherer's close).
 *
 * Preparation (what makes a game's HUD readable): the crop is made grey, stretched to full contrast, inverted when
 * its background is dark (Tesseract reads dark text on light), and scaled so that its height is at least
 * MIN_OCR_HEIGHT pixels (×2 to ×4: small HUD text at 12–16 px reads much better at 3×). Recognised as one block
 * of text (page segmentation mode 6, "a single uniform block"), which suits a score line or a banner.
 *
 * What it reads reliably is measured in docs/requirement-tests.md ("Text on a canvas"): plain sans-serif or
 * monospace text from about 14 px up, in a colour well apart from its background; not decorative fonts, text
 * over a busy scene, rotated or very small text.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

const MIN_OCR_HEIGHT = 96;

interface OcrWorker {
  recognize(img: Buffer): Promise<{ data: { text: string; confidence: number } }>;
  setParameters(p: Record<string, string>): Promise<unknown>;
  terminate(): Promise<unknown>;
}

let worker: Promise<OcrWorker> | undefined;

async function start(): Promise<OcrWorker> {
  const require = createRequire(import.meta.url);
  const { createWorker } = require('tesseract.js') as { createWorker: (lang: string, oem: number, opts: Record<string, unknown>) => Promise<OcrWorker> };
  const langPath = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  const cachePath = join(tmpdir(), 'webgrade-ocr');
  mkdirSync(cachePath, { recursive: true });
  const w = await createWorker('eng', 1, { langPath, gzip: true, cachePath, logger: () => undefined, errorHandler: () => undefined });
  await w.setParameters({ tessedit_pageseg_mode: '6', preserve_interword_spaces: '1', user_defined_dpi: '300' });
  return w;
}

/** The PNG prepared for Tesseract (module comment). */
export async function prepare(png: Buffer): Promise<Buffer> {
  const img = sharp(png).greyscale().normalise();
  const { data, info } = await img.clone().raw().toBuffer({ resolveWithObject: true });
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i]!;
  const dark = sum / Math.max(1, data.length) < 128;
  const scale = Math.max(2, Math.min(4, Math.ceil(MIN_OCR_HEIGHT / Math.max(1, info.height))));
  // Two passes: sharp orders the operations of one pipeline its own way, and the padding must be the light background.
  const light = await (dark ? img.negate({ alpha: false }) : img).png().toBuffer();
  return sharp(light)
    .resize({ width: info.width * scale, height: info.height * scale, kernel: 'lanczos3' })
    .extend({ top: 12, bottom: 12, left: 12, right: 12, background: '#fff' })
    .png()
    .toBuffer();
}

/**
 * Start the OCR engine now, so that its start-up (seconds: the WebAssembly engine and the English model) is not
 * counted against the time limit of the first test that reads text by OCR. Never rejects: a failed start is
 * started again, and reported, by the first `readText`.
 */
export async function warmOcr(): Promise<void> {
  worker ??= start();
  await worker.catch(() => {
    worker = undefined;
  });
}

/** Whether tests read anything by OCR: a step or an expectation with an `ocr` field anywhere in them. */
export function usesOcr(tests: unknown): boolean {
  const seen = (v: unknown, depth: number): boolean => {
    if (depth > 32 || v === null || typeof v !== 'object') return false;
    if (Array.isArray(v)) return v.some((x) => seen(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(o, 'ocr') && o.ocr) return true;
    return Object.values(o).some((x) => seen(x, depth + 1));
  };
  return seen(tests, 0);
}

/** The text in a PNG (a crop of the viewport), as Tesseract reads it, with its mean confidence (0–100). */
export async function readText(png: Buffer): Promise<{ text: string; confidence: number }> {
  worker ??= start();
  let w: OcrWorker;
  try {
    w = await worker;
  } catch (err) {
    worker = undefined;
    throw err;
  }
  const { data } = await w.recognize(await prepare(png));
  return { text: data.text.replace(/[ \t]+/g, ' ').trim(), confidence: Math.round(data.confidence) };
}

/** End the OCR worker, when one was started (the process can then exit). */
export async function closeOcr(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await (await w.catch(() => null))?.terminate().catch(() => undefined);
}
