// Which xDS clients may open a stream: over mutual TLS the CA check alone admits any workload holding a
// certificate from that CA (cert-manager issuers are often shared), so the client certificate must also name one
// of the expected identities in its subjectAltName.
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';

/** Why a stream is refused, or undefined when the peer may proceed. */
export type ClientAuthorizer = (peer: { sslPeerCertificate?: PeerCertificate; transportSecurityType?: string }) => string | undefined;

/** The subjectAltName entries of a certificate as `DNS:name`, `URI:uri`, `IP Address:ip`. */
export function subjectAltNames(raw: Buffer): string[] {
  const san = new X509Certificate(raw).subjectAltName;
  if (san === undefined) return [];
  // Node quotes (JSON) an entry holding a comma or quote, so splitting on ", " outside quotes is exact.
  return (san.match(/(?:[^,"]|"(?:[^"\\]|\\.)*")+/g) ?? []).map((e) => e.trim()).map(unquoteEntry);
}

function unquoteEntry(entry: string): string {
  const colon = entry.indexOf(':');
  const value = entry.slice(colon + 1);
  return value.startsWith('"') ? `${entry.slice(0, colon + 1)}${JSON.parse(value) as string}` : entry;
}

/**
 * Admits a TLS peer whose certificate carries one of `allowed` as a DNS or URI subjectAltName (exactly; no
 * wildcards, no common name fallback).
 */
export function requireClientSan(allowed: readonly string[]): ClientAuthorizer {
  const wanted = new Set(allowed.flatMap((name) => [`DNS:${name}`, `URI:${name}`]));
  return (peer) => {
    const raw = peer.sslPeerCertificate?.raw;
    if (peer.transportSecurityType !== 'ssl' || raw === undefined) return 'no verified client certificate';
    const names = subjectAltNames(raw);
    if (names.some((n) => wanted.has(n))) return undefined;
    return `client certificate names ${names.length > 0 ? names.join(', ') : 'no subjectAltName'}, not one of ${allowed.join(', ')}`;
  };
}
