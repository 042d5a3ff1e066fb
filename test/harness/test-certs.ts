/**
 * A throw-away certificate authority for TLS tests: ECDSA P-256 keys, certificates that both Envoy (BoringSSL)
 * and node's tls client accept.
 */
// @peculiar/x509 resolves its ASN.1 parts through tsyringe, which needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';
import { KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// @peculiar/x509 needs a WebCrypto implementation; node's is complete for ECDSA.
x509.cryptoProvider.set(webcrypto);

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface IssueOptions {
  /** Subject alternative names (DNS); wildcards such as `*.example.test` are allowed. */
  dnsNames: string[];
  /** Subject common name (default: the first DNS name). */
  commonName?: string;
  /** Default: one day ago, so clock skew between processes cannot make a fresh certificate "not yet valid". */
  notBefore?: Date;
  /** Default: 30 days from now. Pass a past date to get an expired certificate. */
  notAfter?: Date;
  /** Also allow the certificate for TLS client authentication. */
  clientAuth?: boolean;
}

export interface IssuedCertificate {
  certPem: string;
  /** PKCS#8 PEM ("BEGIN PRIVATE KEY"). */
  keyPem: string;
  /** Upper-case hexadecimal serial number, as node's getPeerCertificate() reports it: tells which certificate a
   * server presented. */
  serialNumber: string;
}

export interface TestCA {
  /** The CA certificate (PEM): what a client trusts. */
  certPem: string;
  keyPem: string;
  /** Issues a server certificate for `dnsNames`, signed by this CA. */
  issue(opts: IssueOptions): Promise<IssuedCertificate>;
}

export async function createTestCA(opts: { commonName?: string } = {}): Promise<TestCA> {
  const keys = await generateKeys();
  const now = Date.now();
  const name = `CN=${opts.commonName ?? 'envoy-ingress test CA'}`;
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    keys,
    signingAlgorithm: SIGNING_ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });

  const issue = async (issueOpts: IssueOptions): Promise<IssuedCertificate> => {
    if (issueOpts.dnsNames.length === 0) throw new Error('issue() needs at least one DNS name');
    const leafKeys = await generateKeys();
    const serialNumber = randomSerial();
    const issuedNow = Date.now();
    const usages = [x509.ExtendedKeyUsage.serverAuth, ...(issueOpts.clientAuth ? [x509.ExtendedKeyUsage.clientAuth] : [])];
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber,
      subject: `CN=${escapeDnValue(issueOpts.commonName ?? issueOpts.dnsNames[0] ?? '')}`,
      issuer: caCert.subject,
      notBefore: issueOpts.notBefore ?? new Date(issuedNow - DAY_MS),
      notAfter: issueOpts.notAfter ?? new Date(issuedNow + 30 * DAY_MS),
      publicKey: leafKeys.publicKey,
      signingKey: keys.privateKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension(usages, false),
        new x509.SubjectAlternativeNameExtension(
          issueOpts.dnsNames.map((value) => ({ type: 'dns' as const, value })),
          false,
        ),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return {
      certPem: cert.toString('pem'),
      keyPem: privateKeyPem(leafKeys.privateKey),
      serialNumber: serialNumber.toUpperCase(),
    };
  };

  return { certPem: caCert.toString('pem'), keyPem: privateKeyPem(keys.privateKey), issue };
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

function privateKeyPem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** 16 random bytes, high bit cleared so the DER integer stays positive. */
function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

function escapeDnValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (char) => `\\${char}`);
}
