/**
 * Uncaught errors timed on the real clock: the first view counts those raised before the first contentful
 * paint (an error a person sees as a broken start), which the virtual clock cannot tell.
 */
import { w } from './config.js';
import { N } from './natives.js';

export const errs: Array<{ t: number; kind: 'exception' | 'unhandled-rejection'; message: string; p?: unknown }> = [];

export function installErrors(): void {
  w.addEventListener(
    'error',
    (e: Event) => {
      if (e instanceof ErrorEvent) errs.push({ t: N.perfNow(), kind: 'exception', message: String(e.message || e.error) });
    },
    true,
  );
  w.addEventListener('unhandledrejection', (e: PromiseRejectionEvent) => {
    const r = e.reason as { message?: string } | undefined;
    errs.push({ t: N.perfNow(), kind: 'unhandled-rejection', message: String(r?.message ?? r), p: e.promise });
  });
  w.addEventListener('rejectionhandled', (e: PromiseRejectionEvent) => {
    const i = errs.findIndex((x) => x.p === e.promise);
    if (i >= 0) errs.splice(i, 1);
  });
}
