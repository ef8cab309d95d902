/**
 * What the console metrics share (console-errors, interaction-errors, render-validity): the errors a missing
 * library causes. When webgrade withheld a script the page loads (offline mode, or a CDN file the cache could not
 * serve), the errors it causes are webgrade's doing, not the page's (metrics/code/console-errors.ts says how they
 * are told apart).
 */

/** The error messages a missing library causes. */
export const MISSING_LIBRARY_ERROR =
  /\b(is not defined|is not a function|is not a constructor|Cannot read propert(y|ies) of (undefined|null)|Failed to fetch dynamically imported module|Failed to resolve module specifier|error loading dynamically imported module)\b/i;
