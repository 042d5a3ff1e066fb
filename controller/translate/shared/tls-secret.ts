// Validation of kubernetes.io/tls Secrets into SDS certificates. Pure computation with node:crypto; no I/O.
import { PrivateKey, type TlsSecretIR } from '../../../ir/index.js';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { Secret } from './kube-objects.js';
import { namespaceOf } from './kinds.js';

export type ValidatedSecret =
  /** `dnsNames`: the names the leaf certificate is for (lower case), to check them against the hosts it serves. */
  | { valid: true; secret: TlsSecretIR; dnsNames: string[] }
  | { valid: false; error: string };

/** SDS resource name of a Secret: `namespace/name`. */
export function secretResourceName(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

const base64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Each PEM certificate block of a chain; text and other blocks between them are ignored, as Envoy does. */
const pemCertificates = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function decode(secret: Secret, key: string): { value: string } | { error: string } {
  const raw = secret.data?.[key];
  if (raw === undefined || raw === '') return { error: `has no data "${key}"` };
  const compact = raw.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !base64.test(compact)) return { error: `data "${key}" is not valid base64` };
  // A byte order mark (some Windows editors write one) is an encoding artefact, not PEM text: Envoy would not find
  // a BEGIN line behind it, so it is dropped from what Envoy gets.
  const text = Buffer.from(compact, 'base64').toString('utf8').replace(/^\uFEFF/, '');
  // Envoy (BoringSSL) finds a PEM block only where "-----BEGIN" starts a line; OpenSSL, used here, is laxer.
  if (/[^\r\n]-----BEGIN /.test(text)) return { error: `"${key}" has text before "-----BEGIN" on the same line` };
  return { value: text };
}

/**
 * Checks that a Secret is a usable TLS certificate: type kubernetes.io/tls, `tls.crt` holding PEM certificates
 * (leaf first, every one parsable), `tls.key` holding an unencrypted PEM private key, the key matching the leaf
 * certificate, and a leaf key of a type and size Envoy can load.
 * Expiry is not checked: that would need the clock, and an expired certificate is still the one asked for.
 * Memoised per Secret object (store objects are immutable and replaced on change): parsing keys and
 * certificates dominated full rebuilds with many TLS hosts.
 */
export function validateTlsSecret(secret: Secret): ValidatedSecret {
  let result = validatedSecrets.get(secret);
  if (result === undefined) {
    result = validateTlsSecretUncached(secret);
    validatedSecrets.set(secret, result);
  }
  return result;
}

const validatedSecrets = new WeakMap<Secret, ValidatedSecret>();

/**
 * `tls.crt` and `tls.key` of a Secret of any type, checked as validateTlsSecret checks them: a certificate the proxy
 * presents to backends (ingress-nginx proxy-ssl-secret, often an Opaque Secret beside `ca.crt`).
 */
export function validateKeyPairSecret(secret: Secret): ValidatedSecret {
  let result = validatedKeyPairs.get(secret);
  if (result === undefined) {
    result = validateTlsSecretUncached(secret, false);
    validatedKeyPairs.set(secret, result);
  }
  return result;
}

const validatedKeyPairs = new WeakMap<Secret, ValidatedSecret>();

