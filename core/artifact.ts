/**
 * The artifact model: one HTML file, or a folder with `index.html` plus local files, loaded and parsed once and
 * shared by every metric.
 *
 * Choices (SPEC leaves them open):
 * - A single file is an artifact of exactly one file: its siblings on disk are not part of it, are not served
 *   and count as missing when referenced. A folder artifact holds every file below it except hidden entries
 *   and `node_modules` (at most MAX_FILES files).
 * - Text is decoded as UTF-8 (BOM stripped); a file that is not valid UTF-8 is decoded with the charset its
 *   `<meta charset>`/`@charset` names, else windows-1252; UTF-16 with a BOM is honoured. The encoding used is
 *   recorded per file.
 * - Physical lines (L of SPEC #4 and #5) = lines of every HTML, CSS and JS file of the artifact; inline blocks
 *   are already inside their HTML file and are not counted twice.
 * - JS blocks: `<script>` without `src` whose `type` is empty, a JavaScript MIME type or `module`, every `.js`
 *   /`.mjs` file, and event-handler attributes (`onclick` ...). CSS blocks: `<style>`, every `.css` file and
 *   `style` attributes. `<script type="text/babel">`, templates and JSON blocks are not JS.
 * - Cost: files are read at load; the HTML is parsed on first use (parse5, as a browser with scripting parses
 *   it, linear in the page: blocks and references come from this parse) and the static DOM (jsdom) is built
 *   on first use of `dom`, from the same text with the limits of MAX_DOM_DEPTH and `withoutStyleText`. Pages
 *   that are huge or nested 100 000 levels deep therefore cost time in proportion to their size; a failure of
 *   either step is an ArtifactParseError, which the scorer reports as "unscorable" for the metrics that need
 *   the parse. The scorer does this work in its static worker (runner/static-thread.ts), under the budget.
 *
 * What belongs to an artifact (a security rule: a page must never read a file the user did not give it). The
 * root is taken by its real path. A file is part of the artifact only when it is a regular file whose real path
 * lies inside the real root: a symbolic link is followed only when its target is such a file (or a folder inside
 * the root, each real folder walked once, so link loops end); links that leave the root, device files, FIFOs,
 * sockets and anything under /proc, /sys or /dev are left out and listed in `refused` with the reason. A
 * single-file artifact whose entry is a link is followed only to an .html/.htm file (a folder of links to pages
 * is a common way to take a sample); a link to anything else is bad input. Files are read with
 * `readArtifactFile`, which opens the verified real path without following links and checks again that it is a
 * regular file, so a file swapped for a link after loading is not read either. The loopback server and the
 * metrics that read bytes (media) use the same function.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, posix, relative, resolve, sep } from 'node:path';
import { JSDOM } from 'jsdom';
import { parse as parse5, serialize, type DefaultTreeAdapterTypes } from 'parse5';
import { InputError, errorMessage } from './errors.js';
import { LineIndex, countLines } from './text.js';

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
  /** Entries under the root left out of the artifact by the rule of the module comment, with why. */
  refused: Array<{ path: string; reason: string }>;
}

const MAX_FILES = 5000;
const MAX_TEXT_BYTES = 20 * 1024 * 1024;

const KIND_BY_EXT: Record<string, FileKind> = {
  '.html': 'html', '.htm': 'html', '.xhtml': 'html',
  '.css': 'css',
  '.js': 'js', '.mjs': 'js', '.cjs': 'js',
  '.svg': 'svg',
  '.png': 'image', '.jpg': 'image', '.jpeg': 'image', '.gif': 'image', '.webp': 'image', '.avif': 'image',
  '.ico': 'image', '.bmp': 'image',
  '.mp4': 'video', '.webm': 'video', '.ogv': 'video', '.mov': 'video',
  '.mp3': 'audio', '.wav': 'audio', '.ogg': 'audio', '.m4a': 'audio', '.flac': 'audio',
  '.woff': 'font', '.woff2': 'font', '.ttf': 'font', '.otf': 'font', '.eot': 'font',
  '.json': 'data', '.txt': 'data', '.md': 'data', '.csv': 'data', '.xml': 'data', '.webmanifest': 'data',
};

const TEXT_KINDS = new Set<FileKind>(['html', 'css', 'js', 'svg', 'data']);

export function fileKind(path: string): FileKind {
  return KIND_BY_EXT[extname(path).toLowerCase()] ?? 'other';
}

