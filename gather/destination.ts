/**
 * Which destinations `--check-network` may contact: public internet addresses only. A page's URLs (and the
 * redirects they answer with) are followed from Node, on the scoring machine's network, so without this a page
 * could make webgrade probe loopback ports, the cloud metadata service (169.254.169.254) or the private network
 * and learn from its score what answers there.
 *
 * - The decision is made on addresses, after DNS resolution: a host name is resolved once, every address it
 *   resolves to must be public, and the connection is then made to those checked addresses (the request's
 *   `lookup` hands them back instead of resolving again), so a DNS answer that changes between check and
 *   connect (DNS rebinding) cannot switch the destination.
 * - Not public (refused): IPv4 this-network 0/8, 10/8, shared address space 100.64/10, loopback 127/8,
 *   link-local 169.254/16, 172.16/12, 192.0.0/24, the documentation nets (192.0.2/24, 198.51.100/24,
 *   203.0.113/24), 6to4 relay 192.88.99/24, 192.168/16, benchmarking 198.18/15, multicast 224/4, reserved 240/4
 *   and broadcast. IPv6: anything outside global unicast 2000::/3 (so unspecified ::, loopback ::1, unique-local
 *   fc00::/7, link-local fe80::/10, multicast ff00::/8 ...), and inside it the IETF protocol block 2001::/23
 *   (Teredo included), documentation 2001:db8::/32 and 3fff::/20, and 6to4 2002::/16; an IPv4 address written
 *   as IPv6 (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is judged by its IPv4 address.
 * - The classification uses Node's `net.BlockList` (no IP library is a declared dependency).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** The reason recorded for a URL that was not requested because it leads to a non-public address. */
export const PRIVATE_DESTINATION = 'not checked: private/loopback destination';

const NON_PUBLIC_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const NON_PUBLIC_V6_IN_GLOBAL: Array<[string, number]> = [
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
];

const nonPublicV4 = new BlockList();
for (const [net, bits] of NON_PUBLIC_V4) nonPublicV4.addSubnet(net, bits, 'ipv4');
const nonPublicV6 = new BlockList();
for (const [net, bits] of NON_PUBLIC_V6_IN_GLOBAL) nonPublicV6.addSubnet(net, bits, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');
const mapped = new BlockList();
mapped.addSubnet('::ffff:0:0', 96, 'ipv6');
const nat64 = new BlockList();
nat64.addSubnet('64:ff9b::', 96, 'ipv6');

/** The 8 hextets of an IPv6 address (which must be valid; a trailing dotted IPv4 part is allowed). */
function hextets(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((h) => parseInt(h, 16));
}

/** Is this IP address (v4 or v6) a public internet destination? Anything that is not an IP address is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return !nonPublicV4.check(address, 'ipv4') && address !== '255.255.255.255';
  if (family !== 6) return false;
  const bare = address.split('%')[0]!;
  if (mapped.check(bare, 'ipv6') || nat64.check(bare, 'ipv6')) {
    const h = hextets(bare);
    return isPublicAddress(`${h[6]! >> 8}.${h[6]! & 255}.${h[7]! >> 8}.${h[7]! & 255}`);
  }
  return globalUnicast.check(bare, 'ipv6') && !nonPublicV6.check(bare, 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (the system resolver, as a connection would use). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Where the remote check may connect. Production code uses `PUBLIC_ONLY`; tests build their own to resolve
 * made-up names and to let one local test server through. Never built from a page or a command-line flag.
 */
export interface DestinationPolicy {
  resolve: Resolver;
  /** Non-public `address:port` pairs that may still be contacted (IPv6 in brackets): for tests only. */
  allowNonPublicForTests?: ReadonlySet<string>;
}

export const PUBLIC_ONLY: DestinationPolicy = { resolve: systemResolver };

export type Destination = { ok: true; addresses: ResolvedAddress[] } | { ok: false; error?: string };

/**
 * The checked addresses a request to `url` may connect to, or why it may not: `{ok: false}` without `error` for a
 * non-public destination, with `error` when the name does not resolve.
 */
export async function checkDestination(url: URL, policy: DestinationPolicy): Promise<Destination> {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch (err) {
      const e = err as Error & { code?: string };
      return { ok: false, error: e.code ? `${e.code} (${e.message})` : e.message };
    }
    if (addresses.length === 0) return { ok: false, error: `ENOTFOUND (${host} has no address)` };
  }
  const allowed = (a: ResolvedAddress) =>
    isPublicAddress(a.address) || policy.allowNonPublicForTests?.has(a.family === 6 ? `[${a.address}]:${port}` : `${a.address}:${port}`) === true;
  // Every address must pass: a connection may fall back from one to the next.
  if (!addresses.every(allowed)) return { ok: false };
  return { ok: true, addresses };
}