function validateTlsSecretUncached(secret: Secret, typed = true): ValidatedSecret {
  const namespace = namespaceOf(secret.metadata);
  const name = secretResourceName(namespace, secret.metadata.name);
  const fail = (problem: string): ValidatedSecret => ({ valid: false, error: `secret ${name} ${problem}` });

  if (typed && secret.type !== 'kubernetes.io/tls') {
    return fail(`has type ${JSON.stringify(secret.type ?? 'Opaque')}, expected "kubernetes.io/tls"`);
  }
  const crt = decode(secret, 'tls.crt');
  if ('error' in crt) return fail(crt.error);
  const key = decode(secret, 'tls.key');
  if ('error' in key) return fail(key.error);

  if (!crt.value.includes('-----BEGIN CERTIFICATE-----')) return fail('"tls.crt" holds no PEM certificate');
  let certificate: X509Certificate;
  try {
    // Parses the first (leaf) certificate of the chain.
    certificate = new X509Certificate(crt.value);
  } catch (error) {
    return fail(`"tls.crt" is not a valid PEM certificate (${errorText(error)})`);
  }
  // Envoy reads the rest of the chain too, and one certificate it cannot parse fails the whole secret.
  const chain = crt.value.match(pemCertificates) ?? [];
  for (let i = 1; i < chain.length; i++) {
    try {
      new X509Certificate(chain[i] as string);
    } catch (error) {
      return fail(`"tls.crt" certificate ${i + 1} is not a valid PEM certificate (${errorText(error)})`);
    }
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.value)) return fail('"tls.key" holds no PEM private key');
  let privateKey;
  try {
    privateKey = createPrivateKey({ key: key.value, format: 'pem' });
  } catch (error) {
    return fail(`"tls.key" is not a valid unencrypted PEM private key (${errorText(error)})`);
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(privateKey);
  } catch {
    matches = false;
  }
  if (!matches) return fail('"tls.key" does not match the certificate in "tls.crt"');
  const unsupported = unsupportedKey(certificate);
  if (unsupported !== undefined) return fail(`"tls.crt" has ${unsupported}`);

  return {
    valid: true,
    secret: { name, certificateChain: crt.value, privateKey: new PrivateKey(key.value) },
    dnsNames: certificateDnsNames(certificate),
  };
}

/** Curves (OpenSSL names) Envoy accepts for ECDSA server certificates: P-256, P-384, P-521. */
const envoyCurves: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/**
 * What Envoy (BoringSSL) cannot load as a server certificate, or undefined. Envoy takes RSA keys of 2048 bits or
 * more, ECDSA on P-256, P-384 and P-521, and Ed25519; it refuses any other leaf key (RSA-PSS, DSA, Ed448, other
 * curves) with "Failed to load certificate chain", rejecting the secret and so the HTTPS listener of every host.
 */
function unsupportedKey(certificate: X509Certificate): string | undefined {
  const key = certificate.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa': {
      const bits = details.modulusLength ?? 0;
      return bits >= 2048 ? undefined : `an RSA key of ${bits} bits; Envoy needs at least 2048`;
    }
    case 'ec': {
      const curve = details.namedCurve ?? 'unknown';
      return curve in envoyCurves
        ? undefined
        : `an ECDSA key on curve ${curve}; Envoy supports P-256, P-384 and P-521`;
    }
    case 'ed25519':
      return undefined;
    default:
      return `a key of type ${key.asymmetricKeyType ?? 'unknown'}; Envoy supports RSA, ECDSA and Ed25519 certificates`;
  }
}

/**
 * DNS names of a certificate: its subjectAltName DNS entries, or, only when it has none, its subject CN (what
 * clients still fall back to). Lower case.
 */
export function certificateDnsNames(certificate: X509Certificate): string[] {
  const sans = (certificate.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4).toLowerCase());
  if (sans.length > 0) return sans;
  const commonName = /^CN=(.*)$/m.exec(certificate.subject)?.[1];
  return commonName === undefined ? [] : [commonName.toLowerCase()];
}

/**
 * Whether a certificate name covers an Ingress host the way TLS clients check it (RFC 6125): exact names match
 * exactly; a certificate wildcard `*.example.com` covers one label (`a.example.com`, not `example.com` nor
 * `a.b.example.com`); an Ingress wildcard host `*.example.com` is covered only by that same wildcard.
 */
export function certificateCoversHost(dnsNames: readonly string[], host: string): boolean {
  return dnsNames.some((name) => {
    if (name === host) return true;
    if (!name.startsWith('*.') || host.startsWith('*.')) return false;
    const dot = host.indexOf('.');
    return dot > 0 && host.slice(dot) === name.slice(1);
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
