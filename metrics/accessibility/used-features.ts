/**
 * Which web platform features a page uses, named by their `@mdn/browser-compat-data` (BCD) paths, for the
 * cross-browser metric. Derived from evidence (pure): the artifact's own CSS and JS sources, and the rendered
 * DOM from the browser session when there is one (else the static DOM, which the result says).
 *
 * - CSS (postcss with the safe parser, so broken CSS still yields what parses): every declaration's property
 *   (`css.properties.<prop>`), each keyword of its value that BCD lists under the property
 *   (`css.properties.display.grid`), each function of a value (`css.types.<fn>`, also
 *   `css.types.color.<fn>` and `css.types.image.gradient.<fn>`), each at-rule (`css.at-rules.<name>`), and each
 *   pseudo-class/element of a selector (`css.selectors.<name>`). Everything inside `@supports` is **guarded**:
 *   the page tests for it first, so it is listed apart and not held against the page.
 * - HTML: each element of the rendered DOM (`html.elements.<tag>`) and each of its attributes, as the element's
 *   own (`html.elements.<tag>.<attr>`) or a global attribute (`html.global_attributes.<attr>`). `data-*`,
 *   `aria-*` and event-handler attributes are not features of their own.
 * - JS (acorn AST of the artifact's own scripts): global identifiers that are BCD interfaces or builtins
 *   (`new IntersectionObserver`, `structuredClone(...)`, `Promise.any`), members of well-known global objects
 *   (`navigator.clipboard.writeText` → `api.Navigator.clipboard`, `api.Clipboard.writeText`;
 *   `document.startViewTransition` → `api.Document.startViewTransition`), and static members of builtins
 *   (`Object.groupBy`, `Array.fromAsync`). Methods called on values of unknown type (`arr.toSorted()`) cannot
 *   be attributed to one interface without types and are not counted (documented limit).
 *   A JS feature is **guarded** when the page feature-detects it anywhere: `typeof X`, `'x' in obj`, `obj.x &&`,
 *   `if (obj.x)`, `obj?.x`, or a `try` block around its use.
 * font-family (and the `font` shorthand) values are not features: a font stack falls back by design.
 * Vendor-prefixed CSS (`-webkit-…`) and unknown names are skipped and counted as "not in BCD".
 */
import postcss, { type AtRule, type Declaration, type Rule } from 'postcss';
import safeParser from 'postcss-safe-parser';
import valueParser from 'postcss-value-parser';
import selectorParser from 'postcss-selector-parser';
import * as walk from 'acorn-walk';
import { createRequire } from 'node:module';
import { parse as parseHtml } from 'parse5';
import type { Artifact } from '../../core/artifact/model.js';
import { walkP5 } from '../../lib/artifact/parse.js';
import { parseJs } from '../../lib/js-parse.js';

export interface FeatureUse {
  /** BCD path, e.g. "css.properties.display.grid". */
  path: string;
  /** Where it is used first: file:line, or "DOM". */
  where: string;
  guarded: boolean;
}

export interface UsedFeatureSet {
  features: FeatureUse[];
  /** Names that look like features but BCD does not know (skipped), up to 50. */
  unknown: string[];
  domSource: 'rendered' | 'static';
}

export type BcdNode = Record<string, unknown> & { __compat?: unknown };

const GLOBAL_OBJECTS: Record<string, string> = {
  window: 'Window',
  self: 'Window',
  globalThis: 'Window',
  document: 'Document',
  navigator: 'Navigator',
  location: 'Location',
  history: 'History',
  screen: 'Screen',
  performance: 'Performance',
  crypto: 'Crypto',
  localStorage: 'Storage',
  sessionStorage: 'Storage',
  indexedDB: 'IDBFactory',
  caches: 'CacheStorage',
  visualViewport: 'VisualViewport',
  speechSynthesis: 'SpeechSynthesis',
  customElements: 'CustomElementRegistry',
  console: 'console',
};
/** Members of navigator/document/window whose value is itself an interface with members of its own. */
const MEMBER_INTERFACES: Record<string, string> = {
  'Navigator.clipboard': 'Clipboard',
  'Navigator.serviceWorker': 'ServiceWorkerContainer',
  'Navigator.geolocation': 'Geolocation',
  'Navigator.mediaDevices': 'MediaDevices',
  'Navigator.permissions': 'Permissions',
  'Navigator.storage': 'StorageManager',
  'Navigator.credentials': 'CredentialsContainer',
  'Navigator.bluetooth': 'Bluetooth',
  'Navigator.usb': 'USB',
  'Navigator.serial': 'Serial',
  'Navigator.hid': 'HID',
  'Navigator.locks': 'LockManager',
  'Navigator.wakeLock': 'WakeLock',
  'Navigator.xr': 'XRSystem',
  'Navigator.gpu': 'GPU',
  'Navigator.share': '',
  'Document.fonts': 'FontFaceSet',
  'Window.speechSynthesis': 'SpeechSynthesis',
  'Window.crypto': 'Crypto',
  'Crypto.subtle': 'SubtleCrypto',
};
const SKIP_ATTR = /^(data-|aria-|on[a-z]+$|xmlns)/;

