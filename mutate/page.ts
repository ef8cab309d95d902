/**
 * The page an operator mutates, and the edit it makes.
 *
 * `PageModel` is the original artifact as parsers see it: the entry HTML's DOM with source locations (jsdom
 * with `includeNodeLocations`, parse5 underneath), its JS blocks (inline `<script>` and `.js` files, acorn
 * trees via lib/js-parse.ts) and CSS blocks (`<style>` and `.css` files, postcss trees with the safe parser),
 * each with its offset in its file. It is shared read-only by every operator.
 *
 * `Mutation` is one operator's edit: a `magic-string` per changed file, spliced only at offsets a parser gave
 * (an element's start tag, an attribute's span, a declaration's value, a statement's range), never found by
 * searching the text; plus whole binary files replaced (a blurred image). `changedFiles()` gives the new
 * contents. Text is written back as UTF-8, so an operator refuses files decoded from another charset.
 */
import MagicString from 'magic-string';
import { JSDOM } from 'jsdom';
import postcss from 'postcss';
import safeParser from 'postcss-safe-parser';
import { isJsScriptType } from '../lib/artifact/extract.js';
import { loadArtifact } from '../lib/artifact/load.js';
import type { Artifact, ArtifactFile } from '../core/artifact/model.js';
import { parseJsText, type ParsedJs } from '../lib/js-parse.js';

/** A parse5 source location as jsdom's `nodeLocation` returns it (offsets in UTF-16 code units). */
export interface NodeLoc {
  startOffset: number;
  endOffset: number;
  startTag?: { startOffset: number; endOffset: number };
  endTag?: { startOffset: number; endOffset: number };
  attrs?: Record<string, { startOffset: number; endOffset: number }>;
}

export interface CodeBlock {
  /** Artifact file holding the block. */
  file: string;
  /** Offset of the block's first character in that file's text. */
  offset: number;
  text: string;
  origin: 'inline' | 'file';
  /** The `<script>`/`<style>` element of an inline block. */
  element?: Element;
}

export interface JsBlock extends CodeBlock {
  module: boolean;
}

export type CssBlock = CodeBlock;

/** Elements whose content is not rendered markup (a browser with scripts on treats `noscript` as text). */
const NOT_RENDERED = new Set(['template', 'noscript', 'script', 'style', 'head', 'title']);

export class PageModel {
  readonly artifact: Artifact;
  readonly entry: string;
  readonly html: string;
  readonly dom: JSDOM;
  readonly doc: Document;
  private jsCache?: JsBlock[];
  private cssCache?: CssBlock[];
  private readonly parsedJs = new Map<JsBlock, ParsedJs>();
  private readonly parsedCss = new Map<CssBlock, postcss.Root | null>();

  constructor(artifact: Artifact) {
    this.artifact = artifact;
    this.entry = artifact.entry;
    this.html = artifact.html;
    // A DOM of our own with source locations (the artifact model's DOM is for metrics; it need not keep them).
    this.dom = new JSDOM(artifact.html, { includeNodeLocations: true });
    this.doc = this.dom.window.document;
  }

  static load(input: string): PageModel {
    return new PageModel(loadArtifact(input));
  }

  file(path: string): ArtifactFile | undefined {
    return this.artifact.files.find((f) => f.path === path);
  }

  /** Text of an artifact file (the entry's is `html`). */
  text(path: string): string {
    if (path === this.entry) return this.html;
    const t = this.file(path)?.text;
    if (t === undefined) throw new Error(`${path} is not a text file of the artifact`);
    return t;
  }

  /** Whether a file can be edited as text and written back unchanged elsewhere (decoded as UTF-8). */
  writable(path: string): boolean {
    const f = this.file(path);
    return !!f && f.text !== undefined && (f.encoding ?? 'utf-8') === 'utf-8';
  }

  loc(node: Node): NodeLoc | null {
    try {
      return (this.dom.nodeLocation(node) as unknown as NodeLoc | null) ?? null;
    } catch {
      return null;
    }
  }

  /** An element written in the source with a start tag (not one the parser implied). */
  located(el: Element): boolean {
    return !!this.loc(el)?.startTag;
  }

