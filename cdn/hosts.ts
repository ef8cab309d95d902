/**
 * The hostnames this module answers for. Every other host is not a CDN (`isCdnHost` false: the proxy blocks it).
 * A CDN host with a path we do not understand gets `unavailable` "unsupported <cdn> URL form" from `answer`.
 */
export type CdnId =
  'jsdelivr' | 'esm.run' | 'unpkg' | 'cdnjs' | 'esm.sh' | 'skypack' | 'google-fonts' | 'google-fonts-files' | 'tailwind' | 'fontawesome' | 'fontawesome-kit';

const HOSTS: Record<string, CdnId> = {
  'cdn.jsdelivr.net': 'jsdelivr',
  'fastly.jsdelivr.net': 'jsdelivr',
  'gcore.jsdelivr.net': 'jsdelivr',
  'testingcf.jsdelivr.net': 'jsdelivr',
  'quantil.jsdelivr.net': 'jsdelivr',
  'originfastly.jsdelivr.net': 'jsdelivr',
  'esm.run': 'esm.run',
  'unpkg.com': 'unpkg',
  'www.unpkg.com': 'unpkg',
  'cdnjs.cloudflare.com': 'cdnjs',
  'esm.sh': 'esm.sh',
  'cdn.esm.sh': 'esm.sh',
  'cdn.skypack.dev': 'skypack',
  'fonts.googleapis.com': 'google-fonts',
  'fonts.gstatic.com': 'google-fonts-files',
  'cdn.tailwindcss.com': 'tailwind',
  'use.fontawesome.com': 'fontawesome',
  'kit.fontawesome.com': 'fontawesome-kit',
};

function norm(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/:443$|:80$/, '');
}

/** Is `host` (a hostname, optionally with :443/:80) one this module answers for? */
export function isCdnHost(host: string): boolean {
  return Object.prototype.hasOwnProperty.call(HOSTS, norm(host));
}

export function cdnOf(host: string): CdnId | null {
  return HOSTS[norm(host)] ?? null;
}

/** Every hostname answered, for the proxy's allow list and the docs. */
export const CDN_HOSTS: readonly string[] = Object.keys(HOSTS);
