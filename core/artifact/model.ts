/**
 * The artifact model: one HTML file, or a folder with `index.html` plus local files, loaded and parsed once and
 * shared by every metric. These are its types; `load.ts` makes one, `loaded.ts` parses it lazily.
 *
 * Physical lines (L of SPEC #4 and #5) = lines of every HTML, CSS and JS file of the artifact; inline blocks are
 * already inside their HTML file and are not counted twice. Which blocks are JS or CSS: see `extract.ts`.
 */
import type { JSDOM } from 'jsdom';

export type FileKind = 'html' | 'css' | 'js' | 'svg' | 'image' | 'video' | 'audio' | 'font' | 'data' | 'other';

export interface ArtifactFile {
  /** Path relative to the artifact root, with forward slashes. */
  path: string;
  /** The file's verified real path (inside the artifact's real root). */
  absPath: string;
  size: number;
  kind: FileKind;
  /** Decoded text for text kinds (html, css, js, svg, data). */
  text?: string;
  encoding?: string;
  /** What loading found wrong with the file (a NUL byte in code, code too large to read), for the metrics' details. */
  notes?: string[];
}

export type SourceLanguage = 'css' | 'js';
export type SourceOrigin = 'file' | 'inline' | 'attribute';

export interface SourceBlock {
  language: SourceLanguage;
  origin: SourceOrigin;
  /** The artifact file that contains the block. */
  file: string;
  /** 1-based line and column in `file` where `text` begins. */
  line: number;
  column: number;
  text: string;
  /** JS only: parsed as an ES module (`type="module"` or `.mjs`). */
  module?: boolean;
  /** For attribute blocks: the attribute name (`style`, `onclick`, ...). */
  attribute?: string;
}

export type ResourceKind =
  | 'image'
  | 'video'
  | 'audio'
  | 'track'
  | 'script'
  | 'stylesheet'
  | 'font'
  | 'icon'
  | 'iframe'
  | 'object'
  | 'manifest'
  | 'preload'
  | 'css-url'
  | 'css-import'
  | 'js-url';

export type ResourceLocation = 'local' | 'remote' | 'data' | 'special';

export interface ResourceRef {
  kind: ResourceKind;
  /** The URL exactly as written. */
  url: string;
  /** Where it is written: artifact file and 1-based line. */
  file: string;
  line: number;
  location: ResourceLocation;
  /** Local only: the artifact-relative path it resolves to (null when it escapes the artifact root). */
  path?: string | null;
  /** Local only: whether that file is part of the artifact. */
  exists?: boolean;
}

export interface Artifact {
  /** The path the user gave. */
  input: string;
  /** Absolute directory the artifact is served from. */
  root: string;
  /** Artifact-relative path of the entry page. */
  entry: string;
  kind: 'file' | 'folder';
  files: ArtifactFile[];
  /** Text of the entry page. */
  html: string;
  sources: SourceBlock[];
  physicalLines: number;
  resources: ResourceRef[];
  /**
   * Static DOM of the entry page (jsdom, scripts not run, `<noscript>` content as text as in a browser with
   * scripting). Built on first use; nested at most MAX_DOM_DEPTH levels; `<style>` elements are empty (their
   * text is in `sources`); source locations of its nodes come from `nodeLocation(artifact, node)`.
   */
  dom: JSDOM;
  /** Entries under the root left out of the artifact by the rule of `load.ts`, with why. */
  refused: Array<{ path: string; reason: string }>;
  /**
   * What the browser is given when it differs from the files the metrics read: a built project's output folder
   * (project/), while `files` are its sources. Absent for pages and static folders, which are served as they are.
   */
  served?: { root: string; entry: string; files: ArtifactFile[]; refused: Array<{ path: string; reason: string }> };
}

/**
 * A parse failure of the artifact's HTML (the static DOM or its blocks and references could not be built). A
 * metric that reads `dom`, `sources` or `resources` of such an artifact gets this error, and the scorer turns it
 * into "unscorable" with the message as the reason (never a failure of the run).
 */
export class ArtifactParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactParseError';
  }
}

/** Files of the artifact that are HTML, CSS or JS with text. */
export function codeFiles(artifact: Artifact): ArtifactFile[] {
  return artifact.files.filter((f) => f.text !== undefined && (f.kind === 'html' || f.kind === 'css' || f.kind === 'js'));
}

/** What loading found wrong with the artifact's files (`ArtifactFile.notes`), as `<path>: <note>` lines. */
export function fileNotes(artifact: Pick<Artifact, 'files'>): string[] {
  return artifact.files.flatMap((f) => (f.notes ?? []).map((n) => `${f.path}: ${n}`));
}
