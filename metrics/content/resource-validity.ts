/**
 * resource-validity (SPEC #15): every resource the artifact references must be reachable.
 * References: `artifact.resources` (HTML: img/srcset/source/video/poster/audio/track/script/iframe/embed/object/
 * input[type=image]/link rel=stylesheet|icon|manifest|preload; CSS: url() incl. @font-face, @import) plus the URLs
 * found in JS (lib/js-urls.ts: fetch, XHR open, src assignments, setAttribute('src'), import, workers,
 * new Audio, asset-path string literals, src="" inside markup strings, data: literals).
 * Score `(1 − log2(1 + invalid/(total+1))) × 100` (logPenalty) over the verified references.
 *
 * Interpretations:
 * - A reference is one occurrence: the same URL written on two lines counts twice (a missing image repeated in
 *   ten cards is ten broken images on screen); the same (URL, file, line) counts once.
 * - Local: valid when the resolved path is a file of the artifact with more than 0 bytes. Invalid when it is
 *   missing, empty, or escapes the artifact root (`../x`). A single-file artifact holds only its own file, so
 *   any local reference to a sibling file is missing (the artifact model's choice). A folder URL resolves to its
 *   `index.html`.
 * - `data:` URIs: valid when well-formed: `data:[type/subtype][;param]*[;base64],payload` (parameters are not
 *   checked: browsers ignore malformed ones such as the common `;utf8`, while a malformed type makes the data
 *   plain text, so that is invalid); base64 payloads
 *   must be forgiving-base64 valid (RFC 4648 alphabet, whitespace ignored, length mod 4 ≠ 1); a declared
 *   image/png|jpeg|gif|webp payload must start with that format's signature; the payload must not be empty for
 *   media types; a non-base64 payload must not contain an unescaped `#` (browsers cut the URL there, which
 *   breaks inline SVGs written with `fill="#fff"`).
 * - `file:` URLs are invalid (a served page cannot reach the file system). Other special schemes
 *   (`blob:`, `javascript:`, `about:`, `mailto:`, `#`, empty) are not resources: left out and counted as ignored.
 * - Remote URLs of well-known CDNs (jsDelivr, unpkg, cdnjs, esm.sh, Google Fonts ...), in network mode `cdn` (the
 *   default): checked through the CDN cache filled from the npm registry (gather/remote-check.ts). Valid
 *   when the package, version and file exist; invalid when the registry says they were never published (a
 *   version or file that does not exist: a real defect of the page, 404 on the real CDN too); unverified when the
 *   cache cannot serve that URL form or the registry is out of reach.
 * - Other remote URLs (`http(s)://`, `//host`): checked only with `--check-network` (HEAD, GET fallback, 2xx =
 *   valid). Without it, for URLs the check did not reach, and for URLs that lead to a loopback, private or other
 *   non-public address (never requested: "not checked: private/loopback destination"), they are *unverified*:
 *   listed in details and left out of the formula (neither valid nor invalid).
 * - Unscorable when no reference can be verified: "only remote references, unverified (use --check-network)"
 *   when every reference is remote and unchecked, "no referenced resources" when there is none at all.
 */
import type { ResourceRef } from '../../core/artifact/model.js';
import type { RemoteCheck } from '../../core/evidence.js';
import { allReferences, remoteKey, type JsUrlRef } from '../../lib/js-urls.js';
import { logPenalty, round2 } from '../lib/formula.js';
import { scored, unscorable, type MetricDefinition } from '../../core/metric.js';
import { imageFormat } from '../../lib/image-signature.js';

export interface DataUriCheck {
  ok: boolean;
  reason?: string;
}

const SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => imageFormat(b) === 'png',
  'image/jpeg': (b) => imageFormat(b) === 'jpeg',
  'image/jpg': (b) => imageFormat(b) === 'jpeg',
  'image/gif': (b) => imageFormat(b) === 'gif',
  'image/webp': (b) => imageFormat(b) === 'webp',
};

/** Is a `data:` URI well-formed? See the module comment for the rules. */
export function checkDataUri(uri: string): DataUriCheck {
  const u = uri.trim();
  const m = /^data:([^,]*),([\s\S]*)$/i.exec(u);
  if (!m) return { ok: false, reason: 'no comma between the header and the data' };
  const header = m[1]!;
  const payload = m[2]!;
  const parts = header.split(';').map((p) => p.trim());
  const base64 = parts.length > 1 && parts[parts.length - 1]!.toLowerCase() === 'base64';
  if (base64) parts.pop();
  const type = parts[0]!.toLowerCase();
  if (type !== '' && !/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(type)) return { ok: false, reason: `malformed media type "${parts[0]}"` };
  const media = /^(image|audio|video|font)\//.test(type);
  if (base64) {
    let data = payload.replace(/[\t\n\f\r ]/g, '');
    try {
      data = decodeURIComponent(data);
    } catch {
      return { ok: false, reason: 'bad percent-encoding in base64 data' };
    }
    data = data.replace(/[\t\n\f\r ]/g, '');
    if (data.length % 4 === 0) data = data.replace(/={1,2}$/, '');
    if (data.length % 4 === 1) return { ok: false, reason: 'base64 data has an impossible length' };
    if (!/^[A-Za-z0-9+/]*$/.test(data)) {
      const bad = /[^A-Za-z0-9+/]/.exec(data)?.[0] ?? '?';
      return { ok: false, reason: `base64 data contains "${bad}"` };
    }
    if (media && data.length === 0) return { ok: false, reason: 'empty data' };
    const sig = SIGNATURES[type];
    if (sig && !sig(Buffer.from(data.slice(0, 24), 'base64')))
      return { ok: false, reason: `data is not a ${type.slice(6).toUpperCase()} image (wrong signature)` };
    return { ok: true };
  }
  if (media && payload.trim() === '') return { ok: false, reason: 'empty data' };
  if (payload.includes('#')) return { ok: false, reason: 'unescaped "#" cuts the data short (write %23)' };
  try {
    decodeURIComponent(payload);
  } catch {
    return { ok: false, reason: 'bad percent-encoding' };
  }
  return { ok: true };
}

