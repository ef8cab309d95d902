/**
 * The sandbox (sandbox.ts) in a worker thread: the scorer's side. Every request of every page goes through the
 * sandbox proxy; on the scorer's own event loop a page that fires requests as fast as they are answered (a
 * request storm), or a cold CDN cache resolving and building a library, would hold up the browser session's
 * protocol traffic and the metrics scored meanwhile (measured: a storm of 16 MB requests made the session's
 * probes time out). In a thread of its own it holds up nothing but that thread.
 *
 * Protocol: main → worker `certificates`, `open` (a ServedArtifact), `endpoint` (site, phase), `log`, `close`;
 * every request is answered with `reply` (its value) or `error`. The thread starts with the first request and is
 * started again after a crash (the sites of the dead one are gone: their requests fail, the artifact's browser
 * evidence says so, and the next artifact gets a new thread).
 */
import { Worker } from 'node:worker_threads';
import type { CdnOptions } from '../../cdn/index.js';
import type { NetworkEntry, NetworkSettings, SandboxPhase } from '../../core/network.js';
import type { ServedArtifact } from '../server.js';

export interface SandboxInit {
  network: NetworkSettings;
  /** Options of the CDN cache (cdn/ CdnOptions). */
  cdn?: CdnOptions;
  /** Hosts that count as CDNs instead of cdn/'s list (tests). */
  cdnHosts?: readonly string[];
}

export type ToSandbox =
  | { type: 'certificates'; id: number }
  | { type: 'open'; id: number; artifact: ServedArtifact }
  | { type: 'endpoint'; id: number; site: number; phase: SandboxPhase }
  | { type: 'log'; id: number; site: number }
  | { type: 'close'; id: number; site: number };

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

export type FromSandbox = { type: 'reply'; id: number; value: unknown } | { type: 'error'; id: number; message: string };

/** One artifact in the sandbox thread (the scorer's handle on a SandboxSite). */
export interface SiteHandle {
  origin: string;
  entryUrl: string;
  /** The proxy URL for a browser context of `phase`. */
  endpoint(phase: SandboxPhase): Promise<string>;
  /** The log so far. */
  log(): Promise<{ log: NetworkEntry[]; dropped: number }>;
  /** Stop serving the artifact; resolves to its whole log. */
  close(): Promise<{ log: NetworkEntry[]; dropped: number }>;
}

export class SandboxThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private spki?: Promise<string>;

  constructor(readonly init: SandboxInit) {}

  private start(): Worker {
    const worker = new Worker(new URL('./sandbox-worker.js', import.meta.url), { workerData: this.init });
    worker.unref();
    worker.on('message', (m: FromSandbox) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.type === 'reply') p.resolve(m.value);
      else p.reject(new Error(m.message));
    });
    const failAll = (why: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(new Error(`the sandbox thread ${why}`));
      }
    };
    worker.on('error', (err) => failAll(`crashed (${err.message})`));
    worker.on('exit', (code) => failAll(`exited (code ${code})`));
    return worker;
  }

  private call<T>(msg: WithoutId<ToSandbox>): Promise<T> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...msg, id } as ToSandbox);
    });
  }

  /** base64 SHA-256 of the sandbox's TLS key (Chrome's SPKI allow-list); the same for the thread's life. */
  certificates(): Promise<string> {
    // The key belongs to the thread: a restarted thread makes a new one, and Chrome is restarted with it.
    this.spki ??= this.call<string>({ type: 'certificates' }).catch((err: unknown) => {
      this.spki = undefined;
      throw err;
    });
    return this.spki;
  }

  async open(artifact: ServedArtifact): Promise<SiteHandle> {
    await this.certificates();
    const worker = this.worker;
    const { origin, entryUrl, site } = await this.call<{ origin: string; entryUrl: string; site: number }>({ type: 'open', artifact });
    return {
      origin,
      entryUrl,
      endpoint: (phase) => this.call<string>({ type: 'endpoint', site, phase }),
      log: () => this.call({ type: 'log', site }),
      close: async () => {
        if (this.worker !== worker) return { log: [], dropped: 0 };
        return this.call({ type: 'close', site });
      },
    };
  }

  /** Stop the thread (and every site in it). */
  async terminate(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.spki = undefined;
    if (w) await w.terminate();
  }
}
