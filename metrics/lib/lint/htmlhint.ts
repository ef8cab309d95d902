/** htmlhint over every HTML file of an artifact, raw text blanked first and omissible end tags forgiven. */
import type { Artifact } from '../../../core/artifact/model.js';
import { errorMessage } from '../../../core/errors.js';
import type { LintFinding, Skipped } from './findings.js';
import { HTMLHINT_RULES, OPTIONAL_END_TAGS } from './rules.js';

interface HtmlHintMessage {
  type: string;
  message: string;
  line: number;
  col: number;
  rule: { id: string };
}
interface HtmlHintApi {
  verify(html: string, rules: Record<string, unknown>): HtmlHintMessage[];
}

let htmlHint: Promise<HtmlHintApi> | undefined;

function loadHtmlHint(): Promise<HtmlHintApi> {
  htmlHint ??= (async () => {
    const specifier = 'htmlhint'; // CommonJS without type declarations
    const mod = (await import(specifier)) as { default: { HTMLHint: HtmlHintApi } };
    return mod.default.HTMLHint;
  })();
  return htmlHint;
}

/** A tag-pair finding that only misses end tags HTML allows to omit. */
export function onlyOptionalEndTagsMissing(message: string): boolean {
  const m = /missing: \[\s*(.*?)\s*\]/.exec(message);
  if (!m) return false;
  const tags = [...m[1]!.matchAll(/<\/\s*([\w-]+)\s*>/g)].map((x) => x[1]!.toLowerCase());
  return tags.length > 0 && tags.every((t) => OPTIONAL_END_TAGS.has(t));
}

/**
 * htmlhint reads tags inside `<textarea>` and `<title>` (raw text for the browser) as markup: blank their
 * content, keeping line breaks so that positions do not move.
 */
export function blankRawText(html: string): string {
  return html.replace(
    /(<(textarea|title)\b(?:[^>"']|"[^"]*"|'[^']*')*>)([\s\S]*?)(<\/\2\s*>)/gi,
    (_m, open: string, _tag: string, body: string, close: string) => open + body.replace(/[^\r\n]/g, ' ') + close,
  );
}

export async function lintHtml(artifact: Artifact, out: LintFinding[], skipped: Skipped[]): Promise<void> {
  const hint = await loadHtmlHint();
  for (const f of artifact.files) {
    if (f.kind !== 'html' || f.text === undefined || /\.(vue|svelte)$/i.test(f.path)) continue; // components: framework-eslint.ts
    let messages: HtmlHintMessage[];
    try {
      messages = hint.verify(blankRawText(f.text), HTMLHINT_RULES);
    } catch (err) {
      skipped.push({ tool: 'htmlhint', file: f.path, line: 1, column: 1, reason: errorMessage(err) });
      continue;
    }
    for (const m of messages) {
      if (m.type !== 'error') continue;
      if (m.rule.id === 'tag-pair' && onlyOptionalEndTagsMissing(m.message)) continue;
      out.push({ tool: 'htmlhint', rule: m.rule.id, file: f.path, line: m.line, column: m.col, message: m.message });
    }
  }
}
