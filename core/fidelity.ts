/**
 * Reference fidelity (SPEC "Suites": the extended suite's `fidelity` perspective): the contract between the
 * gathering side (gather/fidelity/ renders the candidate and the reference) and the `fidelity` metrics
 * (metrics/fidelity/). Everything here is data: what a rendered view holds, which viewports exist, what the score
 * document records about the reference used.
 *
 * A reference is what the page should reproduce: another artifact (an HTML file or a folder with `index.html`),
 * rendered with the same browser, network mode and settle rules as the candidate, or a picture (PNG), which has
 * no DOM. Both pages are rendered at every viewport of the viewport set (default desktop 1440×900, tablet
 * 768×1024, phone 390×844; `--viewports`).
 */
import type { Screenshot } from './browser-evidence.js';
import { InputError } from './errors.js';

/** One viewport of the set: a window size in CSS px (DPR 1, no touch, no mobile user agent). */
export interface ViewportSpec {
  name: string;
  width: number;
  height: number;
}

/** The named viewports (our choice of common desktop, tablet and phone sizes: 1440×900, the iPad portrait 768×1024 and the iPhone 12 Pro 390×844 that mobile-compat emulates; Vision2Web gives resolutions per task, e.g. 1920×1080, not a fixed set). */
export const NAMED_VIEWPORTS: Readonly<Record<string, ViewportSpec>> = {
  desktop: { name: 'desktop', width: 1440, height: 900 },
  tablet: { name: 'tablet', width: 768, height: 1024 },
  phone: { name: 'phone', width: 390, height: 844 },
};

export const DEFAULT_VIEWPORTS: readonly ViewportSpec[] = [NAMED_VIEWPORTS.desktop!, NAMED_VIEWPORTS.tablet!, NAMED_VIEWPORTS.phone!];

/** Text and components further down than this many screens (viewport heights) are not compared. */
export const FIDELITY_SCREENS = 3;

/**
 * `--viewports desktop,tablet,phone` or custom `WxH` entries (`1280x800`), comma-separated, in the order given;
 * bad values are InputErrors. Sizes from 200×200 to 4000×4000 CSS px.
 */
export function parseViewports(spec: string): ViewportSpec[] {
  const out: ViewportSpec[] = [];
  for (const raw of spec.split(',')) {
    const s = raw.trim().toLowerCase();
    if (!s) continue;
    const named = NAMED_VIEWPORTS[s];
    let v: ViewportSpec;
    if (named) v = { ...named };
    else {
      const m = /^(\d{3,4})x(\d{3,4})$/.exec(s);
      if (!m) throw new InputError(`--viewports ${spec}: "${raw.trim()}" is neither desktop, tablet, phone nor <width>x<height> (e.g. 1280x800)`);
      const width = Number(m[1]);
      const height = Number(m[2]);
      if (width < 200 || height < 200 || width > 4000 || height > 4000) throw new InputError(`--viewports ${spec}: ${s} is outside 200x200 … 4000x4000`);
      v = { name: `${width}x${height}`, width, height };
    }
    if (out.some((o) => o.name === v.name)) continue;
    out.push(v);
  }
  if (out.length === 0) throw new InputError(`--viewports ${spec}: names no viewport`);
  return out;
}

/** An RGBA colour: 0–255 channels and alpha 0–1. */
export type Rgba = [number, number, number, number];

/** A box in CSS px, document coordinates (top-left of the page is 0,0). */
export interface PageBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * One visible text parent (gather/fidelity/collect.ts): the element that holds text nodes directly, with
 * the text of those nodes (whitespace collapsed, cut at TEXT_KEEP_CHARS), its full length, the union of the text
 * nodes' boxes, the element's computed `color` and its tag.
 */
export interface TextBlock extends PageBox {
  text: string;
  /** Length of the whole text before the cut. */
  length: number;
  color: Rgba;
  tag: string;
}

/** Characters of a text block kept in the evidence (the longest text the metrics still compare is 500). */
export const TEXT_KEEP_CHARS = 501;

/** Non-text components: images, icons, form controls, buttons, boxes with a background. */
export type ComponentKind = 'image' | 'icon' | 'input' | 'button' | 'box';

export interface UiComponent extends PageBox {
  kind: ComponentKind;
  tag: string;
  /** Background colour (boxes, buttons, inputs) or glyph colour (icons); absent for images. */
  color?: Rgba;
}

/**
 * One page as rendered at one viewport. From a DOM: text blocks, components and a screenshot. From a picture
 * (a PNG reference): the screenshot only (`source: 'image'`).
 */
export interface RenderedView {
  viewport: ViewportSpec;
  source: 'dom' | 'image';
  /** Document size in CSS px (the picture's size for an image). */
  scrollWidth: number;
  scrollHeight: number;
  blocks?: TextBlock[];
  components?: UiComponent[];
  /** The top of the page, at most FIDELITY_SCREENS viewport heights, DPR 1. */
  screenshot?: Screenshot;
  /** Collected items were cut at the collector's caps. */
  truncated?: boolean;
}

/** What the score document records about the reference used (SPEC: "The score document records the reference used"). */
export interface ReferenceRecord {
  /** The path the user gave. */
  input: string;
  kind: 'artifact' | 'image';
  /** SHA-256 of the reference's content (every file's path and bytes; the picture's bytes). */
  sha256: string;
  viewports: string[];
  /** Network mode it was rendered in. */
  network: string;
  /** Where the rendered reference came from: rendered now, or the cache in memory or on disk. */
  cache: 'rendered' | 'memory' | 'disk';
  /** Requests of the reference render that the sandbox blocked or withheld. */
  blocked?: number;
  /** Faults of the reference render (load timeout, ...). */
  faults?: string[];
}

/** What the user gave as the reference (resolved and checked by the CLI or the batch). */
export interface ReferenceInput {
  /** Path of an .html file, a folder with index.html, or a .png picture. */
  path: string;
  kind: 'artifact' | 'image';
}

/** A rendered view, or why it is missing (evidence.ts `Gathered<RenderedView>`; spelled out: evidence.ts imports this file). */
export type GatheredView = { ok: true; value: RenderedView } | { ok: false; reason: string };

/** One viewport's pair of views. */
export interface FidelityViewPair {
  viewport: ViewportSpec;
  candidate: GatheredView;
  reference: GatheredView;
}

/**
 * The fidelity evidence: the reference used and, per viewport, both rendered views. `method` says how the
 * viewports were produced: `resize` (one load at the first viewport, then the window resized; see
 * gather/fidelity/render.ts).
 */
export interface FidelityEvidence {
  reference: ReferenceRecord;
  pairs: FidelityViewPair[];
  method: 'resize';
  timings: Record<string, number>;
}
