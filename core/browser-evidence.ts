/**
 * The shape of what one browser session gathers about an artifact (see gather/ for how). Every rule
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

/** A font family that rendered some of the page's text (see gather/collectors/fonts.ts). */
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
  /**
   * A CSS background whose size probe got no answer (gather/collectors/media.ts `probeBackgrounds`: with the page's
   * clock paused an image's load never comes): whether it decodes is unknown, and `decoded` says nothing.
   */
  unprobed?: true;
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
  /**
   * The sandbox's log of every request the page made in every phase of this artifact (visit, mobile, lighthouse
   * ...); the browser's own requests are in `browserNetwork` (gather/page-requests.ts).
   */
  network: NetworkEntry[];
  /** Requests the browser made on its own while the page was open (refused like any other; no metric reads them). */
  browserNetwork?: NetworkEntry[];
  /** Serialised DOM after load and settle. */
  domHtml: string;
  domNodeCount: number;
  screenshots: { desktop?: Screenshot; fullPage?: Screenshot; mobile?: Screenshot };
  mobile?: MobileResult;
  coverage?: { js: CoverageEntry[]; css: CoverageEntry[] };
  /** The font families that rendered the text, most glyphs first. */
  fonts?: FontUse[];
  /** CSS/Web animations stopped before the screenshots (gather/collectors/screenshots.ts `freezeAnimations`). */
  frozenAnimations?: number;
  icons?: IconInfo[];
  media?: MediaInfo[];
  /**
   * Share (0–1) of the settle window after load that the page's main thread spent running tasks (Chrome's
   * Performance.getMetrics `TaskDuration`): a page that keeps computing after its load (an animation loop, a
   * runtime starting up): a page that never goes idle.
   */
  busyAfterLoad?: number;
  /**
   * When the page's first contentful paint came (ms from navigation start), as the page reports it at the end of
   * the settle; null: none by then (a blank canvas waiting for a microphone, say); absent: not asked.
   */
  firstContentfulPaintMs?: number | null;
  /** Faults seen during the visit (timeout, dialog storm, navigation away, window closed, crash). */
  faults: string[];
  /** Main-frame navigations after the entry loaded (a reload loop, a link followed within the artifact); absent = 0. */
  navigations?: number;
  /** Why an optional field above is absent, by field name (e.g. `mobile: "page did not respond ..."`). */
  unavailable?: Record<string, string>;
  /** Dialogs (alert/confirm/prompt/beforeunload) the page opened; all were dismissed. */
  dialogs?: number;
  /** `domHtml` was cut at the cap (see gather/collectors/dom.ts). */
  domTruncated?: boolean;
  /** The load event fired within the load timeout. */
  loaded?: boolean;
}

// ---------------------------------------------------------------------------------------------------------
// The interaction probe (gather/interaction/): what happened when the page was used.

/**
 * What kind of control an action targets, which decides the action:
 * - `button`: button, input type button/submit/reset/image, [role=button], summary: a click;
 * - `link`: a link within the page (a fragment, `#`, `javascript:`): a click;
 * - `page-link`: a link to another file of the artifact: only followed by the navigation check, never acted on
 *   for control liveness;
 * - `text`: a text-like input, textarea or contenteditable: click into it, type a value, press Enter;
 * - `toggle`: a checkbox or radio (or the visible label of a hidden one): a click;
 * - `select`: choose another option; `range`: click it, press ArrowRight; `value`: a colour/date/time input set
 *   to a value; `file`: a sample file chosen;
 * - `listener`: any other element with click or key listeners: a click (a double click when it only listens for
 *   dblclick; focus and Enter when it only listens for keys);
 * - `keyboard`: the page's key listeners on window/document/body (games, shortcuts): the keys they test pressed
 *   in turn.
 */
export type ControlKind = 'button' | 'link' | 'page-link' | 'text' | 'toggle' | 'select' | 'range' | 'value' | 'file' | 'listener' | 'keyboard';

/** How a control navigates inside the app, when it does (navigation-reachability). */
export type NavKind = 'page' | 'anchor' | 'hash-route' | 'placeholder' | 'tab' | 'nav-button';

export interface InteractionBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface InteractionControl {
  /** Position in `InteractionEvidence.controls` (document order; the keyboard control, if any, first). */
  index: number;
  kind: ControlKind;
  /** CSS selector that finds it again after a reload (`document` for the keyboard control). */
  selector: string;
  tag: string;
  /** Its label: aria-label, text, value, title or placeholder (at most 80 characters). */
  text: string;
  /** Its box in the start state, document CSS px at 1280 px width. */
  box?: InteractionBox;
  /** Event types listened for on it (DOMDebugger.getEventListeners, or React props). */
  listeners?: string[];
  /** `keyboard`: the keys pressed, in order. */
  keys?: string[];
  /** In-app navigation: how it navigates. */
  nav?: NavKind;
  /** Links: the resolved href. */
  href?: string;
  /** Chosen for control liveness (within the cap; `page-link`s never are). */
  acted: boolean;
  /** The document it is in, when not the entry page (found by the navigation check on another page). */
  page?: string;
}

