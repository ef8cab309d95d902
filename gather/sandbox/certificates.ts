/**
 * TLS for the sandbox proxy. To answer `https://cdn.jsdelivr.net/...` from the CDN cache (and to see, and log, the
 * full URL of every https request it refuses), the proxy ends the page's TLS itself, with certificates it makes:
 * one ECDSA P-256 key pair per scoring process, and a self-signed certificate per host name (or IP) made on
 * demand with that key. Chrome is told to accept exactly that key (`--ignore-certificate-errors-spki-list` with
 * the key's SPKI SHA-256, chrome-process.ts), not certificate errors in general; and it can reach nothing but
 * the proxy anyway. The key lives only in this process's memory.
 *
 * Made with @peculiar/x509 over Node's WebCrypto (no hand-written ASN.1).
 */
import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Certificates are valid from a day ago (clock skew) for 30 days: a process never lives that long. */
const DAY_MS = 86_400_000;

export class SandboxCertificates {
  private readonly contexts = new Map<string, Promise<SecureContext>>();
  private serial = 1;

  private constructor(
    private readonly keys: CryptoKeyPair,
    private readonly keyPem: string,
    /** base64 SHA-256 of the key's SubjectPublicKeyInfo: the value of Chrome's SPKI allow-list. */
    readonly spki: string,
  ) {}

  static async create(): Promise<SandboxCertificates> {
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
    const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as unknown as webcrypto.CryptoKey);
    const spkiDer = await webcrypto.subtle.exportKey('spki', keys.publicKey as unknown as webcrypto.CryptoKey);
    const spki = createHash('sha256').update(Buffer.from(spkiDer)).digest('base64');
    return new SandboxCertificates(keys, x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'), spki);
  }

  /** A TLS context whose certificate names `host` (made once per host). */
  contextFor(host: string): Promise<SecureContext> {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    let ctx = this.contexts.get(name);
    if (!ctx) {
      ctx = this.make(name);
      this.contexts.set(name, ctx);
    }
    return ctx;
  }

  private async make(name: string): Promise<SecureContext> {
    const san = isIP(name) ? { type: 'ip' as const, value: name } : { type: 'dns' as const, value: name };
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: (this.serial++).toString(16).padStart(2, '0'),
      name: `CN=${isIP(name) ? 'webgrade sandbox' : name}`,
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 30 * DAY_MS),
      keys: this.keys,
      signingAlgorithm: ALGORITHM,
      extensions: [new x509.SubjectAlternativeNameExtension([san]), new x509.BasicConstraintsExtension(false)],
    });
    return createSecureContext({ cert: cert.toString('pem'), key: this.keyPem });
  }
}
