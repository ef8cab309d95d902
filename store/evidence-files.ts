/**
 * Evidence on disk: `--save-evidence <dir>` writes what the browser gatherer collected, `--from-evidence <dir>`
 * scores from it without a browser.
 *
 * Layout of <dir>:
 * - `evidence.json`: `{ "format": "webgrade-evidence", "version": 1, "artifact": {input, entry, files: [{path,
 *   size}]}, "browser": Gathered<BrowserEvidence>, "lighthouse": Gathered<LighthouseEvidence> (without the
 *   full report), "remote": Gathered<...> }`; parts that were not gathered are absent. Screenshots are
 *   replaced by `{ "file": "desktop.png", width, height, ... }`; any other binary value (e.g. a video's first
 *   frame) is stored inline as `{ "$base64": "..." }`.
 * - `desktop.png`, `full-page.png`, `mobile.png`: the screenshots.
 * - `lighthouse-report.json`: Lighthouse's full JSON report (LHR), when Lighthouse ran.
 * - `interaction` in evidence.json: the interaction probe's log (core/browser-evidence.ts InteractionEvidence);
 *   its start-state screenshot is `interaction-start.png` and each inert control's crop
 *   `interaction-crop-<control index>.png`, referenced as `{ "$file": "<name>" }`.
 * - `requirementTests` in evidence.json: the requirement tests' results; each test's after-screenshot is
 *   `requirement-test-<n>.png` (n from 1, in test order), referenced the same way.
 *
 * Loading checks the format marker and restores Buffers; it does not re-check that the artifact is the same as
 * when the evidence was saved, but reports the saved file list so a caller can compare.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserEvidence, InteractionEvidence, Screenshot } from '../core/browser-evidence.js';
import type { RequirementTestsEvidence } from '../core/requirement-tests.js';
import { InputError, errorMessage } from '../core/errors.js';
import { gathered, missing, type Evidence, type Gathered, type LighthouseEvidence } from '../core/evidence.js';
import type { GatherContext, Gatherer, GatheredParts } from '../core/gatherer.js';

export const EVIDENCE_FILE = 'evidence.json';
export const LHR_FILE = 'lighthouse-report.json';
const SHOT_FILES: Record<string, string> = { desktop: 'desktop.png', fullPage: 'full-page.png', mobile: 'mobile.png' };
const INTERACTION_SHOT = 'interaction-start.png';

function encode(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { $base64: v.toString('base64') };
  if (v instanceof Uint8Array) return { $base64: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = encode(x);
    return out;
  }
  return v;
}

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$base64 === 'string' && Object.keys(o).length === 1) return Buffer.from(o.$base64, 'base64');
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = decode(x);
    return out;
  }
  return v;
}

/** Write the browser/Lighthouse/remote evidence of one artifact into `dir` (created if needed). */
export function saveEvidence(dir: string, evidence: Evidence): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InputError(`--save-evidence ${dir}: cannot create folder (${errorMessage(err)})`);
  }
  const doc: Record<string, unknown> = {
    format: 'webgrade-evidence',
    version: 1,
    artifact: { input: evidence.artifact.input, entry: evidence.artifact.entry, files: evidence.artifact.files.map((f) => ({ path: f.path, size: f.size })) },
  };
  if (evidence.browser) {
    if (evidence.browser.ok) {
      const b = evidence.browser.value;
      const shots: Record<string, unknown> = {};
      for (const [key, shot] of Object.entries(b.screenshots) as Array<[string, Screenshot | undefined]>) {
        if (!shot) continue;
        const file = SHOT_FILES[key] ?? `${key}.png`;
        writeFileSync(join(dir, file), shot.png);
        const { png: _png, ...rest } = shot;
        shots[key] = { file, ...rest };
      }
      doc.browser = { ok: true, value: encode({ ...b, screenshots: shots }) };
    } else doc.browser = evidence.browser;
  }
  if (evidence.lighthouse) {
    if (evidence.lighthouse.ok) {
      const { lhr, ...rest } = evidence.lighthouse.value;
      if (lhr) writeFileSync(join(dir, LHR_FILE), JSON.stringify(lhr));
      doc.lighthouse = { ok: true, value: { ...rest, ...(lhr ? { lhrFile: LHR_FILE } : {}) } };
    } else doc.lighthouse = evidence.lighthouse;
  }
  if (evidence.interaction) {
    if (evidence.interaction.ok) {
      const v = evidence.interaction.value;
      const file = (name: string, png: Buffer) => {
        writeFileSync(join(dir, name), png);
        return { $file: name };
      };
      const { screenshot, actions, ...rest } = v;
      const out: Record<string, unknown> = { ...rest };
      if (screenshot) {
        const { png, ...meta } = screenshot;
        out.screenshot = { ...meta, png: file(INTERACTION_SHOT, png) };
      }
      out.actions = actions.map(({ crop, ...a }) => (crop ? { ...a, crop: file(`interaction-crop-${a.control}.png`, crop) } : a));
      doc.interaction = { ok: true, value: encode(out) };
    } else doc.interaction = evidence.interaction;
  }
  if (evidence.requirementTests) {
    if (evidence.requirementTests.ok) {
      const v = evidence.requirementTests.value;
      const results = v.results.map(({ screenshot, ...r }, i) => {
        if (!screenshot) return r;
        const name = `requirement-test-${i + 1}.png`;
        writeFileSync(join(dir, name), screenshot.png);
        return { ...r, screenshot: { width: screenshot.width, height: screenshot.height, png: { $file: name } } };
      });
      doc.requirementTests = { ok: true, value: encode({ ...v, results }) };
    } else doc.requirementTests = evidence.requirementTests;
  }
  if (evidence.remote) doc.remote = encode(evidence.remote);
  writeFileSync(join(dir, EVIDENCE_FILE), JSON.stringify(doc, null, 1) + '\n');
}

