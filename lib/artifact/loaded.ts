/**
 * The artifact as `loadArtifact` returns it, and the hand-over of its parse between threads.
 *
 * Cost: files are read at load; the HTML is parsed on first use (parse5, as a browser with scripting parses it,
 * linear in the page: blocks and references come from this parse) and the static DOM (jsdom) is built on first
 * use of `dom`, from the same text with the limits of MAX_DOM_DEPTH and `withoutStyleText`. Pages that are huge
 * or nested 100 000 levels deep therefore cost time in proportion to their size; a failure of either step is an
 * ArtifactParseError, which the scorer reports as "unscorable" for the metrics that need the parse. The scorer
 * does this work in its static worker (runner/static-thread.ts), under the budget.
 */
import type { JSDOM } from 'jsdom';
import { serialize, type DefaultTreeAdapterTypes } from 'parse5';
import { errorMessage } from '../../core/errors.js';
import { countLines } from '../text.js';
import { extractCssUrls, extractFromHtml } from './extract.js';
import { ArtifactParseError, codeFiles, type Artifact, type ArtifactFile, type ResourceRef, type SourceBlock } from '../../core/artifact/model.js';
import {
  MAX_DOM_DEPTH,
  capTreeDepth,
  forEachElement,
  mapLocations,
  parseTree,
  staticJsdom,
  treeDepth,
  withoutStyleText,
  type Parse5Location,
} from './parse.js';

interface ParsedArtifact {
  sources: SourceBlock[];
  resources: ResourceRef[];
  /** The entry page's parse, until the DOM and its locations are built from it. */
  tree?: DefaultTreeAdapterTypes.Document;
  depth: number;
}

/**
 * The artifact model as `loadArtifact` returns it: files are read and decoded at once (bad input fails there);
 * the HTML is parsed on first use of `sources`/`resources` (parse5, linear in the size of the page) and the
 * static DOM is built on first use of `dom` (jsdom, capped at MAX_DOM_DEPTH). A failure of either is kept and
 * thrown as an ArtifactParseError on every later use.
 */
export class LoadedArtifact implements Artifact {
  readonly html: string;
  readonly physicalLines: number;
  /** What the browser is given when it is not these files (a built project's output: project/open.ts). */
  served?: Artifact['served'];
  private parsed?: ParsedArtifact;
  private parseError?: string;
  private builtDom?: JSDOM;
  private domError?: string;
  private locations?: WeakMap<Node, Parse5Location>;
  private locationTree?: DefaultTreeAdapterTypes.Document;

  constructor(
    readonly input: string,
    readonly root: string,
    readonly entry: string,
    readonly kind: 'file' | 'folder',
    readonly files: ArtifactFile[],
    readonly refused: Array<{ path: string; reason: string }> = [],
  ) {
    this.html = files.find((f) => f.path === entry)!.text ?? '';
    this.physicalLines = codeFiles(this).reduce((sum, f) => sum + countLines(f.text!), 0);
  }

  get sources(): SourceBlock[] {
    return this.parse().sources;
  }
  set sources(value: SourceBlock[]) {
    this.parse().sources = value;
  }

  get resources(): ResourceRef[] {
    return this.parse().resources;
  }
  set resources(value: ResourceRef[]) {
    this.parse().resources = value;
  }

  get dom(): JSDOM {
    if (this.builtDom) return this.builtDom;
    if (this.domError !== undefined) throw new ArtifactParseError(this.domError);
    const parsed = this.parse();
    try {
      const url = 'http://artifact.invalid/' + encodeURI(this.entry);
      const tree = parsed.tree ?? parseTree(this.html);
      delete parsed.tree;
      if (parsed.depth > MAX_DOM_DEPTH) {
        capTreeDepth(tree, MAX_DOM_DEPTH);
        forEachElement(tree, (el) => {
          if (el.tagName === 'style') el.childNodes = [];
        });
        this.builtDom = staticJsdom(serialize(tree), url);
      } else this.builtDom = staticJsdom(withoutStyleText(this.html, tree), url);
      this.locationTree = tree;
    } catch (err) {
      this.domError = `the static DOM could not be built (${errorMessage(err)})`;
      throw new ArtifactParseError(this.domError);
    }
    return this.builtDom;
  }

  set dom(value: JSDOM) {
    this.builtDom = value;
  }

  /** parse5 source location of a node of `dom` (null when it has none); the map is made on first use. */
  nodeLocation(node: Node): Parse5Location | null {
    const dom = this.dom;
    if (this.locationTree) {
      this.locations = mapLocations(dom.window.document, this.locationTree);
      this.locationTree = undefined;
    }
    return this.locations?.get(node) ?? null;
  }

