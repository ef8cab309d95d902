/**
 * Text made safe to put between tags or inside a quoted attribute of HTML, SVG or XML: `& < > " '` become
 * entities (`'` as `&#39;`, which HTML 4, HTML5 and XML all read). The report's pages and the metrics' SVG
 * pictures use this one function; eta templates escape with the same five.
 */
export function escapeHtml(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
