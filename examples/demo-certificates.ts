// A throw-away CA and server certificates for the demo's TLS hosts, made fresh at every start so no private key
// is ever committed. ECDSA P-256: accepted by Envoy (BoringSSL), curl and node.
// @peculiar/x509 resolves its ASN.1 parts through tsyringe, which needs the Reflect metadata polyfill first.
import 'reflect-metadata';
import { KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);

const keyAlgorithm = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;
const dayMs = 24 * 60 * 60 * 1000;

export interface DemoCA {
  /** What clients trust (curl --cacert). */
  caPem: string;
  /** A server certificate for `hosts` (DNS names) signed by this CA, with its PKCS#8 private key. */
  issue(hosts: readonly string[]): Promise<{ certPem: string; keyPem: string }>;
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01; // positive, no leading zero byte
  return Buffer.from(bytes).toString('hex');
}

function pkcs8Pem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

export async function createDemoCA(now: Date = new Date()): Promise<DemoCA> {
  // Valid from yesterday: a clock a little behind must not see a "not yet valid" certificate.
  const notBefore = new Date(now.getTime() - dayMs);
  const notAfter = new Date(now.getTime() + 30 * dayMs);
  const caKeys = await webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=envoy-ingress demo CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const issue = async (hosts: readonly string[]): Promise<{ certPem: string; keyPem: string }> => {
    const serverKeys = await webcrypto.subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']);
    const server = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: `CN=${hosts[0] ?? 'demo'}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: serverKeys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension(
          hosts.map((value) => ({ type: 'dns' as const, value })),
          false,
        ),
        await x509.SubjectKeyIdentifierExtension.create(serverKeys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    return { certPem: server.toString('pem'), keyPem: pkcs8Pem(serverKeys.privateKey) };
  };
  return { caPem: ca.toString('pem'), issue };
}