  /** Give the parse's results from elsewhere (the static worker parsed the same files). */
  adoptParse(sources: SourceBlock[], resources: ResourceRef[], depth: number): void {
    if (!this.parsed && this.parseError === undefined) this.parsed = { sources, resources, depth };
  }

  /** Record that the parse failed elsewhere (or ran out of time): later uses throw ArtifactParseError(reason). */
  failParse(reason: string): void {
    if (!this.parsed && this.parseError === undefined) this.parseError = reason;
    this.failDom(reason);
  }

  /** Record that the static DOM could not be built elsewhere (or not in time). */
  failDom(reason: string): void {
    if (!this.builtDom && this.domError === undefined) this.domError = reason;
  }

  /** Why the static DOM could not be built, when that was tried and failed. */
  get domFailure(): string | undefined {
    return this.domError;
  }

  /** The parse's results, when the HTML was parsed without error (for handing them to another thread). */
  parseResults(): { sources: SourceBlock[]; resources: ResourceRef[]; depth: number } | undefined {
    return this.parsed ? { sources: this.parsed.sources, resources: this.parsed.resources, depth: this.parsed.depth } : undefined;
  }

  private parse(): ParsedArtifact {
    if (this.parsed) return this.parsed;
    if (this.parseError !== undefined) throw new ArtifactParseError(this.parseError);
    try {
      const sources: SourceBlock[] = [];
      const resources: ResourceRef[] = [];
      const fileSet = new Set(this.files.map((f) => f.path));
      let tree: DefaultTreeAdapterTypes.Document | undefined;
      for (const f of this.files) {
        if (f.text === undefined) continue;
        if (f.kind === 'html') {
          const t = parseTree(f.text);
          if (f.path === this.entry) tree = t;
          extractFromHtml(f, t, fileSet, sources, resources);
        } else if (f.kind === 'css') {
          sources.push({ language: 'css', origin: 'file', file: f.path, line: 1, column: 1, text: f.text });
        } else if (f.kind === 'js') {
          sources.push({ language: 'js', origin: 'file', file: f.path, line: 1, column: 1, text: f.text, module: f.path.endsWith('.mjs') });
        }
      }
      for (const block of sources) {
        if (block.language === 'css') extractCssUrls(block, fileSet, resources);
      }
      // The entry may not be an .html file (a single `page.htm5`?): it is HTML all the same.
      tree ??= parseTree(this.html);
      this.parsed = { sources, resources, tree, depth: treeDepth(tree) };
      return this.parsed;
    } catch (err) {
      this.parseError = `the page could not be parsed (${errorMessage(err)})`;
      throw new ArtifactParseError(this.parseError);
    }
  }
}

/** Source location of a node of `artifact.dom` (parse5's record: lines, columns, offsets), or null. */
export function nodeLocation(artifact: Artifact, node: Node): Parse5Location | null {
  if (artifact instanceof LoadedArtifact) return artifact.nodeLocation(node);
  try {
    return (artifact.dom.nodeLocation(node) as unknown as Parse5Location) ?? null;
  } catch {
    return null;
  }
}

/** Hand over a parse made elsewhere (see LoadedArtifact.adoptParse); a no-op for other Artifact objects. */
export function adoptArtifactParse(artifact: Artifact, parse: { sources: SourceBlock[]; resources: ResourceRef[]; depth: number }): void {
  if (artifact instanceof LoadedArtifact) artifact.adoptParse(parse.sources, parse.resources, parse.depth);
}

/** Mark an artifact's parse as failed with `reason` (see LoadedArtifact.failParse); a no-op for other objects. */
export function failArtifactParse(artifact: Artifact, reason: string): void {
  if (artifact instanceof LoadedArtifact) artifact.failParse(reason);
}

/** Mark only an artifact's static DOM as failed with `reason` (its parse stands). */
export function failArtifactDom(artifact: Artifact, reason: string): void {
  if (artifact instanceof LoadedArtifact) artifact.failDom(reason);
}

/** Why an artifact's static DOM could not be built, when building it was tried and failed. */
export function artifactDomError(artifact: Artifact): string | undefined {
  return artifact instanceof LoadedArtifact ? artifact.domFailure : undefined;
}

/** Is this an artifact `loadArtifact` made (lazy parse, which can be handed over between threads)? */
export function isLoadedArtifact(artifact: Artifact): boolean {
  return artifact instanceof LoadedArtifact;
}

/** The results of an artifact's parse, or undefined when it failed (or the artifact is not ours). */
export function artifactParseResults(artifact: Artifact): { sources: SourceBlock[]; resources: ResourceRef[]; depth: number } | undefined {
  if (!(artifact instanceof LoadedArtifact)) return undefined;
  try {
    void artifact.sources;
  } catch {
    return undefined;
  }
  return artifact.parseResults();
}