/** Decode bytes as text; see the module comment for the policy. */
export function decodeText(buf: Buffer): { text: string; encoding: string } {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(buf.subarray(2)), encoding: 'utf-16le' };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(buf.subarray(2)), encoding: 'utf-16be' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buf), encoding: 'utf-8' };
  } catch {
    const head = buf.subarray(0, 2048).toString('latin1');
    const m = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head) ?? /@charset\s+["']([\w-]+)["']/i.exec(head);
    const label = m?.[1]?.toLowerCase();
    if (label && label !== 'utf-8' && label !== 'utf8') {
      try {
        return { text: new TextDecoder(label).decode(buf), encoding: label };
      } catch {
        /* unknown label: fall through */
      }
    }
    return { text: new TextDecoder('windows-1252').decode(buf), encoding: 'windows-1252' };
  }
}

function looksBinary(buf: Buffer): boolean {
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) return false;
  const n = Math.min(buf.length, 8192);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

function statOrFail(p: string): Stats {
  try {
    return statSync(p);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`${p}: no such file or folder`);
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

function readOrFail(p: string): Buffer {
  try {
    return readArtifactFile({ absPath: p });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`${p}: permission denied`);
    if (code === 'EISDIR') throw new InputError(`${p}: is a folder, expected a file`);
    throw new InputError(`${p}: cannot read (${errorMessage(err)})`);
  }
}

const SYSTEM_TREES = ['/proc', '/sys', '/dev'];