  /** Inside `<body>` and rendered: not inside template/noscript/script/style. */
  rendered(el: Element): boolean {
    if (!this.doc.body?.contains(el)) return false;
    for (let e: Element | null = el; e; e = e.parentElement) if (NOT_RENDERED.has(e.localName)) return false;
    return true;
  }

  /** Elements matching `selector` that are rendered and written in the source, in document order. */
  elements(selector: string): Element[] {
    return Array.from(this.doc.querySelectorAll(selector)).filter((el) => this.rendered(el) && this.located(el));
  }

  /** JS blocks: inline classic/module scripts of the entry page, then `.js`/`.mjs` files. */
  jsBlocks(): JsBlock[] {
    if (this.jsCache) return this.jsCache;
    const out: JsBlock[] = [];
    for (const el of Array.from(this.doc.querySelectorAll('script'))) {
      if (el.hasAttribute('src') || !isJsScriptType(el.getAttribute('type'))) continue;
      const loc = this.loc(el);
      if (!loc?.startTag || !loc.endTag) continue;
      const module = (el.getAttribute('type') ?? '').trim().toLowerCase() === 'module';
      out.push({
        file: this.entry,
        offset: loc.startTag.endOffset,
        text: this.html.slice(loc.startTag.endOffset, loc.endTag.startOffset),
        origin: 'inline',
        element: el,
        module,
      });
    }
    for (const f of this.artifact.files) {
      if (f.kind !== 'js' || f.text === undefined) continue;
      out.push({ file: f.path, offset: 0, text: f.text, origin: 'file', module: f.path.endsWith('.mjs') });
    }
    return (this.jsCache = out);
  }

  /** CSS blocks: `<style>` elements of the entry page, then `.css` files. */
  cssBlocks(): CssBlock[] {
    if (this.cssCache) return this.cssCache;
    const out: CssBlock[] = [];
    for (const el of Array.from(this.doc.querySelectorAll('style'))) {
      const loc = this.loc(el);
      if (!loc?.startTag || !loc.endTag) continue;
      out.push({
        file: this.entry,
        offset: loc.startTag.endOffset,
        text: this.html.slice(loc.startTag.endOffset, loc.endTag.startOffset),
        origin: 'inline',
        element: el,
      });
    }
    for (const f of this.artifact.files) {
      if (f.kind !== 'css' || f.text === undefined) continue;
      out.push({ file: f.path, offset: 0, text: f.text, origin: 'file' });
    }
    return (this.cssCache = out);
  }

  /** The acorn tree of a JS block (acorn-loose when it does not parse: `recovered`). */
  js(block: JsBlock): ParsedJs {
    let p = this.parsedJs.get(block);
    if (!p) {
      p = parseJsText(block.text, block.module);
      this.parsedJs.set(block, p);
    }
    return p;
  }

  /** The postcss tree of a CSS block (safe parser), or null when even that fails. */
  css(block: CssBlock): postcss.Root | null {
    if (!this.parsedCss.has(block)) {
      let root: postcss.Root | null = null;
      try {
        root = safeParser(block.text) as postcss.Root;
      } catch {
        root = null;
      }
      this.parsedCss.set(block, root);
    }
    return this.parsedCss.get(block)!;
  }
}