let bcdPromise: Promise<BcdNode> | undefined;
/** BCD, loaded once per process (it is a large JSON). */
export function loadBcd(): Promise<BcdNode> {
  // require(): the package's ESM entry imports its JSON without the import attribute Node 20 insists on
  bcdPromise ??= Promise.resolve(createRequire(import.meta.url)('@mdn/browser-compat-data') as BcdNode);
  return bcdPromise;
}

export function bcdAt(bcd: BcdNode, path: string): BcdNode | undefined {
  let node: unknown = bcd;
  for (const part of path.split('.')) {
    if (!node || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node && typeof node === 'object' && (node as BcdNode).__compat ? (node as BcdNode) : undefined;
}

class Collector {
  readonly uses = new Map<string, FeatureUse>();
  readonly unknown = new Set<string>();
  constructor(private readonly bcd: BcdNode) {}

  /** Record the first of `paths` that BCD knows; else note `name` as unknown. */
  add(paths: string[], where: string, guarded: boolean, name?: string): boolean {
    for (const path of paths) {
      if (!bcdAt(this.bcd, path)) continue;
      const prev = this.uses.get(path);
      if (!prev) this.uses.set(path, { path, where, guarded });
      else if (prev.guarded && !guarded) prev.guarded = false;
      return true;
    }
    if (name && this.unknown.size < 50) this.unknown.add(name);
    return false;
  }
}

function cssFeatures(c: Collector, text: string, where: (line: number) => string, inlineDeclarations: boolean): void {
  let root: postcss.Root;
  try {
    root = (inlineDeclarations ? safeParser(`x{${text}}`) : safeParser(text)) as postcss.Root;
  } catch {
    return;
  }
  const guardedNode = (n: postcss.Node): boolean => {
    for (let p = n.parent; p; p = p.parent) if (p.type === 'atrule' && (p as AtRule).name.toLowerCase() === 'supports') return true;
    return false;
  };
  root.walkAtRules((a: AtRule) => {
    const name = a.name.toLowerCase();
    if (name.startsWith('-')) return;
    c.add([`css.at-rules.${name}`], where(a.source?.start?.line ?? 1), guardedNode(a), `@${name}`);
  });
  root.walkDecls((d: Declaration) => {
    const prop = d.prop.toLowerCase();
    if (prop.startsWith('--') || prop.startsWith('-')) return;
    const at = where(d.source?.start?.line ?? 1);
    const guarded = guardedNode(d);
    if (!c.add([`css.properties.${prop}`], at, guarded, prop)) return;
    // font-family values are a fallback list by design: an unsupported family just falls through to the next
    if (prop === 'font-family' || prop === 'font') return;
    valueParser(d.value).walk((node) => {
      if (node.type === 'word' && /^[a-z][a-z-]*$/i.test(node.value)) c.add([`css.properties.${prop}.${node.value.toLowerCase()}`], at, guarded);
      if (node.type === 'function' && node.value) {
        const fn = node.value.toLowerCase();
        if (fn.startsWith('-') || fn === 'var' || fn === 'url') return;
        c.add(
          [
            `css.properties.${prop}.${fn}`,
            `css.types.${fn}`,
            `css.types.color.${fn}`,
            `css.types.image.gradient.${fn}`,
            `css.types.image.${fn}`,
            `css.types.transform-function.${fn}`,
            `css.types.easing-function.${fn}`,
            `css.types.filter-function.${fn}`,
          ],
          at,
          guarded,
          `${fn}()`,
        );
      }
    });
  });
  root.walkRules((r: Rule) => {
    if (inlineDeclarations) return;
    const at = where(r.source?.start?.line ?? 1);
    const guarded = guardedNode(r);
    try {
      selectorParser((sel) => {
        sel.walkPseudos((p) => {
          const name = p.value.replace(/^:+/, '').toLowerCase();
          if (name.startsWith('-')) return;
          c.add([`css.selectors.${name}`], at, guarded, p.value);
        });
      }).processSync(r.selector);
    } catch {
      /* an unparsable selector is the lint metric's business */
    }
  });
}

/** An element as `htmlFeatures` reads it: lower-case tag, namespace, attributes by qualified name. */
interface ElementInfo {
  tag: string;
  namespace: string | null;
  attrs: Array<{ name: string; value: string }>;
}

function htmlFeatures(c: Collector, elements: Iterable<ElementInfo>): void {
  for (const el of elements) {
    const tag = el.tag;
    if (tag.includes('-') || el.namespace !== 'http://www.w3.org/1999/xhtml') continue;
    c.add([`html.elements.${tag}`], 'DOM', false, `<${tag}>`);
    for (const attr of el.attrs) {
      const name = attr.name.toLowerCase();
      if (SKIP_ATTR.test(name)) continue;
      c.add([`html.elements.${tag}.${name}`, `html.global_attributes.${name}`], 'DOM', false);
      if (tag === 'input' && name === 'type') c.add([`html.elements.input.type_${attr.value.toLowerCase()}`], 'DOM', false);
    }
  }
}

/** The elements of a jsdom document, in document order (template contents excluded). */
function* jsdomElements(doc: Document): Iterable<ElementInfo> {
  for (const el of Array.from(doc.querySelectorAll('*'))) {
    yield { tag: el.tagName.toLowerCase(), namespace: el.namespaceURI, attrs: Array.from(el.attributes, (a) => ({ name: a.name, value: a.value })) };
  }
}

/**
 * The elements of an HTML text as jsdom would parse it (scripting off), read from parse5's tree without
 * building a DOM: the rendered DOM can be megabytes, and jsdom's cost per node grows with its depth (and its
 * style sheet parser is quadratic in at-rules), while this walk is linear and runs on the main thread.
 */
function parsedElements(html: string): ElementInfo[] {
  const out: ElementInfo[] = [];
  walkP5(parseHtml(html, { scriptingEnabled: false }), (n) => {
    if ('tagName' in n)
      out.push({
        tag: n.tagName.toLowerCase(),
        namespace: n.namespaceURI,
        attrs: n.attrs.map((a) => ({ name: a.prefix ? `${a.prefix}:${a.name}` : a.name, value: a.value })),
      });
  });
  return out;
}

/** `file:line` of an offset in a block, by binary search over its line starts (only `\n` ends a line here). */
function lineFinder(block: { file: string; line: number; text: string }): (pos: number) => string {
  const breaks: number[] = [];
  for (let i = block.text.indexOf('\n'); i >= 0; i = block.text.indexOf('\n', i + 1)) breaks.push(i);
  return (pos) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return `${block.file}:${block.line + lo}`;
  };
}

interface Node {
  type: string;
  start: number;
  end: number;
  [k: string]: unknown;
}

function jsFeatures(c: Collector, artifact: Artifact, bcd: BcdNode): void {
  const api = (bcd.api ?? {}) as Record<string, unknown>;
  const builtins = ((bcd.javascript as BcdNode | undefined)?.builtins ?? {}) as Record<string, unknown>;
  for (const block of artifact.sources.filter((b) => b.language === 'js')) {
    const parsed = parseJs(block);
    if (!parsed.ast) continue;
    const lineOf = lineFinder(block);
    // Names the code feature-detects anywhere (see the module comment).
    const detected = new Set<string>();
    const tryRanges: Array<[number, number]> = [];
    const ast = parsed.ast as unknown as Node;
    const noteTest = (n: Node | null | undefined) => {
      if (!n) return;
      walk.simple(
        n as never,
        {
          MemberExpression(m: Node) {
            const p = m.property as Node;
            if (p.type === 'Identifier') detected.add(String(p.name));
          },
          Identifier(i: Node) {
            detected.add(String(i.name));
          },
        } as never,
      );
    };
    walk.simple(
      ast as never,
      {
        UnaryExpression(n: Node) {
          if (n.operator === 'typeof') noteTest(n.argument as Node);
        },
        BinaryExpression(n: Node) {
          const l = n.left as Node;
          if (n.operator === 'in' && l.type === 'Literal') detected.add(String(l.value));
        },
        IfStatement(n: Node) {
          noteTest(n.test as Node);
        },
        ConditionalExpression(n: Node) {
          noteTest(n.test as Node);
        },
        LogicalExpression(n: Node) {
          noteTest(n.left as Node);
        },
        ChainExpression(n: Node) {
          noteTest(n.expression as Node);
        },
        TryStatement(n: Node) {
          const b = n.block as Node;
          tryRanges.push([b.start, b.end]);
        },
      } as never,
    );
    const guarded = (name: string, pos: number) => detected.has(name) || tryRanges.some(([s, e]) => pos >= s && pos < e);

    const memberChain = (n: Node): string[] | null => {
      const out: string[] = [];
      let cur: Node = n;
      while (cur.type === 'MemberExpression') {
        const p = cur.property as Node;
        if (cur.computed || p.type !== 'Identifier') return null;
        out.unshift(String(p.name));
        cur = cur.object as Node;
      }
      if (cur.type !== 'Identifier') return null;
      out.unshift(String(cur.name));
      return out;
    };
    const seenMembers = new Set<Node>();
    walk.fullAncestor(ast as never, (node: unknown, _state: unknown, ancestors: unknown[]) => {
      const n = node as Node;
      if (n.type === 'MemberExpression' && !seenMembers.has(n)) {
        // only the outermost member expression of a chain
        const parent = ancestors[ancestors.length - 2] as Node | undefined;
        if (parent?.type === 'MemberExpression' && parent.object === n) return;
        let m: Node | undefined = n;
        while (m && m.type === 'MemberExpression') {
          seenMembers.add(m);
          m = m.object as Node;
        }
        const chain = memberChain(n);
        if (!chain) return;
        const [root, first, second] = chain;
        const at = lineOf(n.start);
        const g = chain.some((x) => guarded(x, n.start));
        let iface = GLOBAL_OBJECTS[root!];
        let rest = chain.slice(1);
        if (iface === 'Window' && first && Object.prototype.hasOwnProperty.call(GLOBAL_OBJECTS, first)) {
          iface = GLOBAL_OBJECTS[first];
          rest = chain.slice(2);
        }
        if (iface) {
          if (iface === 'console') {
            if (rest[0]) c.add([`api.console.${rest[0]}`], at, g);
            return;
          }
          if (rest[0]) {
            c.add([`api.${iface}.${rest[0]}`], at, g);
            const inner = MEMBER_INTERFACES[`${iface}.${rest[0]}`];
            if (inner && rest[1]) c.add([`api.${inner}.${rest[1]}`], at, g);
          }
          return;
        }
        if (root && Object.prototype.hasOwnProperty.call(builtins, root) && first) {
          c.add([`javascript.builtins.${root}.${first}`], at, g);
          return;
        }
        if (root && /^[A-Z]/.test(root) && Object.prototype.hasOwnProperty.call(api, root) && first && !second)
          c.add([`api.${root}.${first}`, `api.${root}`], at, g);
        return;
      }
      if (n.type === 'Identifier') {
        const parent = ancestors[ancestors.length - 2] as Node | undefined;
        if (
          parent &&
          ((parent.type === 'MemberExpression' && parent.property === n && !parent.computed) ||
            (parent.type === 'Property' && parent.key === n) ||
            (parent.type === 'VariableDeclarator' && parent.id === n))
        )
          return;
        const name = String(n.name);
        if (!/^[A-Za-z]/.test(name)) return;
        const at = lineOf(n.start);
        if (
          Object.prototype.hasOwnProperty.call(api, name) &&
          (/^[A-Z]/.test(name) ||
            [
              'fetch',
              'structuredClone',
              'queueMicrotask',
              'requestIdleCallback',
              'requestAnimationFrame',
              'setTimeout',
              'setInterval',
              'atob',
              'btoa',
              'reportError',
              'createImageBitmap',
            ].includes(name))
        )
          c.add([`api.${name}`], at, guarded(name, n.start));
        else if (Object.prototype.hasOwnProperty.call(builtins, name) && /^[A-Z]/.test(name))
          c.add([`javascript.builtins.${name}`], at, guarded(name, n.start));
      }
    });
  }
}

/** The features a page uses (see the module comment). */
export async function usedFeatures(artifact: Artifact, renderedDomHtml?: string): Promise<UsedFeatureSet> {
  const bcd = await loadBcd();
  const c = new Collector(bcd);
  for (const block of artifact.sources.filter((b) => b.language === 'css')) {
    cssFeatures(c, block.text, (line) => `${block.file}:${block.line + line - 1}`, block.origin === 'attribute' || block.attribute === 'style');
  }
  let domSource: UsedFeatureSet['domSource'] = 'static';
  if (renderedDomHtml) {
    htmlFeatures(c, parsedElements(renderedDomHtml));
    domSource = 'rendered';
  } else htmlFeatures(c, jsdomElements(artifact.dom.window.document));
  jsFeatures(c, artifact, bcd);
  return { features: [...c.uses.values()], unknown: [...c.unknown], domSource };
}
