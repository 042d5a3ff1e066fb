/**
 * Key material for a test API server: a CA and a serving certificate for 127.0.0.1 (so clients verify TLS
 * instead of skipping it), and the RSA key pair that signs ServiceAccount tokens.
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { generateKeyPairSync, KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface ApiServerKeyMaterial {
  /** CA that issued the serving certificate: what kubeconfigs trust. */
  caCertPem: string;
  servingCertPem: string;
  servingKeyPem: string;
  /** RSA key pair for --service-account-signing-key-file / --service-account-key-file. */
  serviceAccountKeyPem: string;
  serviceAccountPublicKeyPem: string;
}

/** Node's WebCrypto, typed as what @peculiar/x509 expects (its typings use the DOM's Crypto). */
const crypto = webcrypto as unknown as NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[1]>;
const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;
/** Names clients may use for the API server: loopback and the in-cluster service names. */
const servingNames = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];

/** A self-signed CA valid for a week from a minute ago (the test and its servers share a clock, but certificate checks are strict). */
export async function createTestKubeCa(name: string): Promise<{ caKeys: webcrypto.CryptoKeyPair; caCert: x509.X509Certificate; notBefore: Date; notAfter: Date }> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 7 * 24 * 3600_000);
  const caKeys = await crypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const caCert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name,
      keys: caKeys,
      notBefore,
      notAfter,
      signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { caKeys, caCert, notBefore, notAfter };
}

export async function createApiServerKeyMaterial(): Promise<ApiServerKeyMaterial> {
  const { caKeys, caCert, notBefore, notAfter } = await createTestKubeCa('CN=envoy-ingress test kube CA');

  const servingKeys = await crypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const servingCert = await x509.X509CertificateGenerator.create(
    {
      subject: 'CN=kube-apiserver',
      issuer: caCert.subject,
      publicKey: servingKeys.publicKey,
      signingKey: caKeys.privateKey,
      notBefore,
      notAfter,
      signingAlgorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          { type: 'ip', value: '127.0.0.1' },
          ...servingNames.map((value) => ({ type: 'dns' as const, value })),
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const serviceAccountKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    caCertPem: caCert.toString('pem'),
    servingCertPem: servingCert.toString('pem'),
    servingKeyPem: privateKeyPem(servingKeys.privateKey),
    serviceAccountKeyPem: serviceAccountKeys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    serviceAccountPublicKeyPem: serviceAccountKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function privateKeyPem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}