/** Escape a value for a double-quoted HTML attribute. */
export function attrValue(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** Escape text for HTML content. */
export function htmlText(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** Append CSS declarations to a `style` attribute value, keeping what is there. */
export function withDeclarations(style: string | null, decls: string): string {
  const s = (style ?? '').trim();
  if (!s) return decls;
  return s.endsWith(';') ? `${s} ${decls}` : `${s}; ${decls}`;
}

/** The edit one operator makes to a copy of the artifact. */
export class Mutation {
  readonly page: PageModel;
  private readonly strings = new Map<string, MagicString>();
  private readonly binaries = new Map<string, Buffer>();

  constructor(page: PageModel) {
    this.page = page;
  }

  /** The magic-string of a text file (created on first use). */
  ms(file: string): MagicString {
    let s = this.strings.get(file);
    if (!s) {
      if (!this.page.writable(file)) throw new Error(`${file} is not a UTF-8 text file of the artifact`);
      s = new MagicString(this.page.text(file));
      this.strings.set(file, s);
    }
    return s;
  }

  private get html(): MagicString {
    return this.ms(this.page.entry);
  }

  /** Insert markup just before `</body>` (or after the last node of the body, or at the end of the file). */
  insertAtBodyEnd(markup: string): void {
    const body = this.page.doc.body;
    const loc = body ? this.page.loc(body) : null;
    if (loc?.endTag) return void this.html.appendLeft(loc.endTag.startOffset, markup);
    const last = body ? lastLocated(this.page, body) : null;
    this.html.appendLeft(last ?? this.page.html.length, markup);
  }

  /** Insert markup as the first thing inside `<body>`. */
  insertAtBodyStart(markup: string): void {
    const body = this.page.doc.body;
    const loc = body ? this.page.loc(body) : null;
    if (loc?.startTag) return void this.html.appendRight(loc.startTag.endOffset, markup);
    const first = body ? firstLocated(this.page, body) : null;
    this.html.appendRight(first ?? this.page.html.length, markup);
  }

  /** Insert markup as the first thing in `<head>` (after `<html>`, or the doctype, when there is no head tag). */
  insertInHead(markup: string): void {
    const d = this.page.doc;
    for (const node of [d.head, d.documentElement] as Array<Element | null>) {
      const loc = node ? this.page.loc(node) : null;
      if (loc?.startTag) return void this.html.appendRight(loc.startTag.endOffset, markup);
    }
    const dt = d.doctype ? this.page.loc(d.doctype) : null;
    this.html.appendRight(dt ? dt.endOffset : 0, markup);
  }

  /** Set an attribute in the source: overwrite its span, or add it at the end of the start tag. */
  setAttribute(el: Element, name: string, value: string): void {
    const loc = this.page.loc(el);
    if (!loc?.startTag) throw new Error(`<${el.localName}> has no start tag in the source`);
    const text = `${name}="${attrValue(value)}"`;
    const span = loc.attrs?.[name];
    if (span) return void this.html.overwrite(span.startOffset, span.endOffset, text);
    let at = loc.startTag.endOffset - 1; // the closing '>'
    if (this.page.html[at - 1] === '/') at -= 1; // a self-closing '/>'
    this.html.appendLeft(at, ` ${text}`);
  }

  /** Remove an attribute and the white space before it. */
  removeAttribute(el: Element, name: string): void {
    const span = this.page.loc(el)?.attrs?.[name];
    if (!span) return;
    let start = span.startOffset;
    while (start > 0 && /\s/.test(this.page.html[start - 1]!)) start--;
    this.html.remove(start, span.endOffset);
  }

  /** Add CSS declarations to an element's inline style. */
  addInlineStyle(el: Element, decls: string): void {
    this.setAttribute(el, 'style', withDeclarations(el.getAttribute('style'), decls));
  }

  /** Replace a whole element (start tag to end tag) with markup. */
  replaceElement(el: Element, markup: string): void {
    const loc = this.page.loc(el);
    if (!loc) throw new Error(`<${el.localName}> has no location`);
    this.html.overwrite(loc.startOffset, loc.endOffset, markup);
  }

  /** Replace a whole text file's content. */
  replaceFile(file: string, text: string): void {
    const s = this.ms(file);
    s.overwrite(0, s.original.length, text);
  }

  /** Replace a binary file of the artifact (e.g. an image) with new bytes. */
  writeBinary(file: string, bytes: Buffer): void {
    this.binaries.set(file, bytes);
  }

  /** Files whose content changed, with their new content. */
  changedFiles(): Map<string, string | Buffer> {
    const out = new Map<string, string | Buffer>();
    for (const [file, s] of this.strings) if (s.hasChanged()) out.set(file, s.toString());
    for (const [file, b] of this.binaries) out.set(file, b);
    return out;
  }
}

function lastLocated(page: PageModel, parent: Element): number | null {
  let best: number | null = null;
  for (const n of Array.from(parent.childNodes)) {
    const l = page.loc(n);
    if (l) best = Math.max(best ?? 0, l.endOffset);
  }
  return best;
}

function firstLocated(page: PageModel, parent: Element): number | null {
  for (const n of Array.from(parent.childNodes)) {
    const l = page.loc(n);
    if (l) return l.startOffset;
  }
  return null;
}
