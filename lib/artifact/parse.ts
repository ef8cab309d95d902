/**
 * Parsing the HTML: parse5 as a browser with scripting parses it (linear in the page), the walk of its trees
 * without recursion, the depth cap, and the static DOM (jsdom) built from the same text.
 */
import { createRequire } from 'node:module';
import { JSDOM } from 'jsdom';
import { parse as parse5, type DefaultTreeAdapterTypes } from 'parse5';

/**
 * Deepest element nesting kept in the static DOM (`dom`): Chrome's own HTML parser stops nesting at 512 levels
 * (kMaximumHTMLParserDOMTreeDepth) and so do we. Elements below an element at this depth are lifted into it, in
 * document order (their own children lifted with them), so a page nested 100 000 levels deep costs about as
 * much as one with 100 000 siblings. jsdom's insertion walks every ancestor of the node it inserts, so an
 * unbounded depth would make building the DOM quadratic in the depth (and overflow the stack). Blocks and
 * references (`sources`, `resources`) are read from the full, uncapped parse.
 */
export const MAX_DOM_DEPTH = 128;

export type P5Node = DefaultTreeAdapterTypes.Node;
export type P5Element = DefaultTreeAdapterTypes.Element;
export type P5Parent = DefaultTreeAdapterTypes.ParentNode;

/**
 * parse5 as a browser with scripting parses (`<noscript>` content is text, as in Chrome, whose run we score),
 * with source locations.
 */
export function parseTree(html: string): DefaultTreeAdapterTypes.Document {
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
export function staticJsdom(html: string, url: string): JSDOM {
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

export const isElement = (n: P5Node): n is P5Element => 'tagName' in n;

/** The child lists below an element: its children, and a template's content. */
export function childLists(n: P5Parent): P5Node[][] {
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
export function forEachElement(root: P5Parent, fn: (el: P5Element) => void): void {
  walkP5(root, (n) => {
    if (isElement(n)) fn(n);
  });
}

/** Deepest element nesting below `root` (template contents included), without recursion. */
export function treeDepth(root: P5Parent): number {
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
export function capTreeDepth(root: P5Parent, cap: number): void {
  const stack: Array<[P5Parent, number]> = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d >= cap && isElement(n)) {
      const flat: DefaultTreeAdapterTypes.ChildNode[] = [];
      const walk: P5Node[][] = [];
      const pending: Array<{ list: P5Node[]; i: number }> = childLists(n)
        .map((list) => ({ list, i: 0 }))
        .reverse();
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
export function withoutStyleText(html: string, tree: DefaultTreeAdapterTypes.Document): string {
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
export function mapLocations(doc: Document, tree: DefaultTreeAdapterTypes.Document): WeakMap<Node, Parse5Location> {
  const map = new WeakMap<Node, Parse5Location>();
  const stack: Array<[Node, P5Node]> = [[doc, tree]];
  while (stack.length) {
    const [js, p5] = stack.pop()!;
    const loc = (p5 as { sourceCodeLocation?: Parse5Location | null }).sourceCodeLocation;
    if (loc) map.set(js, loc);
    const pairs: Array<[Node | null, P5Node[]]> = [[js.firstChild, 'childNodes' in p5 ? p5.childNodes : []]];
    if (isElement(p5) && p5.tagName === 'template' && 'content' in p5)
      pairs.push([(js as HTMLTemplateElement).content?.firstChild ?? null, (p5 as DefaultTreeAdapterTypes.Template).content.childNodes]);
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

export function p5Loc(el: P5Element): Parse5Location | null {
  return (el.sourceCodeLocation as Parse5Location | null | undefined) ?? null;
}

/** An attribute by qualified name, as `getAttribute` finds it (the tokenizer already lower-cased HTML names). */
export function p5Attr(el: P5Element, name: string): string | null {
  for (const a of el.attrs) if ((a.prefix ? `${a.prefix}:${a.name}` : a.name) === name) return a.value;
  return null;
}

/** `textContent` of an element: the text of every descendant text node, in order. */
export function p5Text(el: P5Element): string {
  let out = '';
  walkP5(el, (n) => {
    if (n.nodeName === '#text') out += (n as DefaultTreeAdapterTypes.TextNode).value;
  });
  return out;
}
