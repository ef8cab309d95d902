/**
 * In-page collectors: self-contained functions evaluated inside the page (puppeteer `page.evaluate`) after
 * load and settle, each filling one field of BrowserEvidence. A collector must not close over anything from
 * Node: it receives only its JSON-serialisable argument and returns JSON-serialisable data (binary data,
 * such as video frames, is returned base64-encoded and converted by the session).
 *
 * The browser session (runner/gather/) runs every collector listed here, each guarded by a time limit; one
 * that throws or times out leaves its field absent and adds a fault, and the metrics that read it become
 * unscorable with that reason.
 */
import type { PageCollector } from './collector.js';
import { iconsCollector } from './icons.js';
import { mediaCollector } from './media.js';

export type { PageCollector };

export const PAGE_COLLECTORS: PageCollector[] = [mediaCollector, iconsCollector];
