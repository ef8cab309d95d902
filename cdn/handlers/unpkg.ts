/** unpkg (`unpkg.com`): package files, and ES module builds for `?module`. */
import type { CdnBudget } from '../budget.js';
import { splitPackagePath, UnsupportedError, type Body, type CdnContext } from './context.js';
import { packageFile } from './files.js';
import { esmEntry } from './modules.js';

/** `/<pkg>@<range>[/<file>]`, `@v1.2.3` tolerated; `?module` → an ES module build with `?module` imports. */
export function unpkg(ctx: CdnContext, url: URL, budget: CdnBudget): Promise<Body> {
  const sp = splitPackagePath(url.pathname.slice(1));
  if (!sp || !sp.name) throw new UnsupportedError(`unsupported unpkg URL form ${url.pathname}`);
  if (url.searchParams.has('meta')) throw new UnsupportedError('?meta listings are not served');
  if (sp.rest !== null && sp.rest.endsWith('/')) throw new UnsupportedError(`directory listings are not served (${url.pathname})`);
  const range = sp.range === null ? null : sp.range.replace(/^v(?=\d+\.\d+\.\d+)/, '');
  if (url.searchParams.has('module')) return esmEntry(ctx, 'unpkg', sp.name, range, sp.rest || null, {}, url, budget);
  return packageFile(ctx, 'unpkg', sp.name, range, sp.rest, budget);
}
