// When a change touched only Secrets, and only their certificate bytes can differ in what they give: the build
// pipeline then reuses the last translation and rebuilds SDS alone (a `secrets` build).
import type { TlsSecretIR } from '../../ir/index.js';
import { namespaceOf, type KindsWithBuild } from '../translate/shared/kinds.js';
import type { ObjectOfKind } from '../translate/shared/kube-objects.js';
import { secretResourceName, validateTlsSecret } from '../translate/shared/tls-secret.js';

/** The kind whose changes a secrets build takes besides endpoint objects (kinds.ts): only Secrets have certificates. */
type Secret = ObjectOfKind<KindsWithBuild<'secrets'>>;

/** Keys of a Secret that the translation reads as trusted CAs (auth-tls-secret, proxy-ssl-secret), not as a certificate. */
const trustKeys = ['ca.crt', 'ca.crl'];

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function secretKey(secret: Secret): string {
  return secretResourceName(namespaceOf(secret.metadata), secret.metadata.name);
}

/**
 * The new TLS secrets when the Secrets that changed between `before` and `after` cannot change anything but
 * certificate bytes, else undefined. Translation uses a Secret only through its validation (valid or not, with
 * which error) and the DNS names of its certificate (diagnostics for hosts it does not cover): when every changed
 * Secret was valid and still is, for the same names, every translation outcome (TLS hosts, conflicts, redirects,
 * diagnostics) is the same, and only the SDS resources of those Secrets differ.
 */
export function certificateOnlyChanges(before: readonly Secret[], after: readonly Secret[]): Map<string, TlsSecretIR> | undefined {
  const old = new Map(before.map((s) => [secretKey(s), s]));
  const changed = new Map<string, TlsSecretIR>();
  for (const secret of after) {
    const key = secretKey(secret);
    const previous = old.get(key);
    old.delete(key);
    if (previous === secret) continue;
    if (previous === undefined) return undefined; // a new Secret may make a TLS host valid
    const was = validateTlsSecret(previous);
    const now = validateTlsSecret(secret);
    if (!was.valid || !now.valid || !sameNames(was.dnsNames, now.dnsNames)) return undefined;
    // Trusted CAs and revocation lists are translated (certificate authorities, their diagnostics): a full build.
    if (trustKeys.some((k) => previous.data?.[k] !== secret.data?.[k])) return undefined;
    changed.set(key, now.secret);
  }
  if (old.size > 0) return undefined; // a deleted Secret may make a TLS host invalid
  return changed;
}
