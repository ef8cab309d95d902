/**
 * JS and CSS coverage (BrowserEvidence.coverage), recorded from before navigation: V8 block coverage of the
 * artifact's scripts, and Chrome's CSS rule usage of its style sheets. Sources are named by artifact-relative
 * path, or `<file>#inline-<n>` (1-based, in document order) for a block inside an HTML file. Of a CSS rule never
 * used, the bytes whose selector matches something once user actions (`:hover`, `:focus`...) and pseudo-elements
 * are removed count as `interactionBytes`: used when someone uses the page.
 */
import type { Page } from 'puppeteer-core';
import type { Artifact } from '../../core/artifact/model.js';
import type { BrowserEvidence, CoverageEntry } from '../../core/browser-evidence.js';
import { cssStyleRules, ruleCoverage } from '../css-rules.js';
import { requestPath } from '../server.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';
import { evaluateInPage } from '../isolated-world.js';

interface StyleSheetHeader {
  styleSheetId: string;
  sourceURL: string;
  isInline: boolean;
  startLine: number;
  startColumn: number;
  isConstructed?: boolean;
  origin?: string;
}

type RuleUsage = Array<{ styleSheetId: string; startOffset: number; endOffset: number; used: boolean }>;
type Coverage = NonNullable<BrowserEvidence['coverage']>;

export class CoverageCollector implements VisitCollector<Coverage> {
  readonly field = 'coverage';
  readonly name = 'coverage';
  private readonly sheets = new Map<string, StyleSheetHeader>();

  start({ page, cdp, enableCss }: VisitContext): Promise<unknown> {
    cdp.on('CSS.styleSheetAdded', (e: { header: StyleSheetHeader }) => this.sheets.set(e.header.styleSheetId, e.header));
    return Promise.all([
      enableCss().then(() => cdp.send('CSS.startRuleUsageTracking')),
      page.coverage.startJSCoverage({ resetOnNavigation: false, reportAnonymousScripts: false, useBlockCoverage: true } as Parameters<
        Page['coverage']['startJSCoverage']
      >[0]),
    ]);
  }

  async collect(ctx: VisitContext): Promise<Coverage> {
    return { js: await jsCoverage(ctx), css: await this.cssCoverage(ctx) };
  }

  fill(ev: BrowserEvidence, coverage: Coverage | undefined): void {
    if (coverage) ev.coverage = coverage;
  }

  private async cssCoverage({ page, cdp, artifact, origin }: VisitContext): Promise<CoverageEntry[]> {
    const { ruleUsage } = (await cdp.send('CSS.stopRuleUsageTracking')) as { ruleUsage: RuleUsage };
    const usedBySheet = new Map<string, RuleUsage>();
    for (const r of ruleUsage) {
      if (!r.used) continue;
      const list = usedBySheet.get(r.styleSheetId) ?? [];
      list.push(r);
      usedBySheet.set(r.styleSheetId, list);
    }
    const own = [...this.sheets.values()]
      .filter((h) => (h.origin ?? 'regular') === 'regular' && !h.isConstructed && sourceName(h.sourceURL, origin) !== null)
      .sort((a, b) => a.startLine - b.startLine || a.startColumn - b.startColumn);
    const css: CoverageEntry[] = [];
    const inline = new InlineNames();
    const pending: Array<{ entry: CoverageEntry; selectors: Array<{ sel: string; bytes: number }> }> = [];
    for (const h of own) {
      const file = requestPath(h.sourceURL.slice(origin.length))!;
      // A <link> whose load was blocked leaves an empty non-inline sheet named after the document: skip it.
      if (!h.isInline && fileKind(artifact, file) === 'html') continue;
      const name = h.isInline ? inline.next(file) : file;
      let text = '';
      try {
        text = ((await cdp.send('CSS.getStyleSheetText', { styleSheetId: h.styleSheetId })) as { text: string }).text;
      } catch {
        continue; // the sheet went away (removed by a script)
      }
      const cov = ruleCoverage(cssStyleRules(text), usedBySheet.get(h.styleSheetId) ?? []);
      const entry: CoverageEntry = { source: name, totalBytes: cov.total, usedBytes: cov.used, interactionBytes: 0 };
      css.push(entry);
      const selectors: Array<{ sel: string; bytes: number }> = [];
      for (const r of cov.unused) {
        const free = interactionFreeSelector(r.selector);
        if (r.selector && free !== r.selector) selectors.push({ sel: free, bytes: r.end - r.start });
      }
      if (selectors.length) pending.push({ entry, selectors });
    }
    const flat = pending.flatMap((p) => p.selectors.map((s) => s.sel));
    if (flat.length) {
      const hits = await evaluateInPage(page, matchSelectors, flat.slice(0, 5000));
      let i = 0;
      for (const p of pending) {
        for (const s of p.selectors) {
          if (hits[i++]) p.entry.interactionBytes! += s.bytes;
        }
      }
    }
    return css;
  }
}

async function jsCoverage({ page, artifact, origin }: VisitContext): Promise<CoverageEntry[]> {
  const js: CoverageEntry[] = [];
  const inline = new InlineNames();
  for (const e of await page.coverage.stopJSCoverage()) {
    const path = sourceName(e.url, origin);
    if (path === null) continue;
    const file = requestPath(e.url.slice(origin.length))!;
    // A script whose text differs from the served file is an inline block of that (HTML) file.
    const name = fileKind(artifact, file) === 'html' ? inline.next(file) : path;
    const used = e.ranges.reduce((s, r) => s + (r.end - r.start), 0);
    js.push({ source: name, totalBytes: e.text.length, usedBytes: used });
  }
  return js;
}

/** Names `<file>#inline-<n>` for the inline blocks of each file, in the order they are asked for. */
class InlineNames {
  private readonly counts = new Map<string, number>();
  next(file: string): string {
    const n = (this.counts.get(file) ?? 0) + 1;
    this.counts.set(file, n);
    return `${file}#inline-${n}`;
  }
}

function fileKind(artifact: Artifact, file: string): string | undefined {
  return artifact.files.find((x) => x.path === file)?.kind;
}

/** The artifact-relative path a coverage source was served from; null when it is not the artifact's. */
function sourceName(url: string, origin: string): string | null {
  if (!url.startsWith(origin + '/')) return null;
  return requestPath(url.slice(origin.length));
}

/** Runs in the page: which of the given selectors (dynamic pseudo-classes already removed) match something. */
function matchSelectors(selectors: string[]): boolean[] {
  return selectors.map((s) => {
    try {
      return s !== '' && document.querySelector(s) !== null;
    } catch {
      return false;
    }
  });
}

const USER_ACTION_PSEUDO =
  /:(hover|focus|focus-visible|focus-within|active|visited|target|checked|invalid|valid|user-invalid|user-valid|placeholder-shown|disabled|enabled|indeterminate|default|autofill)\b(\([^)]*\))?|::?(selection|placeholder|before|after|marker|backdrop|file-selector-button|first-letter|first-line|-webkit-[\w-]+|-moz-[\w-]+)\b/gi;

/** A selector list with user-action and pseudo-element parts removed (`a:hover` → `a`), for matching in the page. */
export function interactionFreeSelector(selector: string): string {
  return selector
    .split(',')
    .map((s) => s.replace(USER_ACTION_PSEUDO, '').trim())
    .map((s) => (s === '' || /[>+~]$/.test(s) ? '*' : s))
    .join(', ');
}