export interface SavedEvidence {
  artifact: { input: string; entry: string; files: Array<{ path: string; size: number }> };
  browser?: Gathered<BrowserEvidence>;
  lighthouse?: Gathered<LighthouseEvidence>;
  interaction?: Gathered<InteractionEvidence>;
  requirementTests?: Evidence['requirementTests'];
  remote?: Evidence['remote'];
}

/** `{"$file": name}` references of saved evidence read back as the files' bytes. */
function readFiles(dir: string, v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => readFiles(dir, x));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.$file === 'string' && Object.keys(o).length === 1) {
      const f = join(dir, o.$file);
      if (!existsSync(f)) throw new InputError(`--from-evidence ${dir}: ${o.$file} is missing`);
      return readFileSync(f);
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, readFiles(dir, x)]));
  }
  return v;
}

/** Read evidence written by `saveEvidence`. Bad or missing files are InputErrors (one-line CLI message). */
export function loadEvidence(dir: string): SavedEvidence {
  const path = join(dir, EVIDENCE_FILE);
  if (!existsSync(path)) throw new InputError(`--from-evidence ${dir}: no ${EVIDENCE_FILE} there`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new InputError(`--from-evidence ${dir}: ${EVIDENCE_FILE} is not valid JSON (${errorMessage(err)})`);
  }
  if (doc.format !== 'webgrade-evidence' || doc.version !== 1)
    throw new InputError(`--from-evidence ${dir}: ${EVIDENCE_FILE} is not webgrade evidence (format/version)`);
  const out: SavedEvidence = { artifact: doc.artifact as SavedEvidence['artifact'] };
  const b = doc.browser as Gathered<Record<string, unknown>> | undefined;
  if (b) {
    if (b.ok) {
      const value = decode(b.value) as BrowserEvidence;
      const shots: BrowserEvidence['screenshots'] = {};
      for (const [key, s] of Object.entries((value.screenshots ?? {}) as Record<string, Record<string, unknown>>)) {
        const file = join(dir, String(s.file));
        if (!existsSync(file)) throw new InputError(`--from-evidence ${dir}: screenshot ${String(s.file)} is missing`);
        const { file: _f, ...rest } = s;
        (shots as Record<string, Screenshot>)[key] = { ...(rest as Omit<Screenshot, 'png'>), png: readFileSync(file) };
      }
      out.browser = gathered({ ...value, screenshots: shots });
    } else out.browser = missing(b.reason);
  }
  const l = doc.lighthouse as Gathered<LighthouseEvidence & { lhrFile?: string }> | undefined;
  if (l) {
    if (l.ok) {
      const { lhrFile, ...rest } = l.value;
      const value: LighthouseEvidence = { ...rest };
      if (lhrFile && existsSync(join(dir, lhrFile))) value.lhr = JSON.parse(readFileSync(join(dir, lhrFile), 'utf8'));
      out.lighthouse = gathered(value);
    } else out.lighthouse = missing(l.reason);
  }
  const it = doc.interaction as Gathered<Record<string, unknown>> | undefined;
  if (it) {
    if (it.ok) {
      out.interaction = gathered(readFiles(dir, decode(it.value)) as InteractionEvidence);
    } else out.interaction = missing(it.reason);
  }
  const rt = doc.requirementTests as Gathered<Record<string, unknown>> | undefined;
  if (rt) out.requirementTests = rt.ok ? gathered(readFiles(dir, decode(rt.value)) as RequirementTestsEvidence) : missing(rt.reason);
  if (doc.remote) out.remote = decode(doc.remote) as Evidence['remote'];
  return out;
}

/** A gatherer that fills 'browser', 'screenshot', 'mobile', 'lighthouse', 'interaction' and 'requirement-tests' from saved evidence (no browser). */
export class SavedEvidenceGatherer implements Gatherer {
  readonly meta = {
    id: 'saved-evidence',
    provides: ['browser', 'screenshot', 'mobile', 'lighthouse', 'interaction', 'requirement-tests'],
    fills: ['browser', 'lighthouse', 'interaction', 'requirementTests'],
  } as const;
  private saved?: SavedEvidence;

  constructor(readonly dir: string) {}

  /** Load now, so that bad input fails before any work. */
  load(): SavedEvidence {
    this.saved ??= loadEvidence(this.dir);
    return this.saved;
  }

  async gather(ctx: GatherContext): Promise<GatheredParts> {
    const s = this.load();
    const absent = (what: string) => missing(`${what} is not in the saved evidence at ${this.dir}`);
    const out: GatheredParts = {
      browser: s.browser ?? absent('the browser session'),
      lighthouse: s.lighthouse ?? absent('the Lighthouse report'),
      interaction: s.interaction ?? absent('the interaction probe'),
      requirementTests: s.requirementTests ?? absent('the requirement tests'),
    };
    if (s.remote && !ctx.evidence.remote) out.remote = s.remote;
    return out;
  }

  async close(): Promise<void> {}
}
