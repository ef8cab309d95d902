/**
 * The worker side of sandbox-thread.ts: one Sandbox (and its CDN cache) on an event loop of its own, so that a
 * page's requests, however many, and the CDN cache's work (registry requests, tarballs, module builds) never
 * hold up the scorer's thread, which drives the browser and scores metrics.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CdnCache, isCdnHost } from '../../cdn/index.js';
import { errorMessage } from '../../core/errors.js';
import { Sandbox, type SandboxSite } from './sandbox.js';
import type { FromSandbox, SandboxInit, ToSandbox } from './sandbox-thread.js';

const init = workerData as SandboxInit;
const port = parentPort!;
let cache: CdnCache | undefined;
const sandbox = new Sandbox({
  network: init.network,
  cdn: {
    isCdnHost: (host) => (init.cdnHosts ? init.cdnHosts.includes(host) : isCdnHost(host)),
    answer: (url, req) => {
      cache ??= new CdnCache(init.cdn ?? {});
      return cache.answer(url, req);
    },
    budget: (signal) => {
      cache ??= new CdnCache(init.cdn ?? {});
      return cache.pageBudget(signal);
    },
  },
});
const sites = new Map<number, SandboxSite>();

const send = (m: FromSandbox) => port.postMessage(m);

port.on('message', (m: ToSandbox) => void handle(m));

async function handle(m: ToSandbox): Promise<void> {
  try {
    switch (m.type) {
      case 'certificates': {
        const certs = await sandbox.certificates();
        return send({ type: 'reply', id: m.id, value: certs.spki });
      }
      case 'open': {
        const site = await sandbox.open(m.artifact);
        sites.set(m.id, site);
        return send({ type: 'reply', id: m.id, value: { origin: site.origin, entryUrl: site.entryUrl, site: m.id } });
      }
      case 'endpoint': {
        const site = sites.get(m.site);
        if (!site) throw new Error(`no open site ${m.site}`);
        return send({ type: 'reply', id: m.id, value: await site.endpoint(m.phase) });
      }
      case 'log': {
        const site = sites.get(m.site);
        return send({ type: 'reply', id: m.id, value: { log: site ? site.log : [], dropped: site?.dropped ?? 0 } });
      }
      case 'close': {
        const site = sites.get(m.site);
        sites.delete(m.site);
        if (site) await site.close();
        return send({ type: 'reply', id: m.id, value: { log: site ? site.log : [], dropped: site?.dropped ?? 0 } });
      }
    }
  } catch (err) {
    send({ type: 'error', id: m.id, message: errorMessage(err) });
  }
}
