// Trusted CAs from a Secret (`ca.crt`, optionally `ca.crl`: ingress-nginx auth-tls-secret and proxy-ssl-secret) into
// a CertificateAuthorityIR. Pure computation with node:crypto. Errors name the Secret and its keys, never what
// they hold (they become Events).
import { X509Certificate } from 'node:crypto';
import type { CertificateAuthorityIR } from '../../../ir/index.js';
import { namespaceOf } from './kinds.js';
import type { Secret } from './kube-objects.js';
import { secretResourceName } from './tls-secret.js';

/** SDS name of the trusted CAs of a Secret: `namespace/name/ca.crt` (no Secret name holds a `/`). */
export function certificateAuthorityName(namespace: string, name: string): string {
  return `${secretResourceName(namespace, name)}/ca.crt`;
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;
const pemBlock = (label: string): RegExp => new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g');

function decoded(secret: Secret, key: string): string | undefined | { error: string } {
  const raw = secret.data?.[key];
  if (raw === undefined || raw === '') return undefined;
  const compact = raw.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !base64.test(compact)) return { error: `data "${key}" is not valid base64` };
  return Buffer.from(compact, 'base64').toString('utf8').replace(/^\uFEFF/, '');
}

/** DER length at `offset` (after the tag): [length, header bytes], or undefined. */
function derLength(der: Buffer, offset: number): [number, number] | undefined {
  const first = der[offset];
  if (first === undefined) return undefined;
  if (first < 0x80) return [first, 1];
  const bytes = first & 0x7f;
  if (bytes === 0 || bytes > 4 || offset + bytes >= der.length) return undefined;
  let length = 0;
  for (let i = 1; i <= bytes; i++) length = length * 256 + (der[offset + i] as number);
  return [length, 1 + bytes];
}

/**
 * Whether DER bytes have the shape of a CRL (a SEQUENCE of the signed list, its algorithm and a BIT STRING, filling
 * the block exactly): Envoy refuses a validation context with a CRL it cannot read, and with it the whole update.
 */
function looksLikeCrl(der: Buffer): boolean {
  if (der[0] !== 0x30) return false;
  const outer = derLength(der, 1);
  if (outer === undefined || 1 + outer[1] + outer[0] !== der.length) return false;
  let at = 1 + outer[1];
  for (const tag of [0x30, 0x30, 0x03]) {
    if (der[at] !== tag) return false;
    const inner = derLength(der, at + 1);
    if (inner === undefined) return false;
    at += 1 + inner[1] + inner[0];
  }
  return at === der.length;
}

/**
 * The PEM certificates of a `ca.crt` value (Secret or ConfigMap), each checked as Envoy will read it: a bundle
 * Envoy cannot read would make it refuse the whole update.
 */
export function readPemCertificates(crt: string): { pem: string } | { error: string } {
  // Envoy (BoringSSL) finds a PEM block only where "-----BEGIN" starts a line.
  if (/[^\r\n]-----BEGIN /.test(crt)) return { error: 'data "ca.crt" has text before "-----BEGIN" on the same line' };
  const certificates = [...crt.matchAll(pemBlock('CERTIFICATE'))].map((m) => m[0]);
  if (certificates.length === 0) return { error: 'data "ca.crt" holds no PEM certificate' };
  for (const [i, pem] of certificates.entries()) {
    try {
      new X509Certificate(pem);
    } catch {
      return { error: `data "ca.crt": certificate ${i + 1} is not a valid PEM certificate` };
    }
  }
  return { pem: `${certificates.join('\n')}\n` };
}

/** The Secret's trusted CAs, or why they cannot be used. */
export function readCertificateAuthority(secret: Secret): { ca: CertificateAuthorityIR } | { error: string } {
  const namespace = namespaceOf(secret.metadata);
  const crt = decoded(secret, 'ca.crt');
  if (crt === undefined) return { error: 'has no data "ca.crt" (the trusted CA certificates, PEM)' };
  if (typeof crt !== 'string') return crt;
  const certificates = readPemCertificates(crt);
  if ('error' in certificates) return certificates;
  const ca: CertificateAuthorityIR = { name: certificateAuthorityName(namespace, secret.metadata.name), certificates: certificates.pem };
  const crl = decoded(secret, 'ca.crl');
  if (crl !== undefined) {
    if (typeof crl !== 'string') return crl;
    const lists = [...crl.matchAll(pemBlock('X509 CRL'))];
    if (lists.length === 0) return { error: 'data "ca.crl" holds no PEM certificate revocation list ("X509 CRL")' };
    for (const [i, m] of lists.entries()) {
      const body = (m[1] ?? '').replace(/\s+/g, '');
      if (!base64.test(body) || !looksLikeCrl(Buffer.from(body, 'base64'))) return { error: `data "ca.crl": list ${i + 1} is not a valid certificate revocation list` };
    }
    ca.revocationList = `${lists.map((m) => m[0]).join('\n')}\n`;
  }
  return { ca };
}
