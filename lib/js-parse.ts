/**
 * Parse a JS source block once and share the result between metrics (error handling, comment rate, resource
 * URLs, features). acorn parses standard JS; when a block does not parse (LLM pages often have syntax errors or
 * JSX), acorn-loose recovers a best-effort tree so that metrics still see the rest of the code; `recovered`
 * says so.
 *
 * Parse order: as a script (or module for `type="module"`), then the other source type, then loose. Event
 * handler attributes are parsed with `allowReturnOutsideFunction`.
 */
import * as acorn from 'acorn';
import * as acornLoose from 'acorn-loose';
import type { SourceBlock } from '../core/artifact/model.js';

export interface ParsedJs {
  ast: acorn.Program;
  comments: acorn.Comment[];
  /** True when acorn failed and acorn-loose produced the tree. */
  recovered: boolean;
  /** The first syntax error acorn reported, when recovered. */
  syntaxError?: { message: string; line: number; column: number };
  sourceType: 'script' | 'module';
}

const cache = new WeakMap<SourceBlock, ParsedJs>();

function tryParse(text: string, sourceType: 'script' | 'module', comments: acorn.Comment[]): acorn.Program {
  return acorn.parse(text, {
    ecmaVersion: 'latest',
    sourceType,
    locations: true,
    allowHashBang: true,
    allowReturnOutsideFunction: sourceType === 'script',
    allowAwaitOutsideFunction: true,
    onComment: comments,
  });
}

export function parseJsText(text: string, preferModule = false): ParsedJs {
  const order: Array<'script' | 'module'> = preferModule ? ['module', 'script'] : ['script', 'module'];
  let firstError: { message: string; line: number; column: number } | undefined;
  for (const sourceType of order) {
    const comments: acorn.Comment[] = [];
    try {
      return { ast: tryParse(text, sourceType, comments), comments, recovered: false, sourceType };
    } catch (err) {
      if (!firstError) {
        const e = err as Error & { loc?: { line: number; column: number } };
        firstError = { message: e.message, line: e.loc?.line ?? 1, column: (e.loc?.column ?? 0) + 1 };
      }
    }
  }
  const comments: acorn.Comment[] = [];
  const sourceType = order[0]!;
  const ast = acornLoose.parse(text, {
    ecmaVersion: 'latest',
    sourceType,
    locations: true,
    allowHashBang: true,
    onComment: comments,
  }) as acorn.Program;
  return { ast, comments, recovered: true, syntaxError: firstError, sourceType };
}

/** Parse a JS block, memoised per block object. Line numbers in the tree are relative to the block. */
export function parseJs(block: SourceBlock): ParsedJs {
  if (block.language !== 'js') throw new Error('parseJs: not a JS block');
  let parsed = cache.get(block);
  if (!parsed) {
    parsed = parseJsText(block.text, block.module === true);
    cache.set(block, parsed);
  }
  return parsed;
}

/** File line of a block-relative line. */
export function fileLine(block: SourceBlock, blockLine: number): number {
  return block.line + blockLine - 1;
}