/** One observable effect of an action. */
export type EffectKind =
  | 'dom' // elements added or removed, text or attributes changed
  | 'form' // the value or state of another form field changed
  | 'layout' // an element shown, hidden or resized (also CSS-only effects)
  | 'canvas' // pixels of a canvas changed
  | 'url' // the address changed within the document (fragment, pushState)
  | 'navigation' // another document was loaded
  | 'storage' // localStorage, sessionStorage or cookies changed
  | 'dialog' // alert/confirm/prompt/print or a beforeunload dialog
  | 'focus' // focus moved into an element other than the control
  | 'scroll' // the page scrolled
  | 'audio' // a sound started (AudioContext, a source node, media play, speech)
  | 'clipboard' // a clipboard write
  | 'download' // a download started (a[download], blob: link, save picker)
  | 'popup' // a new window was opened
  | 'file-chooser' // a file chooser opened
  | 'browser-prompt' // a browser chooser or prompt: device (serial, USB, Bluetooth, HID), file or directory picker, camera, microphone or screen, permission, fullscreen, share
  | 'request' // a request left the page (to the artifact, a CDN, or refused by the sandbox)
  | 'value-read'; // the field's value was read by the page's code (it feeds something)

export interface InteractionEffect {
  kind: EffectKind;
  /** What changed, for a person (e.g. `#out: text`, `GET data.json`). */
  detail: string;
}

export interface InteractionError {
  kind: 'exception' | 'unhandled-rejection' | 'console';
  message: string;
}

export interface InteractionAction {
  /** Index into `controls`. */
  control: number;
  /** What was done, e.g. `click`, `type "test" + Enter`, `keys ArrowUp ArrowDown`. */
  action: string;
  /**
   * `done`; `not-found` (the control was not there after the reload); `timeout` (the action or its observation
   * took longer than the per-action timeout); `hung` (the page stopped answering after the action); `failed`
   * (the probe could not act, with `note`).
   */
  outcome: 'done' | 'not-found' | 'timeout' | 'hung' | 'failed';
  note?: string;
  /** Effects seen; none = the control is inert. */
  effects: InteractionEffect[];
  /** Errors raised from the action until the end of its observation (those the page raises anyway are removed). */
  errors: InteractionError[];
  /** Requests made during the action that the sandbox refused (or that could not connect). */
  refused?: string[];
  /** Inert from the start state, the control was tried again right after this other control (index) acted. */
  after?: number;
  /**
   * Inert from the start state, and its second chance (right after another control acted) was due but not made:
   * why (the probe's budget ran out, or the second try timed out). Neither live nor inert: left out of
   * control-liveness and listed.
   */
  undecided?: string;
  /** Wall-clock milliseconds of the whole action, restore included. */
  ms: number;
  /** The view after the action (`InteractionView.key`), for the navigation check. */
  view?: string;
  /** A crop of the start-state screenshot around the control, when no effect was seen (PNG). */
  crop?: Buffer;
}

/** A view: a state told apart by address and visible content (the alias rule of navigation-reachability). */
export interface InteractionView {
  /** `<path><#fragment>|<hash of the visible text>|<number of rendered elements>` */
  key: string;
  path: string;
  hash: string;
  textHash: string;
  elements: number;
  /** The first characters of the visible text. */
  text: string;
  /** The fragment names an element of the document (the browser scrolls to it). */
  anchorExists: boolean;
  /** HTTP status of the document, when it was loaded by a navigation. */
  status?: number;
}

/** One in-app navigation element and what acting on it led to. */
export interface NavigationResult {
  control: number;
  /** Each time it was tried: from which view, to which view (null: nothing loaded), and the HTTP status of a document it loaded. */
  tries: Array<{ from: string; to: string | null; status?: number; note?: string }>;
  /** It led to a view (a different one from where it was acted on, or an existing file or anchor). */
  leads: boolean;
  /** Why not, when it is dangling. */
  reason?: string;
}

export interface NavigationLog {
  startView?: InteractionView;
  /** Every distinct view reached, breadth first (depth 0 = the start view). */
  views: Array<InteractionView & { depth: number }>;
  links: NavigationResult[];
  /** Navigation elements found but not tried (over the caps or out of budget), by control index. */
  untried: number[];
  /** Why the search stopped early, if it did. */
  truncated?: string;
}

/** The first view, after load and settle (render-validity). */
/** A visual of the first view and where it shows in the viewport (CSS px). */
export interface VisualBox {
  kind: 'svg' | 'img' | 'canvas' | 'video';
  x: number;
  y: number;
  width: number;
  height: number;
  /** 2D canvases: whether reading the canvas back found a drawing (not one colour throughout); WebGL ones are not read back (absent). */
  drawn?: boolean;
}