type Ref = ResourceRef | JsUrlRef;

interface Listed {
  kind: string;
  via?: string;
  url: string;
  file: string;
  line: number;
  why?: string;
}

const MAX_LISTED = 200;

function short(url: string): string {
  return url.length > 120 ? url.slice(0, 100) + `… (${url.length} chars)` : url;
}

function listed(r: Ref, why?: string): Listed {
  const out: Listed = { kind: r.kind, url: short(r.url), file: r.file, line: r.line };
  if ('via' in r) out.via = r.via;
  if (why) out.why = why;
  return out;
}

const resourceValidity: MetricDefinition = {
  number: 15,
  id: 'resource-validity',
  perspective: 'content',
  kind: 'rule',
  needs: ['source'],
  optional: ['network'],
  title: 'Resource validity',
  question: 'Do all referenced images, scripts, styles and fonts actually exist?',
  suite: 'study',
  score(evidence) {
    const { artifact } = evidence;
    const sizes = new Map(artifact.files.map((f) => [f.path, f.size]));
    const remote = evidence.remote;
    const checks: Record<string, RemoteCheck> | null = remote?.ok ? remote.value : null;
    const remoteNote = !evidence.options.checkNetwork
      ? `network checks are off (use --check-network; CDN URLs are checked through the CDN cache in network mode cdn${evidence.options.network && evidence.options.network !== 'cdn' ? `, not ${evidence.options.network}` : ''})`
      : remote && !remote.ok
        ? `network check failed: ${remote.reason}`
        : remote
          ? 'not checked'
          : 'network check did not run';

    const invalid: Listed[] = [];
    const unverified: Listed[] = [];
    const ignored: Listed[] = [];
    let valid = 0;
    const byKind: Record<string, { total: number; invalid: number }> = {};
    const count = (r: Ref, bad: boolean) => {
      const k = (byKind[r.kind] ??= { total: 0, invalid: 0 });
      k.total++;
      if (bad) k.invalid++;
    };

    for (const r of allReferences(artifact)) {
      let why: string | undefined;
      if (r.location === 'local') {
        if (r.path === null || r.path === undefined) why = 'points outside the artifact';
        else if (!r.exists) why = `missing file ${r.path || '/'}`;
        else {
          const size = sizes.get(r.path) ?? sizes.get(r.path + 'index.html');
          if (size === 0) why = `empty file ${r.path}`;
        }
      } else if (r.location === 'data') {
        const c = checkDataUri(r.url);
        if (!c.ok) why = `malformed data URI: ${c.reason}`;
      } else if (r.location === 'remote') {
        const check = checks?.[remoteKey(r.url)];
        if (!check) {
          unverified.push(listed(r, remoteNote));
          continue;
        }
        if (check.unverified) {
          unverified.push(listed(r, check.unverified));
          continue;
        }
        if (!check.ok) {
          const base = check.status !== undefined ? `HTTP ${check.status}` : `unreachable: ${check.error ?? 'unknown error'}`;
          why = check.via === 'cdn cache' ? `not on the CDN: ${check.error ?? base}` : base;
        }
      } else {
        if (/^file:/i.test(r.url.trim())) why = 'file: URL cannot be reached from a served page';
        else {
          ignored.push(listed(r));
          continue;
        }
      }
      count(r, why !== undefined);
      if (why) invalid.push(listed(r, why));
      else valid++;
    }

    const total = valid + invalid.length;
    const details = {
      verified: total,
      valid,
      invalidCount: invalid.length,
      unverifiedCount: unverified.length,
      ignoredCount: ignored.length,
      byKind,
      invalid: invalid.slice(0, MAX_LISTED),
      unverified: unverified.slice(0, MAX_LISTED),
      ignored: ignored.slice(0, 50),
    };
    if (total === 0) {
      if (unverified.length > 0) {
        return unscorable(
          evidence.options.checkNetwork
            ? `only remote references, none could be verified (${remoteNote})`
            : 'only remote references, unverified (use --check-network)',
          details,
        );
      }
      return unscorable('no referenced resources', details);
    }
    const score = logPenalty(invalid.length, total);
    const extra = unverified.length ? `; ${unverified.length} remote unverified` : '';
    const first = invalid[0] ? ` (e.g. ${invalid[0].url}: ${invalid[0].why})` : '';
    return scored(score, `${invalid.length} of ${total} verified references invalid${first}${extra}`, {
      ...details,
      formula: `(1 − log2(1 + ${invalid.length}/(${total}+1))) × 100 = ${round2(score)}`,
    });
  },
};

export default resourceValidity;
