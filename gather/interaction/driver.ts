/**
 * The interaction probe's handle on one page of its browser context: everything over one CDP session, so that
 * the events it records (exceptions, console errors, requests, dialogs, navigations) arrive in order with the
 * answers to its own calls. See probe.ts for what is done with it.
 *
 * The page is hostile: the probe's readers run in an isolated world of their own (`call`), the main-world agent
 * answers only through its secret-guarded function (`agent`), and every answer of either is bounded
 * (../isolated-world.ts `bounded`) before the probe uses it. What the browser itself reports over the protocol
 * (errors, requests, dialogs, listeners, navigations) needs no page's word.
 */
import type { BrowserContext, CDPSession, Page } from 'puppeteer-core';
import { errorMessage } from '../../core/errors.js';
import { TimeoutError, sleep, withTimeout } from '../time.js';
import { CoverageUnion } from './coverage.js';
import { agentKeys, agentScript, readerScript, WORLD_NAME, type AgentInit } from './page-script.js';
import { bounded } from '../isolated-world.js';
import type { ProbeConfig } from './probe/limits.js';
import { newWindow, type RecordedError, type Window } from './window.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;

/**
 * What the protocol answers for an evaluation sent to a context whose document had already gone: it never ran
 * (`evaluate`). Not "Execution context was destroyed": that evaluation ran and its document went away meanwhile
 * (the page navigated during an action), which the caller must learn.
 */