/** Pixels of a region of the first view's screenshot. */
export interface PixelReading {
  /** Share of the region's pixels that differ from its most common colour (by more than a faint shade). */
  content: number;
  /** Colours used (RGB quantised to 4 bits a channel, counted when they cover a few pixels). */
  colours: number;
  /** Share of pixels on an edge (luminance step of more than 48 of 255 to the right or below). */
  edges: number;
}

/** What the screenshot of the first view shows: the whole viewport, and each visual's region of it. */
export interface ScreenReading extends PixelReading {
  width: number;
  height: number;
  /** The viewport's most common colour, #rrggbb: its background. */
  background: string;
  /** Per `visualBoxes` entry, in order: its region's pixels and its share of the viewport. */
  visuals: Array<PixelReading & { share: number }>;
}

export interface FirstView {
  /** Descendant elements of body. */
  elements: number;
  /** Characters of visible text (body.innerText, whitespace collapsed). */
  textChars: number;
  /** Visible, loaded visuals: svg, decoded img, canvas that drew something, video. */
  visuals: number;
  visualsByKind: { svg: number; img: number; canvas: number; video: number };
  /** Visible canvases that drew nothing (one colour throughout, read back from the canvas): not counted as visuals. */
  blankCanvases: number;
  /** Where the visible visuals show in the viewport (content boxes, clipped to it; at most 30), in document order. */
  visualBoxes?: VisualBox[];
  /** What the screenshot of the first view shows (the viewport's pixels), when it could be taken. */
  screen?: ScreenReading;
  /**
   * The viewport read again at later moments of the page clock (ms since the document began), the same visuals'
   * regions read: the start of an animation that grows from nothing shows little, a moment later it shows.
   */
  samples?: Array<{ atMs: number; screen: ScreenReading }>;
  /** The page clock (ms since the document began) at the first view. */
  atMs?: number;
  /**
   * The visit's desktop screenshot read the same way (its viewport, the same visuals' regions), when the visit took
   * one: render-validity warns when the visit shows a scene that no frame of the probe shows.
   */
  visit?: ScreenReading;
  /** Visible, enabled button, input, textarea, select, a[href], [role=button]. */
  interactive: number;
  /** First contentful paint (ms after navigation start), or null when nothing was painted. */
  firstPaintMs: number | null;
  /** Uncaught exceptions and unhandled rejections before the first contentful paint (before the first view when nothing was painted). */
  errorsBeforeRender: InteractionError[];
  /** The load event fired. */
  loaded: boolean;
}

/** The probe's settings, recorded with what it gathered. */
export interface InteractionSettings {
  maxControls: number;
  actionTimeoutMs: number;
  budgetMs: number;
  /** Virtual milliseconds of the page clock: after load, before each action (fill and scroll side effects), and after it. */
  settleMs: number;
  prepMs: number;
  observeMs: number;
  navDepth: number;
  maxViews: number;
  maxNavActions: number;
  restore: string;
  /**
   * Virtual milliseconds between animation frames of the page clock when the page was too heavy for 16 (its
   * first settle cost more than FRAME_COST_TARGET_MS real ms a virtual second); absent at 16.
   */
  frameMs?: number;
}

export interface InteractionEvidence {
  settings: InteractionSettings;
  /** Absent when the page did not answer (see `unavailable.firstView`). */
  firstView?: FirstView;
  /** Every control and in-app link found in the start state. */
  controls: InteractionControl[];
  /** The action log, in the order acted. */
  actions: InteractionAction[];
  navigation: NavigationLog;
  /** Errors of the first load and settle (console-errors' business; listed so they are not blamed on actions). */
  loadErrors: InteractionError[];
  /** Text fields filled before each action (`selector = value`), so that buttons act on a filled form. */
  filled: string[];
  /** Errors raised while those fields were filled (their input and change listeners). */
  fillErrors?: InteractionError[];
  /** Snapshot paths that differed between two identical runs (left out of every comparison). */
  unstable?: string[];
  /** Why no second identical run looked for unstable paths (a heavy page with nothing on real time). */
  unstableUnchecked?: string;
  /** The page stopped answering after its first load: nothing was acted on. */
  hung?: boolean;
  /** V8 block coverage of the page's own JS over every load of the probe (dead-code). */
  coverage?: { js: CoverageEntry[] };
  /** The start state, full page (height capped), for the crops and `--explain control-liveness --out`. */
  screenshot?: Screenshot;
  /** The sandbox's log of the probe's requests (phase `interaction`). */
  network?: NetworkEntry[];
  timings: Record<string, number>;
  faults: string[];
  /** Why an optional part is absent (firstView, coverage, screenshot, actions ...). */
  unavailable?: Record<string, string>;
}
