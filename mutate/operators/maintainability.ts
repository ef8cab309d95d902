/**
 * Operators for the maintainability perspective: comment-rate, dead-code and code-redundancy.
 */
import { applied, notApplicable, type MutationOperator } from '../operator.js';
import type { Mutation } from '../page.js';

/** Remove one comment spanning [start, end) of `text`: a space stays when it separated two tokens. */
function removeComment(edit: Mutation, file: string, text: string, start: number, end: number): void {
  const before = text[start - 1];
  const after = text[end];
  const glue = before !== undefined && after !== undefined && !/\s/.test(before) && !/\s/.test(after);
  if (glue) edit.ms(file).overwrite(start, end, ' ');
  else edit.ms(file).remove(start, end);
}

/** Every HTML, CSS and JS comment removed. */
export const stripComments: MutationOperator = {
  id: 'strip-comments',
  targets: ['comment-rate'],
  collateral: ['dead-code'],
  description: 'every HTML comment, CSS comment and JS comment of the artifact removed',
  apply(page, edit) {
    let html = 0;
    let css = 0;
    let js = 0;
    // HTML comments of the entry page (DOM comment nodes, with their source spans)
    const it = page.doc.createNodeIterator(page.doc, 128 /* NodeFilter.SHOW_COMMENT */);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      const loc = page.loc(n);
      if (!loc) continue;
      removeComment(edit, page.entry, page.html, loc.startOffset, loc.endOffset);
      html++;
    }
    for (const block of page.cssBlocks()) {
      if (!page.writable(block.file)) continue;
      page.css(block)?.walkComments((c) => {
        const s = c.source?.start?.offset;
        const e = c.source?.end?.offset;
        if (s === undefined || e === undefined) return;
        removeComment(edit, block.file, page.text(block.file), block.offset + s, block.offset + e);
        css++;
      });
    }
    for (const block of page.jsBlocks()) {
      if (!page.writable(block.file)) continue;
      const parsed = page.js(block);
      if (parsed.recovered) continue;
      for (const c of parsed.comments) {
        removeComment(edit, block.file, page.text(block.file), block.offset + c.start, block.offset + c.end);
        js++;
      }
    }
    // without comments comment-rate is already at its formula's floor (c = 0: 60) and no edit can lower it
    if (html + css + js === 0) return notApplicable('the artifact has no comments (comment-rate is at its floor, 60)');
    return applied(`removed ${html} HTML, ${css} CSS and ${js} JS comments`);
  },
};

/** Bytes of dead code added: above Lighthouse's thresholds (10 KiB unused CSS, 20 KiB unused JS per file). */
export const DEAD_CSS_BYTES = 16 * 1024;
export const DEAD_JS_BYTES = 24 * 1024;

/** Style rules whose selectors match nothing on the page, on one line. */
export function deadCss(bytes = DEAD_CSS_BYTES): string {
  const rules: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const r = `.webgrade-mutant-unused-${i}{margin:${i % 7}px;color:#${(0x102030 + i * 97).toString(16).slice(-6)}}`;
    rules.push(r);
    size += r.length;
  }
  return rules.join('');
}

/** A function that nothing calls, on one line. */
export function deadJs(bytes = DEAD_JS_BYTES): string {
  const parts = ['function webgradeMutantUnused(){var t=[];'];
  let size = parts[0]!.length;
  for (let i = 0; size < bytes; i++) {
    const s = `t.push(${i}*2+1);`;
    parts.push(s);
    size += s.length;
  }
  parts.push('return t;}');
  return parts.join('');
}

export const deadCssOperator: MutationOperator = {
  id: 'dead-css',
  targets: ['dead-code', 'code-redundancy'],
  description: `a <style> in <head> with ${DEAD_CSS_BYTES / 1024} KiB of rules that match nothing (on one line)`,
  apply(_page, edit) {
    edit.insertInHead(`<style>${deadCss()}</style>`);
    return applied(`inserted ${DEAD_CSS_BYTES / 1024} KiB of unused CSS rules in <head>`);
  },
};

export const deadJsOperator: MutationOperator = {
  id: 'dead-js',
  targets: ['dead-code', 'code-redundancy'],
  description: `a script at the end of <body> defining a ${DEAD_JS_BYTES / 1024} KiB function that nothing calls (on one line)`,
  apply(_page, edit) {
    edit.insertAtBodyEnd(`<script>${deadJs()}</script>`);
    return applied(`inserted a ${DEAD_JS_BYTES / 1024} KiB function that is never called before </body>`);
  },
};

export const MAINTAINABILITY_OPERATORS: readonly MutationOperator[] = [stripComments, deadCssOperator, deadJsOperator];
