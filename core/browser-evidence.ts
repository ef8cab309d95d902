/**
 * The shape of what one browser session gathers about an artifact (see runner/gather/ for how). Every rule
 * metric that needs the browser reads only this. Fields may be added; existing ones keep their meaning,
 * because saved evidence (`--save-evidence`) is read back by `--from-evidence`.
 */
import type { NetworkEntry } from './network.js';

export type { NetworkEntry };

export interface ConsoleEntry {
  /** Chrome's console level: 'error', 'warn', 'log', 'info', 'debug', ... */
  level: string;
  text: string;
  url?: string;
  line?: number;
  /** True when the browser itself made the message for a request it made by itself (favicon probe). */
  browserMade?: boolean;
  /** True for "Failed to load resource" lines about requests the sandbox refused or withheld (not the page's own errors). */
  webgradeCaused?: boolean;
  /** Of those: the request was withheld (offline mode, or a CDN file the cache could not serve). */
  withheld?: boolean;
}

export interface PageError {
  kind: 'exception' | 'unhandled-rejection';
  message: string;
  stack?: string;
}


/** A font family that rendered some of the page's text (see runner/gather/session.ts `usedFonts`). */
export interface FontUse {
  family: string;
  /** Glyphs it drew in the sampled elements. */
  glyphs: number;
  /** A web font (`@font-face`: the page's own or a CDN's), not a system font. */
  webFont: boolean;
}

export interface Screenshot {
  /** PNG bytes. */
  png: Buffer;
  width: number;
  height: number;
  deviceScaleFactor: number;
  /** For full-page shots: true when the page was taller than the cap and the shot was cut. */
  truncated?: boolean;
}

export interface MobileResult {
  device: string;
  viewportWidth: number;
  scrollWidth: number;
  clientWidth: number;
  /** max(0, scrollWidth − clientWidth) of the document element after load. */
  overflowPx: number;
  /** Elements sticking out to the right, widest first (selector and right edge in CSS px). */
  offenders: Array<{ selector: string; right: number; width: number }>;
  /** Where the emulated load happened: inside the Lighthouse run (the usual case) or a mobile visit of the session. */
  measuredBy?: 'lighthouse run' | 'mobile visit';
}

export interface CoverageEntry {
  /** Artifact-relative file, or `<file>#inline-<n>` for inline blocks. */
  source: string;
  totalBytes: number;
  usedBytes: number;
  /** CSS only: bytes of unused rules whose selector matches after removing user-action pseudo-classes (:hover ...); counted as used. */
  interactionBytes?: number;
}

export interface IconInfo {
  /** CSS selector path of the icon element. */
  selector: string;
  /** 'svg' | 'img-svg' | 'font' (icon fonts like Font Awesome / Material) | 'emoji' */
  type: string;
  /** Guess of the icon set: 'font-awesome', 'material', 'lucide', 'heroicons', 'inline-svg', ... */
  set: string;
  width: number;
  height: number;
  strokeWidth: number | null;
  /** Selector of the nearest container shared with sibling icons (the grouping key). */
  container: string;
  background: { shape: string; color: string; padding: number } | null;
  /** False when its look cannot be seen: an icon font that did not load (offline CDN), an image that failed. */
  rendered?: boolean;
}

export interface MediaInfo {
  tag: 'img' | 'video' | 'picture' | 'svg-image' | 'css-background';
  src: string;
  /** Artifact-relative path when local. */
  path?: string;
  alt: string | null;
  naturalWidth: number;
  naturalHeight: number;
  renderedWidth: number;
  renderedHeight: number;
  /** Image decoded in the browser (complete && naturalWidth > 0). */
  decoded: boolean;
  visible: boolean;
  /** Video only. */
  video?: { readyState: number; canPlay: boolean; hasControls: boolean; hasCaptions: boolean; firstFrame?: Buffer };
  /** Selector of the card-like ancestor it sits in, if any (for repeated-image detection). */
  card?: string;
  selector: string;
  /** Computed `object-fit` (img/video): 'fill' stretches, 'cover'/'contain' keep the aspect ratio. */
  objectFit?: string;
  /** Box in document CSS px (getBoundingClientRect plus scroll). */
  box?: { x: number; y: number; width: number; height: number };
  /** aria-hidden="true" or role="presentation"/"none" on the element: declared decorative. */
  decorative?: boolean;
}

export interface BrowserEvidence {
  url: string;
  finalUrl: string;
  /** Milliseconds spent in the session, by phase. */
  timings: Record<string, number>;
  console: ConsoleEntry[];
  pageErrors: PageError[];
  /** The sandbox's log of every request of every phase of this artifact (visit, mobile, lighthouse ...). */
  network: NetworkEntry[];
  /** Serialised DOM after load and settle. */
  domHtml: string;
  domNodeCount: number;
  screenshots: { desktop?: Screenshot; fullPage?: Screenshot; mobile?: Screenshot };
  mobile?: MobileResult;
  coverage?: { js: CoverageEntry[]; css: CoverageEntry[] };
  /** The font families that rendered the text, most glyphs first. */
  fonts?: FontUse[];
  /** CSS/Web animations stopped before the screenshots (runner/gather/session.ts `freezeAnimations`). */
  frozenAnimations?: number;
  icons?: IconInfo[];
  media?: MediaInfo[];
  /** Faults seen during the visit (timeout, dialog storm, navigation away, window closed, crash). */
  faults: string[];
  /** Main-frame navigations after the entry loaded (a reload loop, a link followed within the artifact); absent = 0. */
  navigations?: number;
  /** Why an optional field above is absent, by field name (e.g. `mobile: "page did not respond ..."`). */
  unavailable?: Record<string, string>;
  /** Dialogs (alert/confirm/prompt/beforeunload) the page opened; all were dismissed. */
  dialogs?: number;
  /** `domHtml` was cut at the cap (see runner/gather/session.ts). */
  domTruncated?: boolean;
  /** The load event fired within the load timeout. */
  loaded?: boolean;
}
