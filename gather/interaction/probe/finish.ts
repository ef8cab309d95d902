/**
 * Phase 5, the finish: it runs whatever happened before, within the reserve kept for it. The coverage of every
 * load (V8 block coverage, ../coverage.ts) is mapped to the artifact's files, the page is closed, and the inert
 * controls are cropped from the start-state screenshot.
 */
import sharp from 'sharp';
import type { InteractionControl, Screenshot } from '../../../core/browser-evidence.js';
import { errorMessage } from '../../../core/errors.js';
import { requestPath } from '../../server.js';
import { withTimeout } from '../../time.js';
import { EVAL_MS, FINISH_RESERVE_MS } from './limits.js';
import type { ProbeRun } from './run.js';

/** Read the last coverage and close the page. */
export async function closePage(run: ProbeRun): Promise<void> {
  const tc = performance.now();
  const { d, ev, origin, artifact } = run;
  // A handler still running (cut by the budget) would hold up the coverage read and the page's closing: stop it.
  if (run.busy) await withTimeout(d.cdp.send('Runtime.terminateExecution'), 300, 'terminate').catch(() => undefined);
  await d.takeCoverage(Math.max(300, Math.min(EVAL_MS, run.left() + FINISH_RESERVE_MS - 700))).catch(() => undefined);
  const js = d.coverage.entries((url) => {
    if (!url.startsWith(origin + '/')) return null;
    const file = requestPath(url.slice(origin.length));
    if (file === null) return null;
    const f = artifact.files.find((x) => x.path === (file === '' ? artifact.entry : file));
    return f ? { file: f.path, html: f.kind === 'html' } : null;
  });
  if (js.length || ev.firstView) ev.coverage = { js };
  run.mark('coverage', tc);
  const tx = performance.now();
  await d.close().catch((err) => run.faults.push(errorMessage(err)));
  run.mark('close', tx);
}

/** A PNG crop of the screenshot around `box` (16 px margin, at most 640×360, scaled down to fit). */
export async function cropAround(shot: Screenshot, box: NonNullable<InteractionControl['box']>): Promise<Buffer | null> {
  const m = 16;
  const left = Math.max(0, Math.floor(box.x - m));
  const top = Math.max(0, Math.floor(box.y - m));
  const right = Math.min(shot.width, Math.ceil(box.x + box.width + m));
  const bottom = Math.min(shot.height, Math.ceil(box.y + box.height + m));
  if (right - left < 2 || bottom - top < 2) return null;
  return sharp(shot.png)
    .extract({ left, top, width: right - left, height: bottom - top })
    .resize(640, 360, { fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer();
}

/** Crops of the controls where nothing was seen (control-liveness shows them). */
export async function crops(run: ProbeRun): Promise<void> {
  const tcrop = performance.now();
  const { ev } = run;
  if (ev.screenshot) {
    for (const a of ev.actions) {
      const c = ev.controls[a.control]!;
      if (a.outcome !== 'done' || a.effects.length || !c.box) continue;
      const crop = await cropAround(ev.screenshot, c.box).catch(() => null);
      if (crop) a.crop = crop;
    }
  }
  run.mark('crops', tcrop);
}
