/**
 * The interaction probe's handle on one page of its browser context: everything over one CDP session, so that
 * the events it records (exceptions, console errors, requests, dialogs, navigations) arrive in order with the
 * answers to its own calls. See probe.ts for what is done with it.
 */
import type { BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { InteractionError } from '../../core/browser-evidence.js';
import { errorMessage } from '../../core/errors.js';
import { TimeoutError, withTimeout } from '../time.js';
import { CoverageUnion } from './coverage.js';
import { probeScript, type ProbeConfig } from './page-script.js';

export interface RecordedError extends InteractionError {
  id?: number;
  /** For console lines about a resource: its URL (to tell the sandbox's refusals apart). */
  url?: string;
}

export interface RecordedRequest {
  url: string;
  method: string;
  type: string;
  navigation: boolean;
}

/** What the page did during one window (an action and its observation). */
export interface Window {
  errors: RecordedError[];
  requests: RecordedRequest[];
  dialogs: string[];
  fileChoosers: number;
  popups: string[];
  /** Main-frame documents committed (a navigation away from the current document). */
  documents: Array<{ url: string; loaderId: string }>;
  /** Same-document navigations (fragment, pushState). */
  sameDocument: number;
  /** Requests the sandbox refused (or that failed to connect), by URL. */
  refused: string[];
}

const newWindow = (): Window => ({ errors: [], requests: [], dialogs: [], fileChoosers: 0, popups: [], documents: [], sameDocument: 0, refused: [] });

export const VIEWPORT = { width: 1280, height: 800 } as const;

/** A click handler that dispatches on its event's target: `e.target.closest(...)`, `.matches(...)`, class or tag tests. */
export const DELEGATION = /\.target\b[\s\S]{0,80}?(\.closest\(|\.matches\(|classList\.contains\(|\.tagName\b|\.nodeName\b)/;

export class ProbeDriver {
  page!: Page;
  cdp!: CDPSession;
  readonly coverage = new CoverageUnion();
  /** Every error since the page was opened (load errors included). */
  readonly allErrors: RecordedError[] = [];
  win: Window = newWindow();
  private inflight = new Map<string, { t: number; media: boolean; url: string }>();
  private statusOf = new Map<string, number>();
  private loadWaiters: Array<() => void> = [];
  private mainFrameId?: string;
  private closed = false;
  private readonly onTarget: (t: unknown) => void;

  constructor(
    readonly context: BrowserContext,
    readonly origin: string,
    readonly config: ProbeConfig,
    readonly sampleFile: (accept: string) => string,
  ) {
    // Popups (window.open, target=_blank): recorded and closed at once.
    this.onTarget = (t: unknown) => {
      const target = t as { type(): string; page(): Promise<Page | null>; url(): string; opener(): unknown };
      if (target.type() !== 'page' || this.closed) return;
      void target
        .page()
        .then((p) => {
          if (!p || p === this.page) return;
          this.win.popups.push(target.url().slice(0, 200));
          return p.close();
        })
        .catch(() => undefined);
    };
  }

  /** Open the page and set everything up before the first navigation. */
  async open(): Promise<void> {
    this.closed = false;
    this.inflight.clear();
    this.page = await this.context.newPage();
    this.context.on('targetcreated', this.onTarget);
    const cdp = (this.cdp = await this.page.createCDPSession());
    cdp.on(
      'Runtime.exceptionThrown',
      (e: { exceptionDetails: { exceptionId: number; text: string; exception?: { description?: string; value?: unknown } } }) => {
        const d = e.exceptionDetails;
        const rejection = /in promise/i.test(d.text);
        const desc = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : d.text);
        this.error({ id: d.exceptionId, kind: rejection ? 'unhandled-rejection' : 'exception', message: desc.split('\n')[0]!.slice(0, 300) });
      },
    );
    cdp.on('Runtime.exceptionRevoked', (e: { exceptionId: number }) => {
      for (const list of [this.allErrors, this.win.errors]) {
        const i = list.findIndex((x) => x.id === e.exceptionId);
        if (i >= 0) list.splice(i, 1);
      }
    });
    cdp.on('Runtime.consoleAPICalled', (e: { type: string; args: Array<{ value?: unknown; description?: string; type: string }> }) => {
      if (e.type !== 'error' && e.type !== 'assert') return;
      const text = e.args
        .map((a) => (a.value !== undefined ? (typeof a.value === 'string' ? a.value : JSON.stringify(a.value)) : (a.description ?? a.type)))
        .join(' ');
      this.error({ kind: 'console', message: text.slice(0, 300) });
    });
    cdp.on('Log.entryAdded', (e: { entry: { level: string; text: string; url?: string; source: string } }) => {
      if (e.entry.level !== 'error') return;
      if (e.entry.url === `${this.origin}/favicon.ico`) return;
      this.error({ kind: 'console', message: e.entry.text.slice(0, 300), ...(e.entry.url ? { url: e.entry.url } : {}) });
    });
    cdp.on(
      'Network.requestWillBeSent',
      (e: { requestId: string; request: { url: string; method: string }; type?: string; loaderId: string; frameId?: string }) => {
        const url = e.request.url;
        if (/^(data|blob):/i.test(url) || url === `${this.origin}/favicon.ico`) return;
        const type = e.type ?? 'Other';
        this.inflight.set(e.requestId, { t: performance.now(), media: type === 'Media' || type === 'WebSocket' || type === 'EventSource', url });
        this.win.requests.push({ url: url.slice(0, 300), method: e.request.method, type, navigation: type === 'Document' && e.frameId === this.mainFrameId });
      },
    );
    cdp.on('Network.loadingFinished', (e: { requestId: string }) => this.inflight.delete(e.requestId));
    cdp.on('Network.loadingFailed', (e: { requestId: string; canceled?: boolean }) => {
      const r = this.inflight.get(e.requestId);
      this.inflight.delete(e.requestId);
      if (r && !e.canceled && !r.url.startsWith(this.origin + '/')) this.win.refused.push(r.url.slice(0, 300));
    });
    cdp.on(
      'Network.responseReceived',
      (e: { requestId: string; loaderId: string; type: string; response: { status: number; url: string; headers: Record<string, string> } }) => {
        if (e.type === 'Document') this.statusOf.set(e.loaderId, e.response.status);
        if (e.response.status === 403 && Object.keys(e.response.headers).some((h) => h.toLowerCase() === 'x-webgrade-blocked'))
          this.win.refused.push(e.response.url.slice(0, 300));
      },
    );
    cdp.on('Page.frameNavigated', (e: { frame: { id: string; parentId?: string; url: string; loaderId: string } }) => {
      if (e.frame.parentId) return;
      this.mainFrameId = e.frame.id;
      this.win.documents.push({ url: e.frame.url, loaderId: e.frame.loaderId });
    });
    cdp.on('Page.navigatedWithinDocument', (e: { frameId: string }) => {
      if (e.frameId === this.mainFrameId) this.win.sameDocument++;
    });
    cdp.on('Page.loadEventFired', () => {
      const w = this.loadWaiters.splice(0);
      for (const f of w) f();
    });
    cdp.on('Page.javascriptDialogOpening', (e: { type: string; message: string }) => {
      this.win.dialogs.push(`${e.type}: ${e.message.slice(0, 60)}`);
      cdp.send('Page.handleJavaScriptDialog', { accept: e.type === 'beforeunload' }).catch(() => undefined);
    });
    cdp.on('Page.fileChooserOpened', (e: { backendNodeId?: number; mode: string }) => {
      this.win.fileChoosers++;
      if (e.backendNodeId === undefined) return;
      void this.fileAccept(e.backendNodeId).catch(() => undefined);
    });
    cdp.on(
      'Debugger.scriptParsed',
      (e: { scriptId: string; url: string; hash: string; length?: number; endLine: number; endColumn: number; startLine: number; startColumn: number }) => {
        if (!e.url) return;
        this.coverage.parsed(e.scriptId, { url: e.url, hash: e.hash, length: e.length ?? 0, startLine: e.startLine, startColumn: e.startColumn });
      },
    );
    const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    this.mainFrameId = frameTree.frame.id;
    await Promise.all([
      cdp.send('Page.enable'),
      cdp.send('Runtime.enable'),
      cdp.send('Log.enable'),
      cdp.send('Network.enable'),
      cdp.send('DOM.enable'),
      cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: probeScript(this.config) }),
      cdp.send('Emulation.setDeviceMetricsOverride', { width: VIEWPORT.width, height: VIEWPORT.height, deviceScaleFactor: 1, mobile: false }),
      cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true }),
      cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }),
      cdp
        .send('Debugger.enable')
        .then(() => cdp.send('Debugger.setSkipAllPauses', { skip: true }))
        .then(() => cdp.send('Profiler.enable'))
        .then(() => cdp.send('Profiler.startPreciseCoverage', { callCount: true, detailed: true })),
    ]);
  }

  private error(e: RecordedError): void {
    this.allErrors.push(e);
    this.win.errors.push(e);
  }

  private async fileAccept(backendNodeId: number): Promise<void> {
    const { node } = (await this.cdp.send('DOM.describeNode', { backendNodeId })) as { node: { attributes?: string[] } };
    const attrs = node.attributes ?? [];
    const i = attrs.indexOf('accept');
    const accept = i >= 0 ? (attrs[i + 1] ?? '') : '';
    await this.cdp.send('DOM.setFileInputFiles', { files: [this.sampleFile(accept)], backendNodeId });
  }

  /** Start a new window (the errors, requests and events of one action). */
  startWindow(): Window {
    this.win = newWindow();
    return this.win;
  }

  /** Evaluate `expression` in the page's main world (awaiting a promise); throws the page-side error. */
  async eval<T>(expression: string, timeoutMs: number, what: string): Promise<T> {
    const r = (await withTimeout(this.cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }), timeoutMs, what)) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (r.exceptionDetails) throw new Error(`${what}: ${(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text).split('\n')[0]}`);
    return r.result.value as T;
  }

  /** Call the in-page probe: `__wgProbe.<fn>(...args)`. */
  call<T>(fn: string, args: unknown[], timeoutMs: number): Promise<T> {
    return this.eval<T>(`window.__wgProbe.${fn}(${args.map((a) => JSON.stringify(a)).join(',')})`, timeoutMs, fn);
  }

  /** Navigate the main frame and wait for its load event; the document's HTTP status when there was one. */
  async navigate(url: string, timeoutMs: number): Promise<{ loaded: boolean; status?: number; error?: string }> {
    const loaded = this.nextLoad();
    const nav = (await withTimeout(this.cdp.send('Page.navigate', { url }), timeoutMs, 'navigate')) as { loaderId?: string; errorText?: string };
    if (nav.errorText) return { loaded: false, error: nav.errorText };
    const ok = await withTimeout(loaded, timeoutMs, 'load').then(
      () => true,
      () => false,
    );
    const status = nav.loaderId ? this.statusOf.get(nav.loaderId) : undefined;
    return status !== undefined ? { loaded: ok, status } : { loaded: ok };
  }

  /** A promise for the next load event. */
  nextLoad(): Promise<void> {
    return new Promise<void>((r) => this.loadWaiters.push(r));
  }

  statusOfLoader(loaderId: string): number | undefined {
    return this.statusOf.get(loaderId);
  }

  /** Wait until no request (media and sockets aside) started in this window is in flight, at most `capMs`. */
  async networkQuiet(capMs: number, since = 0): Promise<boolean> {
    const end = performance.now() + capMs;
    for (;;) {
      let busy = false;
      for (const r of this.inflight.values()) if (!r.media && r.t >= since) busy = true;
      if (!busy) return true;
      if (performance.now() > end) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async click(x: number, y: number, count = 1): Promise<void> {
    await this.cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, button: 'none' });
    for (let c = 1; c <= count; c++) {
      await this.cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: c });
      await this.cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: c });
    }
  }

  /** Move the mouse off the page, so that hover styles revert before the state is compared. */
  async mouseOut(): Promise<void> {
    await this.cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: -10, y: -10, button: 'none' });
  }

  async press(key: string): Promise<void> {
    await this.page.keyboard.press(key as Parameters<Page['keyboard']['press']>[0]);
  }

  /** Key down (a second call before `keyUp` sends an auto-repeat keydown, as a held key does). */
  async keyDown(key: string): Promise<void> {
    await this.page.keyboard.down(key as Parameters<Page['keyboard']['down']>[0]);
  }

  async keyUp(key: string): Promise<void> {
    await this.page.keyboard.up(key as Parameters<Page['keyboard']['up']>[0]);
  }

  async type(text: string): Promise<void> {
    await this.page.keyboard.type(text);
  }

  /** Take the coverage since the last take into the union. */
  async takeCoverage(timeoutMs: number): Promise<void> {
    try {
      const { result } = (await withTimeout(this.cdp.send('Profiler.takePreciseCoverage'), timeoutMs, 'coverage')) as {
        result: Array<{ scriptId: string; url: string; functions: Array<{ ranges: Array<{ startOffset: number; endOffset: number; count: number }> }> }>;
      };
      this.coverage.take(result, (u) => u.startsWith(this.origin + '/'));
    } catch (err) {
      if (!(err instanceof TimeoutError)) throw err;
    }
  }

  /** The page's window/document/body key listeners and every element's click/key/input listeners. */
  async listeners(timeoutMs: number): Promise<{ documentKeys: string[]; marked: number }> {
    const cdp = this.cdp;
    const group = 'wg-listeners';
    try {
      const work = async () => {
        const doc = (await cdp.send('Runtime.evaluate', { expression: 'document', objectGroup: group })) as { result: { objectId: string } };
        const win = (await cdp.send('Runtime.evaluate', { expression: 'window', objectGroup: group })) as { result: { objectId: string } };
        type L = { type: string; backendNodeId?: number; handler?: { objectId?: string } };
        const [{ listeners: all }, { listeners: onWindow }] = (await Promise.all([
          cdp.send('DOMDebugger.getEventListeners', { objectId: doc.result.objectId, depth: -1 }),
          cdp.send('DOMDebugger.getEventListeners', { objectId: win.result.objectId }),
        ])) as [{ listeners: L[] }, { listeners: L[] }];
        const KEY = new Set(['keydown', 'keyup', 'keypress']);
        const docNode = (await cdp.send('DOM.describeNode', { objectId: doc.result.objectId })) as { node: { backendNodeId: number } };
        const byNode = new Map<number, Set<string>>();
        const keySources: string[] = [];
        const roots = new Set<number>([docNode.node.backendNodeId]);
        // html and body count as the document for key listeners.
        const rootIds = (await cdp.send('Runtime.evaluate', { expression: '[document.documentElement, document.body]', objectGroup: group })) as {
          result: { objectId: string };
        };
        const props = (await cdp.send('Runtime.getProperties', { objectId: rootIds.result.objectId, ownProperties: true })) as {
          result: Array<{ name: string; value?: { objectId?: string } }>;
        };
        for (const p of props.result) {
          if (!/^\d+$/.test(p.name) || !p.value?.objectId) continue;
          const d = (await cdp.send('DOM.describeNode', { objectId: p.value.objectId })) as { node: { backendNodeId: number } };
          roots.add(d.node.backendNodeId);
        }
        const text = async (l: L): Promise<string> => {
          if (!l.handler?.objectId) return '';
          const s = (await cdp.send('Runtime.callFunctionOn', {
            functionDeclaration: 'function(){return String(this).slice(0, 20000)}',
            objectId: l.handler.objectId,
            returnByValue: true,
          })) as { result: { value?: string } };
          return s.result.value ?? '';
        };
        const source = async (l: L) => {
          const t = await text(l);
          if (t) keySources.push(t);
        };
        const CLICKS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup']);
        const clickHandlers = new Map<number, L[]>();
        const pending: Array<Promise<void>> = [];
        for (const l of onWindow) if (KEY.has(l.type)) pending.push(source(l));
        for (const l of all) {
          if (l.backendNodeId === undefined) continue;
          if (roots.has(l.backendNodeId)) {
            if (KEY.has(l.type)) pending.push(source(l));
            continue;
          }
          const s = byNode.get(l.backendNodeId) ?? new Set<string>();
          s.add(l.type);
          byNode.set(l.backendNodeId, s);
          if (CLICKS.has(l.type)) clickHandlers.set(l.backendNodeId, [...(clickHandlers.get(l.backendNodeId) ?? []), l]);
        }
        await Promise.all(pending);
        await Promise.all(
          [...byNode.entries()].map(async ([backendNodeId, types]) => {
            const r = (await cdp.send('DOM.resolveNode', { backendNodeId, objectGroup: group }).catch(() => null)) as { object: { objectId?: string } } | null;
            if (!r?.object.objectId) return;
            // Event delegation: every click handler dispatches on the event's target (closest/matches/...).
            const handlers = clickHandlers.get(backendNodeId) ?? [];
            const sources = await Promise.all(handlers.map(text));
            const delegation = sources.length > 0 && sources.every((src) => DELEGATION.test(src));
            await cdp.send('Runtime.callFunctionOn', {
              functionDeclaration: 'function(t,d){window.__wgProbe.mark(this,t,d && this.querySelectorAll("*").length >= 3)}',
              objectId: r.object.objectId,
              arguments: [{ value: [...types] }, { value: delegation }],
            });
          }),
        );
        return { documentKeys: keySources, marked: byNode.size };
      };
      return await withTimeout(work(), timeoutMs, 'listeners');
    } finally {
      cdp.send('Runtime.releaseObjectGroup', { objectGroup: group }).catch(() => undefined);
    }
  }

  /** The start state, full page (height capped), PNG. */
  async screenshot(capPx: number, timeoutMs: number): Promise<{ png: Buffer; width: number; height: number; truncated: boolean }> {
    const h = await this.eval<number>(
      'Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)',
      timeoutMs,
      'page height',
    );
    const height = Math.min(Math.max(h, VIEWPORT.height), capPx);
    const { data } = (await withTimeout(
      this.cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip: { x: 0, y: 0, width: VIEWPORT.width, height, scale: 1 },
        captureBeyondViewport: true,
        optimizeForSpeed: true,
      }),
      timeoutMs,
      'screenshot',
    )) as { data: string };
    return { png: Buffer.from(data, 'base64'), width: VIEWPORT.width, height, truncated: h > capPx };
  }

  /** Set a file input's files (a visible file input acted on). */
  async setFiles(index: number, accept: string, timeoutMs: number): Promise<string> {
    const r = (await withTimeout(this.cdp.send('Runtime.evaluate', { expression: `window.__wgProbe.el(${index})` }), timeoutMs, 'file input')) as {
      result: { objectId?: string };
    };
    if (!r.result.objectId) throw new Error('file input not found');
    const file = this.sampleFile(accept);
    await this.cdp.send('DOM.setFileInputFiles', { files: [file], objectId: r.result.objectId });
    return file;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.context.off('targetcreated', this.onTarget);
    this.cdp?.detach().catch(() => undefined);
    await withTimeout(this.page.close(), 3000, 'close page').catch((err) => {
      throw new Error(`could not close the probe's page: ${errorMessage(err)}`);
    });
  }
}
