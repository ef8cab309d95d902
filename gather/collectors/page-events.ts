/**
 * Console messages, uncaught exceptions and unhandled rejections (BrowserEvidence.console and .pageErrors),
 * recorded from before navigation to the end of the visit. An exception is CDP `Runtime.exceptionThrown`; a
 * rejection handled later is revoked (`Runtime.exceptionRevoked`) and dropped. A "Failed to load resource" line
 * about the favicon the browser asks for by itself is marked `browserMade`.
 */
import type { BrowserEvidence, ConsoleEntry, PageError } from '../../core/browser-evidence.js';
import type { VisitCollector, VisitContext } from './visit-collector.js';

interface ExceptionThrown {
  exceptionDetails: { exceptionId: number; text: string; exception?: { description?: string; value?: unknown } };
}

export class PageEventsCollector implements VisitCollector {
  readonly field = 'console';
  readonly name = 'console and errors';
  private readonly console: ConsoleEntry[] = [];
  private readonly errors: Array<PageError & { id?: number }> = [];

  start({ page, cdp, origin }: VisitContext): Promise<unknown> {
    page.on('console', (msg) => {
      const loc = msg.location();
      const entry: ConsoleEntry = { level: msg.type(), text: msg.text() };
      if (loc?.url) entry.url = loc.url;
      if (loc?.lineNumber !== undefined) entry.line = loc.lineNumber + 1;
      if (/^Failed to load resource/.test(entry.text) && loc?.url === `${origin}/favicon.ico`) entry.browserMade = true;
      this.console.push(entry);
    });
    cdp.on('Runtime.exceptionThrown', (e: ExceptionThrown) => this.errors.push(pageError(e)));
    cdp.on('Runtime.exceptionRevoked', (e: { exceptionId: number }) => {
      const i = this.errors.findIndex((p) => p.id === e.exceptionId);
      if (i >= 0) this.errors.splice(i, 1);
    });
    return cdp.send('Runtime.enable');
  }

  /** The lists themselves, not copies: a line logged until the context is closed still lands in them. */
  finish(ev: BrowserEvidence): void {
    for (const e of this.errors) delete e.id;
    ev.console = this.console;
    ev.pageErrors = this.errors;
  }
}

function pageError({ exceptionDetails: d }: ExceptionThrown): PageError & { id: number } {
  const rejection = /in promise/i.test(d.text);
  const desc = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : undefined);
  return {
    id: d.exceptionId,
    kind: rejection ? 'unhandled-rejection' : 'exception',
    message: desc ? desc.split('\n')[0]! : d.text,
    ...(desc && desc.includes('\n') ? { stack: desc } : {}),
  };
}