const CONTEXT_GONE = /Cannot find context with specified id/i;
/** How often a new document's context is looked for after one went away, and for how long at most. */
const CONTEXT_POLL_MS = 20;
const CONTEXT_WAIT_MS = 1000;
/** How long a resize waits, in real time, for the page to get its resize event (`resize`). */
const RESIZE_EVENT_MS = 1000;

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
  /** The main frame's execution contexts: the page's own world and the probe's isolated world. */
  private mainCtx?: number;
  private readerCtx?: number;
  /** Which contexts are the top document's own world and which are the readers' (errors are told apart by them). */
  private readonly contexts = new Map<number, 'top' | 'readers'>();
  /** Where the main-world agent answers, and the secret it answers to (new for every page). */
  private readonly keys = agentKeys();
  /** The size of the page's view now (a requirement test's `resize` changes it; the next restore sets it back). */
  viewport: { width: number; height: number } = { ...VIEWPORT };
  /** The canvases' context kinds the agent last reported (document order), passed to the readers. */
  kinds: string[] = [];
  private closed = false;
  /**
   * What the page started that runs on real time, as Chrome reports it (the page cannot hide it): a WebSocket, an
   * audio context; `unwatched` when Chrome would not report audio contexts (probe/baselines.ts `twinSkipped`).
   */
  readonly realTime = new Set<'websocket' | 'audio' | 'unwatched'>();
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

  /**
   * Open the page (or take `blank`, a page of this context opened ahead and never navigated) and set everything up
   * before the first navigation.
   */
  async open(blank?: Page): Promise<void> {
    this.closed = false;
    this.inflight.clear();
    this.viewport = { ...VIEWPORT };
    this.page = blank ?? (await this.context.newPage());
    this.context.on('targetcreated', this.onTarget);
    const cdp = (this.cdp = await this.page.createCDPSession());
    cdp.on(
      'Runtime.exceptionThrown',
      (e: {
        timestamp: number;
        exceptionDetails: { exceptionId: number; text: string; executionContextId?: number; exception?: { description?: string; value?: unknown } };
      }) => {
        const d = e.exceptionDetails;
        const where = d.executionContextId !== undefined ? this.contexts.get(d.executionContextId) : undefined;
        if (where === 'readers') return; // ours, not the page's
        const rejection = /in promise/i.test(d.text);
        const desc = d.exception?.description ?? (d.exception?.value !== undefined ? String(d.exception.value) : d.text);
        const kind = rejection ? 'unhandled-rejection' : 'exception';
        this.error({ id: d.exceptionId, at: e.timestamp, top: where === 'top', kind, message: desc.split('\n')[0]!.slice(0, 300) });
      },
    );
    cdp.on('Runtime.executionContextCreated', (e: { context: { id: number; name: string; auxData?: { frameId?: string; isDefault?: boolean } } }) => {
      const c = e.context;
      if (c.name === WORLD_NAME) this.contexts.set(c.id, 'readers');
      if (!c.auxData?.frameId || c.auxData.frameId !== this.mainFrameId) return;
      if (c.auxData.isDefault) {
        this.mainCtx = c.id;
        this.contexts.set(c.id, 'top');
      } else if (c.name === WORLD_NAME) this.readerCtx = c.id;
    });
    cdp.on('Runtime.executionContextDestroyed', (e: { executionContextId: number }) => {
      if (e.executionContextId === this.mainCtx) this.mainCtx = undefined;
      if (e.executionContextId === this.readerCtx) this.readerCtx = undefined;
    });
    cdp.on('Runtime.executionContextsCleared', () => {
      this.mainCtx = this.readerCtx = undefined;
    });
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
    cdp.on('Network.webSocketCreated', () => this.realTime.add('websocket'));
    cdp.on('WebAudio.contextCreated', () => this.realTime.add('audio'));
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
    const init: AgentInit = {
      ...this.keys,
      epochMs: this.config.epochMs,
      frameMs: this.config.frameMs,
      maxFires: this.config.maxFires,
      maxAdvanceRealMs: this.config.maxAdvanceRealMs,
      maxNetworkWaitMs: this.config.maxNetworkWaitMs,
    };
    await Promise.all([
      cdp.send('Page.enable'),
      cdp.send('Runtime.enable'),
      cdp.send('Log.enable'),
      cdp.send('Network.enable'),
      cdp.send('DOM.enable'),
      cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: readerScript({ maxElements: this.config.maxElements }), worldName: WORLD_NAME }),
      cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: agentScript(init, this.config.seed) }),
      cdp.send('Emulation.setDeviceMetricsOverride', { width: VIEWPORT.width, height: VIEWPORT.height, deviceScaleFactor: 1, mobile: false }),
      cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true }),
      // The document timeline stands still: CSS, Web and SVG animations move only with the page clock
      // (page/main/animations.ts). It holds for every document this page loads.
      cdp.send('Animation.setPlaybackRate', { playbackRate: 0 }),
      cdp.send('Page.setInterceptFileChooserDialog', { enabled: true }),
      // For the main thread's CPU time (thread-time.ts): the frame cost the probe adapts to (ProbeRun.costOf).
      cdp.send('Performance.enable'),
      // Audio contexts run on real time (probe/baselines.ts `twinSkipped`); a browser without the domain: unknown.
      cdp.send('WebAudio.enable').catch(() => this.realTime.add('unwatched')),
      this.config.coverage === false
        ? undefined
        : cdp
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

  /** The current context of a world as the protocol last announced it (undefined: none known; for the main world, the page's default context is then used). */
  private contextOf(world: 'main' | 'readers'): number | undefined {
    return world === 'main' ? this.mainCtx : this.readerCtx;
  }

  /**
   * Evaluate `expression` in a world of the current document (the page's main world or the readers' isolated
   * world), awaiting a promise; throws the page-side error. An action can make the page load another document (a
   * form submitted natively, a reload) while the protocol has not yet told us that the old document's contexts
   * are gone: an evaluation sent to such a context fails with "Cannot find context" without having run. It is sent
   * again once, to the world's context in the new document, as soon as that exists (within the same limit, and
   * CONTEXT_WAIT_MS at most); when none comes (a document without our readers) the error stands.
   */
  private async evaluate(expression: string, world: 'main' | 'readers', timeoutMs: number, what: string): Promise<unknown> {
    const end = performance.now() + timeoutMs;
    const once = async (contextId: number | undefined) =>
      (await withTimeout(
        this.cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, ...(contextId !== undefined ? { contextId } : {}) }),
        Math.max(1, end - performance.now()),
        what,
      )) as { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } };
    const first = this.contextOf(world);
    let r;
    try {
      r = await once(first);
    } catch (err) {
      if (!CONTEXT_GONE.test(errorMessage(err))) throw err;
      const next = await this.newContext(world, first, Math.min(end, performance.now() + CONTEXT_WAIT_MS));
      if (next === undefined) throw err;
      r = await once(next);
    }
    if (r.exceptionDetails) throw new Error(`${what}: ${(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text).split('\n')[0]}`);
    return r.result.value;
  }

  /** The world's context once it differs from `gone` (a new document's), or undefined when none came by `end`. */
  private async newContext(world: 'main' | 'readers', gone: number | undefined, end: number): Promise<number | undefined> {
    while (!this.closed && performance.now() < end) {
      const id = this.contextOf(world);
      if (id !== undefined && id !== gone) return id;
      await sleep(Math.min(CONTEXT_POLL_MS, Math.max(1, end - performance.now())));
    }
    return undefined;
  }

  /**
   * Whether the page still runs script: a trivial expression in its own world (its main thread is the one every
   * world shares), answered within `timeoutMs`.
   */
  async alive(timeoutMs: number, what = 'responsiveness'): Promise<void> {
    await this.evaluate('1', 'main', timeoutMs, what);
  }

  /** The readers are in the current document (a document the probe navigated to, not an error page or a download). */
  get hasReaders(): boolean {
    return this.readerCtx !== undefined;
  }

  /** Call a reader in the probe's isolated world: `__wg.<fn>(...args)`, with the canvases' kinds set first. */
  async call<T>(fn: string, args: unknown[], timeoutMs: number): Promise<T> {
    if (this.readerCtx === undefined) throw new Error(`${fn}: the probe's readers are not in this document`);
    const expression = `__wg.setKinds(${JSON.stringify(this.kinds)}); __wg.${fn}(${args.map((a) => JSON.stringify(a)).join(',')})`;
    return bounded(await this.evaluate(expression, 'readers', timeoutMs, fn)) as T;
  }

  /**
   * Ask the main-world agent (page/main/index.ts): `window[name](secret, op, args)`, an expression the page cannot
   * redirect (`window` is unforgeable and the property neither writable nor configurable), answered with one JSON
   * string, bounded here. The canvases' kinds it reports are kept for the readers.
   */
  async agent<T>(op: string, args: unknown[], timeoutMs: number): Promise<T> {
    const { name, secret } = this.keys;
    const expression = `window[${JSON.stringify(name)}](${JSON.stringify(secret)}, ${JSON.stringify(op)}, ${JSON.stringify(JSON.stringify(args))})`;
    const raw = await this.evaluate(expression, 'main', timeoutMs, op);
    if (typeof raw !== 'string' || raw === '') throw new Error(`${op}: the page's clock and recorders are not in this document`);
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      throw new Error(`${op}: the agent's answer is not JSON`);
    }
    const out = bounded(v) as T;
    const kinds = (out as { kinds?: unknown } | null)?.kinds;
    if (Array.isArray(kinds)) this.kinds = kinds.map((k) => (k === '2d' || k === 'webgl' ? k : ''));
    return out;
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
    if (this.config.coverage === false) return;
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
        // `document` and `window` are unforgeable: the page's world gives the real objects, whose listeners the
        // browser lists; html and body are taken from the browser's DOM tree, not from the page's getters.
        const ctx = this.mainCtx !== undefined ? { contextId: this.mainCtx } : {};
        const doc = (await cdp.send('Runtime.evaluate', { expression: 'document', objectGroup: group, ...ctx })) as { result: { objectId: string } };
        const win = (await cdp.send('Runtime.evaluate', { expression: 'window', objectGroup: group, ...ctx })) as { result: { objectId: string } };
        type L = { type: string; backendNodeId?: number; handler?: { objectId?: string; description?: string } };
        const [{ listeners: all }, { listeners: onWindow }] = (await Promise.all([
          cdp.send('DOMDebugger.getEventListeners', { objectId: doc.result.objectId, depth: -1 }),
          cdp.send('DOMDebugger.getEventListeners', { objectId: win.result.objectId }),
        ])) as [{ listeners: L[] }, { listeners: L[] }];
        const KEY = new Set(['keydown', 'keyup', 'keypress']);
        type TreeNode = { backendNodeId: number; nodeName: string; children?: TreeNode[] };
        const docNode = (await cdp.send('DOM.describeNode', { objectId: doc.result.objectId, depth: 2 })) as { node: TreeNode };
        const byNode = new Map<number, Set<string>>();
        const keySources: string[] = [];
        const roots = new Set<number>([docNode.node.backendNodeId]);
        // html and body count as the document for key listeners.
        const html = docNode.node.children?.find((c) => c.nodeName === 'HTML');
        if (html) roots.add(html.backendNodeId);
        const body = html?.children?.find((c) => c.nodeName === 'BODY');
        if (body) roots.add(body.backendNodeId);
        // A handler's source as the browser prints it (its description), not as the page's `toString` would.
        const text = (l: L): string => (l.handler?.description ?? '').slice(0, 20000);
        const source = (l: L) => {
          const t = text(l);
          if (t) keySources.push(t);
        };
        const CLICKS = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup']);
        const clickHandlers = new Map<number, L[]>();
        for (const l of onWindow) if (KEY.has(l.type)) source(l);
        for (const l of all) {
          if (l.backendNodeId === undefined) continue;
          if (roots.has(l.backendNodeId)) {
            if (KEY.has(l.type)) source(l);
            continue;
          }
          const s = byNode.get(l.backendNodeId) ?? new Set<string>();
          s.add(l.type);
          byNode.set(l.backendNodeId, s);
          if (CLICKS.has(l.type)) clickHandlers.set(l.backendNodeId, [...(clickHandlers.get(l.backendNodeId) ?? []), l]);
        }
        const readers = this.readerCtx;
        if (readers === undefined) throw new Error("the probe's readers are not in this document");
        await Promise.all(
          [...byNode.entries()].map(async ([backendNodeId, types]) => {
            // The element as the readers' world sees it: the mark is made there.
            const r = (await cdp.send('DOM.resolveNode', { backendNodeId, objectGroup: group, executionContextId: readers }).catch(() => null)) as {
              object: { objectId?: string };
            } | null;
            if (!r?.object.objectId) return;
            // Event delegation: every click handler dispatches on the event's target (closest/matches/...).
            const handlers = clickHandlers.get(backendNodeId) ?? [];
            const sources = handlers.map(text);
            const delegation = sources.length > 0 && sources.every((src) => DELEGATION.test(src));
            await cdp.send('Runtime.callFunctionOn', {
              functionDeclaration: 'function(t,d){__wg.mark(this,t,d && this.querySelectorAll("*").length >= 3)}',
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

  /**
   * The page as it is, full page (height capped), PNG; and the viewport alone (`viewport`, the same picture when
   * the page is no taller than the viewport). A capture beyond the viewport resizes the page's view for a moment,
   * which a page that sizes its canvas to the window answers by resetting (clearing) it, and with the page clock
   * standing still nothing redraws it: so the viewport, which is what a person sees first, is captured first and
   * without that resize, and the page beyond it only when there is more.
   */
  async screenshot(capPx: number, timeoutMs: number): Promise<{ png: Buffer; viewport: Buffer; width: number; height: number; truncated: boolean }> {
    const raw = await this.call<unknown>('pageHeight', [], timeoutMs);
    const h = typeof raw === 'number' ? raw : 0;
    const height = Math.min(Math.max(h, this.viewport.height), capPx);
    const viewport = await this.capture(this.viewport.height, false, timeoutMs);
    const png = height > this.viewport.height ? await this.capture(height, true, timeoutMs) : viewport;
    return { png, viewport, width: this.viewport.width, height, truncated: h > capPx };
  }

  /** The viewport as it shows now, PNG (no resize of the page's view: `screenshot`). */
  viewportShot(timeoutMs: number): Promise<Buffer> {
    return this.capture(this.viewport.height, false, timeoutMs);
  }

  /**
   * Resize the page's view (the window a person resizes); screenshots follow. Chrome sends the page its resize event
   * with its next rendering, on real time whatever the page clock does: when the size changes, this returns once a
   * listener of the readers' world (registered after the page's) has run, or after RESIZE_EVENT_MS real ms (a
   * `resize`, `wait 1000` test read the bouncing logo before its handler ran, loaded machine, 2026-11-27).
   */
  async resize(width: number, height: number, timeoutMs: number): Promise<void> {
    const end = performance.now() + timeoutMs;
    const left = () => Math.max(1, end - performance.now());
    const changes = width !== this.viewport.width || height !== this.viewport.height;
    const arm = "globalThis.__wgResized = new Promise((r) => addEventListener('resize', () => r(true), { once: true })); true";
    const armed = changes && this.hasReaders && (await this.evaluate(arm, 'readers', left(), 'resize').catch(() => false)) === true;
    await withTimeout(this.cdp.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }), left(), 'resize');
    this.viewport = { width, height };
    if (armed) await this.evaluate('globalThis.__wgResized', 'readers', Math.min(RESIZE_EVENT_MS, left()), 'resize event').catch(() => undefined);
  }

  private async capture(clipHeight: number, beyond: boolean, timeoutMs: number): Promise<Buffer> {
    const { data } = (await withTimeout(
      this.cdp.send('Page.captureScreenshot', {
        format: 'png',
        clip: { x: 0, y: 0, width: this.viewport.width, height: clipHeight, scale: 1 },
        captureBeyondViewport: beyond,
        optimizeForSpeed: true,
      }),
      timeoutMs,
      'screenshot',
    )) as { data: string };
    return Buffer.from(data, 'base64');
  }

  /** Set a file input's files (a visible file input acted on). */
  async setFiles(index: number, accept: string, timeoutMs: number): Promise<string> {
    if (this.readerCtx === undefined) throw new Error("the probe's readers are not in this document");
    const r = (await withTimeout(
      this.cdp.send('Runtime.evaluate', { expression: `__wg.el(${Number(index)})`, contextId: this.readerCtx }),
      timeoutMs,
      'file input',
    )) as {
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