function insideTree(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Why `real` (a real path) may not be part of an artifact rooted at the real path `root`, or null. */
export function outsideReason(real: string, root: string): string | null {
  if (SYSTEM_TREES.some((t) => insideTree(real, t))) return `a link into ${real.split(sep).slice(0, 2).join(sep)} (system files are never served)`;
  if (!insideTree(real, root)) return 'a link to a file outside the artifact folder';
  return null;
}

interface Listed {
  /** Artifact-relative path. */
  rel: string;
  /** Verified real path. */
  real: string;
}

function listFolder(root: string, refused: Artifact['refused']): Listed[] {
  const out: Listed[] = [];
  const seenDirs = new Set<string>([root]);
  const walk = (dir: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (err) {
      if (rel === '') throw new InputError(`${dir}: cannot list folder (${errorMessage(err)})`);
      return;
    }
    for (const name of names.sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      let lst: Stats;
      try {
        lst = lstatSync(abs);
      } catch {
        continue;
      }
      let real = abs;
      let st = lst;
      if (lst.isSymbolicLink()) {
        try {
          real = realpathSync(abs);
          st = statSync(real);
        } catch (err) {
          refused.push({ path: r, reason: `a dangling or looping link (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})` });
          continue;
        }
        const why = outsideReason(real, root);
        if (why) {
          refused.push({ path: r, reason: why });
          continue;
        }
      }
      if (st.isDirectory()) {
        if (seenDirs.has(real)) continue; // a link back to a folder already walked
        seenDirs.add(real);
        walk(real, r);
      } else if (st.isFile()) {
        out.push({ rel: r, real });
        if (out.length > MAX_FILES) throw new InputError(`${root}: more than ${MAX_FILES} files; is this really one web app?`);
      } else refused.push({ path: r, reason: 'not a regular file (device, FIFO or socket)' });
    }
  };
  walk(root, '');
  return out;
}

/**
 * Read an artifact file's bytes: its verified real path, opened without following a link, and only when it is
 * still a regular file (see the module comment). Throws like readFileSync when it cannot.
 */
export function readArtifactFile(file: Pick<ArtifactFile, 'absPath'>): Buffer {
  const fd = openSync(file.absPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${file.absPath}: not a regular file`), { code: 'EINVAL' });
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

function loadFile(listed: Listed, isEntry: boolean): ArtifactFile {
  const rel = listed.rel;
  const absPath = listed.real;
  const kind = fileKind(rel);
  const st = statOrFail(absPath);
  const file: ArtifactFile = { path: rel, absPath, size: st.size, kind };
  if (TEXT_KINDS.has(kind) || isEntry) {
    if (st.size > MAX_TEXT_BYTES) {
      if (isEntry) throw new InputError(`${absPath}: larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB`);
      return file;
    }
    let buf: Buffer;
    try {
      buf = readOrFail(absPath);
    } catch (err) {
      if (isEntry) throw err;
      return file; // an unreadable side file is reported by the metrics that reference it
    }
    if (isEntry) {
      if (buf.length === 0 || buf.toString('latin1').trim() === '') throw new InputError(`${absPath}: file is empty`);
      if (looksBinary(buf)) throw new InputError(`${absPath}: is a binary file, not HTML`);
    } else if (looksBinary(buf)) {
      return file;
    }
    const { text, encoding } = decodeText(buf);
    file.text = text;
    file.encoding = encoding;
  }
  return file;
}

/** The files of an artifact by the rule of the module comment, without reading them. */
export interface ArtifactListing {
  root: string;
  entry: string;
  kind: Artifact['kind'];
  /** Each file's path inside the artifact and its verified real path (read it with `readArtifactFile`). */
  files: Array<{ rel: string; real: string }>;
  refused: Artifact['refused'];
}

/**
 * List an artifact's files (the rule of the module comment) without reading them: `loadArtifact` and everything
 * else that ships or hashes an artifact's files (the queue) use it. Throws InputError for bad input.
 */
export function listArtifact(input: string): ArtifactListing {
  const abs = resolve(input);
  const st = statOrFail(abs);
  let root: string;
  let entry: string;
  let listed: Listed[];
  let kind: Artifact['kind'];
  const refused: Artifact['refused'] = [];
  if (st.isDirectory()) {
    root = realpathSync(abs);
    if (SYSTEM_TREES.some((t) => insideTree(root, t))) throw new InputError(`${input}: is a system folder, not a web app`);
    listed = listFolder(root, refused);
    if (!listed.some((l) => l.rel === 'index.html')) {
      const why = refused.find((r) => r.path === 'index.html');
      throw new InputError(`${input}: folder has no index.html${why ? ` (index.html is ${why.reason})` : ''}`);
    }
    entry = 'index.html';
    kind = 'folder';
  } else if (st.isFile()) {
    const real = realpathSync(abs);
    const why = outsideReason(real, realpathSync(dirname(abs)));
    // A link to an HTML file elsewhere is followed (folders of links to pages are a common way to pick a
    // sample); a link to anything else (/proc/self/environ, a key file) is refused. Only that one file is served.
    if (why && (!/\.html?$/i.test(real) || SYSTEM_TREES.some((t) => insideTree(real, t)))) throw new InputError(`${input}: is ${why}, and not to an HTML file; give the file itself`);
    root = dirname(real);
    entry = basename(abs);
    listed = [{ rel: entry, real }];
    kind = 'file';
  } else {
    throw new InputError(`${input}: not a regular file or folder`);
  }
  return { root, entry, kind, files: listed, refused };
}

/** Load an artifact from a path; throws InputError with one clear line for bad input. */
export function loadArtifact(input: string): Artifact {
  const { root, entry, kind, files: listed, refused } = listArtifact(input);
  const files = listed.map((l) => loadFile(l, l.rel === entry));
  return new LoadedArtifact(input, root, entry, kind, files, refused);
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

/**
 * Deepest element nesting kept in the static DOM (`dom`): Chrome's own HTML parser stops nesting at 512 levels
 * (kMaximumHTMLParserDOMTreeDepth) and so do we. Elements below an element at this depth are lifted into it, in
 * document order (their own children lifted with them), so a page nested 100 000 levels deep costs about as
 * much as one with 100 000 siblings. jsdom's insertion walks every ancestor of the node it inserts, so an
 * unbounded depth would make building the DOM quadratic in the depth (and overflow the stack). Blocks and
 * references (`sources`, `resources`) are read from the full, uncapped parse.
 */
export const MAX_DOM_DEPTH = 128;

type P5Node = DefaultTreeAdapterTypes.Node;
type P5Element = DefaultTreeAdapterTypes.Element;
type P5Parent = DefaultTreeAdapterTypes.ParentNode;

/**
 * parse5 as a browser with scripting parses (`<noscript>` content is text, as in Chrome, whose run we score),
 * with source locations.
 */
function parseTree(html: string): DefaultTreeAdapterTypes.Document {
  return parse5(html, { sourceCodeLocationInfo: true, scriptingEnabled: true });
}

const require = createRequire(import.meta.url);

/**
 * A jsdom of `html` parsed like `parseTree` (scripting on for the parser, no script ever run), without node
 * locations (those come from our own parse: jsdom's location tracking copies a parent's whole child list for
 * every text it inserts, quadratic in the number of siblings). jsdom has no option for a scripting parser that
 * runs no script, so the parser flag is set on the document before it parses (jsdom's own internals; a test
 * checks that `<noscript>` content stays text, so an upgrade that moves them fails there, not silently).
 */
function staticJsdom(html: string, url: string): JSDOM {
  return new JSDOM(html, {
    url,
    beforeParse(window) {
      try {
        const utils = require('jsdom/lib/generated/idl/utils.js') as { implForWrapper(w: unknown): { _parseOptions?: { scriptingEnabled?: boolean } } | null };
        const options = utils.implForWrapper(window.document)?._parseOptions;
        if (options) options.scriptingEnabled = true;
      } catch {
        /* another jsdom layout: noscript content is parsed as markup */
      }
    },
  });
}

const isElement = (n: P5Node): n is P5Element => 'tagName' in n;

/** The child lists below an element: its children, and a template's content. */
function childLists(n: P5Parent): P5Node[][] {
  const lists: P5Node[][] = [n.childNodes];
  if (isElement(n) && n.tagName === 'template' && 'content' in n) lists.push((n as DefaultTreeAdapterTypes.Template).content.childNodes);
  return lists;
}

/**
 * Every node below `root` in document order, without recursion (a page may nest 100 000 deep): each node is
 * passed to `visit`, and the walk goes on into its children. Template contents are not walked (as
 * `querySelectorAll('*')` and `textContent`). The one walk of parse5 trees behind forEachElement, p5Text and
 * used-features' element list.
 */
export function walkP5(root: P5Parent, visit: (n: P5Node) => void): void {
  const stack: Array<{ list: P5Node[]; i: number }> = [{ list: root.childNodes, i: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.list.length) {
      stack.pop();
      continue;
    }
    const n = top.list[top.i++]!;
    visit(n);
    if ('childNodes' in n && n.childNodes.length) stack.push({ list: n.childNodes, i: 0 });
  }
}

/** Every element below `root` in document order (as `querySelectorAll('*')`: template contents excluded). */
function forEachElement(root: P5Parent, fn: (el: P5Element) => void): void {
  walkP5(root, (n) => {
    if (isElement(n)) fn(n);
  });
}

/** Deepest element nesting below `root` (template contents included), without recursion. */
function treeDepth(root: P5Parent): number {
  let max = 0;
  const stack: Array<[P5Parent, number]> = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    for (const list of childLists(n)) for (const c of list) if (isElement(c)) stack.push([c, d + 1]);
  }
  return max;
}

/** Lift everything below elements at depth `cap` into them, in document order (see MAX_DOM_DEPTH). */
function capTreeDepth(root: P5Parent, cap: number): void {
  const stack: Array<[P5Parent, number]> = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d >= cap && isElement(n)) {
      const flat: DefaultTreeAdapterTypes.ChildNode[] = [];
      const walk: P5Node[][] = [];
      const pending: Array<{ list: P5Node[]; i: number }> = childLists(n).map((list) => ({ list, i: 0 })).reverse();
      while (pending.length) {
        const top = pending[pending.length - 1]!;
        if (top.i >= top.list.length) {
          pending.pop();
          continue;
        }
        const c = top.list[top.i++]!;
        flat.push(c as DefaultTreeAdapterTypes.ChildNode);
        if (isElement(c)) {
          const lists = childLists(c);
          walk.push(...lists);
          for (let k = lists.length - 1; k >= 0; k--) pending.push({ list: lists[k]!, i: 0 });
        }
      }
      for (const list of walk) list.length = 0;
      if (n.tagName === 'template' && 'content' in n) (n as DefaultTreeAdapterTypes.Template).content.childNodes.length = 0;
      n.childNodes = flat;
      for (const c of flat) (c as { parentNode: P5Parent | null }).parentNode = n;
      continue;
    }
    for (const list of childLists(n)) for (const c of list) if (isElement(c)) stack.push([c, d + 1]);
  }
}

/**
 * `html` with the text of its `<style>` elements removed (offsets from `tree`, its parse): jsdom parses every
 * style sheet into a CSS object model on insertion, and its CSS parser is quadratic in the number of at-rules
 * (8 000 `@font-face` rules took 7 s). No metric reads style sheets from the DOM; their text is in `sources`.
 */
function withoutStyleText(html: string, tree: DefaultTreeAdapterTypes.Document): string {
  const cuts: Array<[number, number]> = [];
  forEachElement(tree, (el) => {
    if (el.tagName !== 'style' || el.childNodes.length === 0) return;
    const loc = p5Loc(el);
    if (!loc?.startTag) return;
    cuts.push([loc.startTag.endOffset, loc.endTag ? loc.endTag.startOffset : html.length]);
  });
  if (cuts.length === 0) return html;
  let out = '';
  let at = 0;
  for (const [a, b] of cuts) {
    if (a < at) continue; // nested in an earlier cut (cannot happen for raw text, kept for safety)
    out += html.slice(at, a);
    at = b;
  }
  return out + html.slice(at);
}

/** jsdom and parse5 nodes of the same tree, side by side: the parse5 source locations of the jsdom nodes. */
function mapLocations(doc: Document, tree: DefaultTreeAdapterTypes.Document): WeakMap<Node, Parse5Location> {
  const map = new WeakMap<Node, Parse5Location>();
  const stack: Array<[Node, P5Node]> = [[doc, tree]];
  while (stack.length) {
    const [js, p5] = stack.pop()!;
    const loc = (p5 as { sourceCodeLocation?: Parse5Location | null }).sourceCodeLocation;
    if (loc) map.set(js, loc);
    const pairs: Array<[Node | null, P5Node[]]> = [[js.firstChild, 'childNodes' in p5 ? p5.childNodes : []]];
    if (isElement(p5) && p5.tagName === 'template' && 'content' in p5) pairs.push([(js as HTMLTemplateElement).content?.firstChild ?? null, (p5 as DefaultTreeAdapterTypes.Template).content.childNodes]);
    for (const [first, list] of pairs) {
      let c = first;
      for (const q of list) {
        if (!c || !sameNode(c, q)) break; // the trees part here (a re-parse anomaly): no locations below
        stack.push([c, q]);
        c = c.nextSibling;
      }
    }
  }
  return map;
}

function sameNode(js: Node, p5: P5Node): boolean {
  if (isElement(p5)) return js.nodeType === 1 && (js as Element).localName === p5.tagName;
  if (p5.nodeName === '#text') return js.nodeType === 3;
  if (p5.nodeName === '#comment') return js.nodeType === 8;
  if (p5.nodeName === '#documentType') return js.nodeType === 10;
  return false;
}

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
class LoadedArtifact implements Artifact {
  readonly html: string;
  readonly physicalLines: number;
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

const JS_TYPES = new Set([
  '', 'text/javascript', 'application/javascript', 'application/ecmascript', 'text/ecmascript', 'module',
  'text/jsx', 'application/x-javascript', 'text/x-javascript',
]);

/** Is a `<script type=...>` value JavaScript we should analyse? (`text/jsx` is not: see module comment.) */
export function isJsScriptType(type: string | null): boolean {
  const t = (type ?? '').trim().toLowerCase().split(';')[0]!.trim();
  return JS_TYPES.has(t) && t !== 'text/jsx';
}

/** parse5's source location of a node (jsdom's `nodeLocation` gives the same record). */
export interface Parse5Location {
  startLine: number;
  startCol: number;
  startOffset: number;
  endOffset: number;
  startTag?: { endOffset: number; startLine: number; startCol: number };
  endTag?: { startOffset: number };
  attrs?: Record<string, { startLine: number; startCol: number; startOffset: number; endOffset: number }>;
}

function p5Loc(el: P5Element): Parse5Location | null {
  return (el.sourceCodeLocation as Parse5Location | null | undefined) ?? null;
}

/** An attribute by qualified name, as `getAttribute` finds it (the tokenizer already lower-cased HTML names). */
function p5Attr(el: P5Element, name: string): string | null {
  for (const a of el.attrs) if ((a.prefix ? `${a.prefix}:${a.name}` : a.name) === name) return a.value;
  return null;
}

/** `textContent` of an element: the text of every descendant text node, in order. */
function p5Text(el: P5Element): string {
  let out = '';
  walkP5(el, (n) => {
    if (n.nodeName === '#text') out += (n as DefaultTreeAdapterTypes.TextNode).value;
  });
  return out;
}

/** Classify a URL as written in the artifact file `fromFile`, resolving local ones against that file. */
export function classifyUrl(url: string, fromFile: string, fileSet: ReadonlySet<string>): Pick<ResourceRef, 'location' | 'path' | 'exists'> {
  const u = url.trim();
  if (/^data:/i.test(u)) return { location: 'data' };
  if (u === '' || u.startsWith('#') || /^(blob|javascript|mailto|tel|about|chrome|sms):/i.test(u)) return { location: 'special' };
  if (/^(https?:)?\/\//i.test(u)) return { location: 'remote' };
  if (/^[a-z][a-z0-9+.-]*:/i.test(u)) return { location: 'special' }; // other schemes (file:, ws:, ...) handled by callers
  let p = u.split('#')[0]!.split('?')[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* keep as written */
  }
  const base = p.startsWith('/') ? '' : posix.dirname(fromFile);
  const joined = posix.normalize(posix.join(base === '.' ? '' : base, p.replace(/^\/+/, '')));
  if (joined === '..' || joined.startsWith('../')) return { location: 'local', path: null, exists: false };
  const path = joined === '.' ? '' : joined.replace(/^\.\//, '');
  const exists = fileSet.has(path) || (path.endsWith('/') ? fileSet.has(path + 'index.html') : false);
  return { location: 'local', path, exists };
}

function pushRef(resources: ResourceRef[], fileSet: ReadonlySet<string>, kind: ResourceKind, url: string, file: string, line: number): void {
  if (!url.trim()) return;
  resources.push({ kind, url, file, line, ...classifyUrl(url, file, fileSet) });
}

function srcsetUrls(srcset: string): string[] {
  return srcset
    .split(/,\s+/)
    .map((part) => part.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u.length > 0);
}

const LINK_KINDS: Record<string, ResourceKind> = {
  stylesheet: 'stylesheet', icon: 'icon', 'shortcut icon': 'icon', 'apple-touch-icon': 'icon', manifest: 'manifest',
  preload: 'preload', modulepreload: 'script', prefetch: 'preload',
};

/** Blocks and references of one HTML file, from its parse (elements in document order, templates excluded). */
function extractFromHtml(f: ArtifactFile, tree: DefaultTreeAdapterTypes.Document, fileSet: ReadonlySet<string>, sources: SourceBlock[], resources: ResourceRef[]): void {
  const html = f.text!;
  const idx = new LineIndex(html);
  const attrLine = (el: P5Element, name: string): number => {
    const loc = p5Loc(el);
    return loc?.attrs?.[name]?.startLine ?? loc?.startLine ?? 1;
  };

  forEachElement(tree, (el) => {
    const tag = el.tagName;
    // Inline script / style blocks
    if ((tag === 'script' && p5Attr(el, 'src') === null && isJsScriptType(p5Attr(el, 'type'))) || tag === 'style') {
      const loc = p5Loc(el);
      let text = p5Text(el);
      let start = loc?.startTag?.endOffset;
      if (loc?.startTag && loc.endTag) text = html.slice(loc.startTag.endOffset, loc.endTag.startOffset);
      if (start === undefined) start = loc?.startOffset ?? 0;
      const pos = idx.position(start);
      const language: SourceLanguage = tag === 'style' ? 'css' : 'js';
      const block: SourceBlock = { language, origin: 'inline', file: f.path, line: pos.line, column: pos.column, text };
      if (language === 'js') block.module = (p5Attr(el, 'type') ?? '').trim().toLowerCase() === 'module';
      sources.push(block);
    }
    // Attribute blocks
    for (const attr of el.attrs) {
      const name = (attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name).toLowerCase();
      if (name === 'style' || (name.startsWith('on') && name.length > 2)) {
        const loc = p5Loc(el)?.attrs?.[name];
        let line = loc?.startLine ?? 1;
        let column = loc?.startCol ?? 1;
        if (loc) {
          // Point at the value, not the attribute name: find the first quote after `name=`.
          const raw = html.slice(loc.startOffset, loc.endOffset);
          const eq = raw.indexOf('=');
          if (eq >= 0) {
            let off = eq + 1;
            while (off < raw.length && /\s/.test(raw[off]!)) off++;
            if (raw[off] === '"' || raw[off] === "'") off++;
            const p = idx.position(loc.startOffset + off);
            line = p.line;
            column = p.column;
          }
        }
        sources.push({
          language: name === 'style' ? 'css' : 'js',
          origin: 'attribute',
          file: f.path,
          line,
          column,
          text: attr.value,
          attribute: name,
        });
      }
    }
    // Resource references
    const ref = (kind: ResourceKind, attrName: string) => {
      const v = p5Attr(el, attrName);
      if (v !== null) pushRef(resources, fileSet, kind, v, f.path, attrLine(el, attrName));
    };
    switch (tag) {
      case 'img':
        ref('image', 'src');
        for (const u of srcsetUrls(p5Attr(el, 'srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
        break;
      case 'source': {
        const parent = el.parentNode && isElement(el.parentNode) ? el.parentNode.tagName : undefined;
        const kind: ResourceKind = parent === 'video' ? 'video' : parent === 'audio' ? 'audio' : 'image';
        ref(kind, 'src');
        for (const u of srcsetUrls(p5Attr(el, 'srcset') ?? '')) pushRef(resources, fileSet, 'image', u, f.path, attrLine(el, 'srcset'));
        break;
      }
      case 'video':
        ref('video', 'src');
        ref('image', 'poster');
        break;
      case 'audio':
        ref('audio', 'src');
        break;
      case 'track':
        ref('track', 'src');
        break;
      case 'script':
        ref('script', 'src');
        break;
      case 'iframe':
      case 'frame':
        ref('iframe', 'src');
        break;
      case 'embed':
        ref('object', 'src');
        break;
      case 'object':
        ref('object', 'data');
        break;
      case 'input':
        if ((p5Attr(el, 'type') ?? '').toLowerCase() === 'image') ref('image', 'src');
        break;
      case 'link': {
        const rel = (p5Attr(el, 'rel') ?? '').toLowerCase().trim();
        const kind = LINK_KINDS[rel] ?? (rel.split(/\s+/).includes('icon') ? 'icon' : rel.split(/\s+/).includes('stylesheet') ? 'stylesheet' : undefined);
        if (kind) ref(kind, 'href');
        break;
      }
      default:
        break;
    }
  });
}

const CSS_URL_RE = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]+))\s*\)/gi;
/** `@import "x"`, `@import 'x'`, `@import url(x)`, `@import url("x")`: a quoted URL may hold `;` (Google Fonts `wght@400;700`). */
const CSS_IMPORT_RE = /@import\s+(?:url\(\s*)?(?:"([^"]*)"|'([^']*)'|([^"')\s;]+))/gi;

function extractCssUrls(block: SourceBlock, fileSet: ReadonlySet<string>, resources: ResourceRef[]): void {
  const text = block.text;
  const idx = new LineIndex(text);
  const lineOf = (offset: number) => block.line + idx.position(offset).line - 1;
  // Track @font-face spans so their url()s are fonts.
  const fontSpans: Array<[number, number]> = [];
  for (const m of text.matchAll(/@font-face\s*\{[^}]*\}/gi)) fontSpans.push([m.index!, m.index! + m[0].length]);
  const importSpans: Array<[number, number]> = [];
  for (const m of text.matchAll(CSS_IMPORT_RE)) {
    importSpans.push([m.index!, m.index! + m[0].length]);
    pushRef(resources, fileSet, 'css-import', (m[1] ?? m[2] ?? m[3])!, block.file, lineOf(m.index!));
  }
  // Both span lists are in text order and do not overlap, and so are the matches: one pointer per list keeps
  // this linear in the number of url()s (a sheet with 20 000 @font-face rules is no worse than one).
  const inSpan = (spans: Array<[number, number]>) => {
    let i = 0;
    return (at: number) => {
      while (i < spans.length && spans[i]![1] <= at) i++;
      return i < spans.length && at >= spans[i]![0];
    };
  };
  const inImport = inSpan(importSpans);
  const inFontFace = inSpan(fontSpans);
  for (const m of text.matchAll(CSS_URL_RE)) {
    const at = m.index!;
    if (inImport(at)) continue;
    const url = m[1] ?? m[2] ?? m[3] ?? '';
    const kind: ResourceKind = inFontFace(at) ? 'font' : 'css-url';
    pushRef(resources, fileSet, kind, url, block.file, lineOf(at));
  }
}

/** Files of the artifact that are HTML, CSS or JS with text. */
export function codeFiles(artifact: Artifact): ArtifactFile[] {
  return artifact.files.filter((f) => f.text !== undefined && (f.kind === 'html' || f.kind === 'css' || f.kind === 'js'));
}
