/**
 * The 24 metrics of SPEC.md, in SPEC order, whether or not they are implemented yet. Weighting and
 * aggregation (`weights/`) work over this catalogue, so that every weight vector covers all 24 metrics; the
 * registry (`metrics/registry.ts`) lists the modules that actually score.
 */
import type { EvidenceNeed, MetricKind, PerspectiveId } from './types.js';

export interface CatalogEntry {
  number: number;
  id: string;
  perspective: PerspectiveId;
  kind: MetricKind;
  needs: readonly EvidenceNeed[];
  title: string;
  /** One plain sentence, used in help text and the survey. */
  description: string;
}

export const METRIC_CATALOG: readonly CatalogEntry[] = [
  { number: 1, id: 'functionality-correctness', perspective: 'code', kind: 'judge', needs: ['source', 'requirement', 'judge'], title: 'Functionality correctness', description: 'Does the code actually do what was asked, including edge cases, validation, security and error paths?' },
  { number: 2, id: 'best-practices', perspective: 'code', kind: 'rule', needs: ['lighthouse'], title: 'Best practices', description: 'Does the page follow modern web best practices (HTTPS, no deprecated APIs, no browser errors)?' },
  { number: 3, id: 'error-handling', perspective: 'code', kind: 'rule', needs: ['source'], title: 'Error handling', description: 'Are risky operations such as network calls, storage and JSON parsing protected against failure?' },
  { number: 4, id: 'console-errors', perspective: 'code', kind: 'rule', needs: ['source', 'browser'], title: 'Console errors', description: 'Does the page load without errors in the browser console?' },
  { number: 5, id: 'lint', perspective: 'code', kind: 'rule', needs: ['source'], title: 'Lint', description: 'Is the HTML, CSS and JavaScript free of errors that linters catch?' },
  { number: 6, id: 'visual-experience', perspective: 'visual', kind: 'judge', needs: ['screenshot', 'judge'], title: 'Visual experience', description: 'Does the first screen look good, with a clear hierarchy and a consistent style that fits its purpose?' },
  { number: 7, id: 'component-consistency', perspective: 'visual', kind: 'rule', needs: ['dom'], title: 'Component consistency', description: 'Do repeated components such as cards and list items share the same structure and styling?' },
  { number: 8, id: 'icon-consistency', perspective: 'visual', kind: 'rule', needs: ['browser'], title: 'Icon consistency', description: 'Do icons that appear together come from one set, with the same size, stroke and background?' },
  { number: 9, id: 'layout-consistency', perspective: 'visual', kind: 'rule', needs: ['screenshot'], title: 'Layout consistency', description: 'Are elements on the page neatly aligned with their neighbours?' },
  { number: 10, id: 'layout-sparsity', perspective: 'visual', kind: 'rule', needs: ['screenshot'], title: 'Layout sparsity', description: 'Does the page use its space well, without large empty areas?' },
  { number: 11, id: 'color-harmony', perspective: 'visual', kind: 'rule', needs: ['screenshot'], title: 'Colour harmony', description: 'Do the page colours work together in hue, saturation, brightness and warmth?' },
  { number: 12, id: 'copywriting', perspective: 'content', kind: 'rule', needs: ['dom'], title: 'Copywriting', description: 'Is the visible text clear, consistent, free of placeholders and well structured?' },
  { number: 13, id: 'media-quality', perspective: 'content', kind: 'rule', needs: ['browser', 'screenshot'], title: 'Media quality', description: 'Do images and videos load, look sharp and come with alt text or captions?' },
  { number: 14, id: 'placeholder-quality', perspective: 'content', kind: 'rule', needs: ['dom', 'browser'], title: 'Placeholder quality', description: 'Does the page avoid placeholder images, stretched images and the same picture on every card?' },
  { number: 15, id: 'resource-validity', perspective: 'content', kind: 'rule', needs: ['source', 'network'], title: 'Resource validity', description: 'Do all referenced images, scripts, styles and fonts actually exist?' },
  { number: 16, id: 'performance', perspective: 'performance', kind: 'rule', needs: ['lighthouse'], title: 'Performance', description: 'Does the page load and become usable quickly?' },
  { number: 17, id: 'accessibility', perspective: 'accessibility', kind: 'rule', needs: ['lighthouse'], title: 'Accessibility', description: 'Can people using assistive technology, keyboards or low vision use the page?' },
  { number: 18, id: 'cross-browser', perspective: 'accessibility', kind: 'rule', needs: ['source', 'browser'], title: 'Cross-browser compatibility', description: 'Does the page only use HTML, CSS and JavaScript features that all major browsers support?' },
  { number: 19, id: 'mobile-compat', perspective: 'accessibility', kind: 'rule', needs: ['browser', 'mobile'], title: 'Mobile compatibility', description: 'Does the page fit a phone screen without sideways scrolling?' },
  { number: 20, id: 'code-redundancy', perspective: 'maintainability', kind: 'rule', needs: ['browser'], title: 'Code redundancy', description: 'How much of the page\'s own JavaScript and CSS is never used?' },
  { number: 21, id: 'comment-rate', perspective: 'maintainability', kind: 'rule', needs: ['source'], title: 'Comment rate', description: 'Is the code explained by comments?' },
  { number: 22, id: 'functional-alignment', perspective: 'functional-alignment', kind: 'judge', needs: ['source', 'checklist', 'judge'], title: 'Functional alignment', description: 'Does the app implement each function the user asked for?' },
  { number: 23, id: 'visual-alignment', perspective: 'visual-alignment', kind: 'judge', needs: ['source', 'screenshot', 'checklist', 'judge'], title: 'Visual alignment', description: 'Does the app look the way the user asked?' },
  { number: 24, id: 'content-alignment', perspective: 'content-alignment', kind: 'judge', needs: ['source', 'checklist', 'judge'], title: 'Content alignment', description: 'Does the app contain the content the user asked for?' },
];

export const METRIC_IDS: readonly string[] = METRIC_CATALOG.map((m) => m.id);

export function catalogEntry(id: string): CatalogEntry | undefined {
  return METRIC_CATALOG.find((m) => m.id === id);
}
