/**
 * The CDN cache and resolver: answers requests for well-known CDN URLs (jsDelivr, unpkg, cdnjs, esm.sh, esm.run,
 * Skypack, Google Fonts, Font Awesome, Tailwind's Play CDN) from a local content-addressed cache filled from the
 * npm registry. See cdn-cache.ts for the URL forms and answers (handlers/ for each host's), store.ts for the cache
 * layout and concurrency.
 */
export { isCdnHost, CDN_HOSTS } from './hosts.js';
export { CdnCache, DEFAULT_MAX_BYTES, DEFAULT_MAX_PACKAGE_BYTES, DEFAULT_TIMEOUT_MS, type CdnAnswer, type CdnOptions, type CdnRequest } from './cdn-cache.js';
export { defaultCacheDir, NOT_FOUND_PIN_MS } from './store.js';
export {
  CdnBudget,
  DEFAULT_PAGE_PACKAGES,
  DEFAULT_PAGE_REGISTRY_BYTES,
  DEFAULT_PAGE_STORED_BYTES,
  DEFAULT_RUN_REGISTRY_BYTES,
  type BudgetLimits,
} from './budget.js';
export { configuredRegistry, DEFAULT_MAX_INFLATED_BYTES } from './registry.js';
export { findPages, scanPage, prefetchUrls, referencedUrls, type PageScan, type UrlResult } from './prefetch.js';
