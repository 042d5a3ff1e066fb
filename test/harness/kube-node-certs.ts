/**
 * Key material for the real node (kube-node.ts): one CA, the API server's serving certificate (loopback, the node
 * address, the first Service IP and the in-cluster names, so pods verify it through the `kubernetes` Service),
 * the client certificate the API server shows the kubelet (system:masters, for logs and exec), the kubelet's
 * serving certificate, and the ServiceAccount signing key pair. Components authenticate to the API server with
 * static tokens instead of client certificates: fewer moving parts, same identities.
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API loaded first.
import 'reflect-metadata';
import { generateKeyPairSync, KeyObject, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { createTestKubeCa } from './kube-certs.js';

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface NodeKeyMaterial {
  ca: KeyPairPem;
  apiServerServing: KeyPairPem;
  apiServerKubeletClient: KeyPairPem;
  kubeletServing: KeyPairPem;
  serviceAccountKeyPem: string;
  serviceAccountPublicKeyPem: string;
}

const crypto = webcrypto as unknown as NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[1]>;
const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signingAlgorithm = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function createNodeKeyMaterial(options: { nodeName: string; nodeAddress: string; kubernetesServiceIp: string }): Promise<NodeKeyMaterial> {
  const { caKeys, caCert, notBefore, notAfter } = await createTestKubeCa('CN=envoy-ingress test node CA');
  const issue = async (subject: string, usage: 'server' | 'client', ips: string[] = [], dns: string[] = []): Promise<KeyPairPem> => {
    const keys = await crypto.subtle.generateKey(ecdsa, true, ['sign', 'verify']);
    const names = [...ips.map((value) => ({ type: 'ip' as const, value })), ...dns.map((value) => ({ type: 'dns' as const, value }))];
    const cert = await x509.X509CertificateGenerator.create(
      {
        subject,
        issuer: caCert.subject,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        notBefore,
        notAfter,
        signingAlgorithm,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
          ...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    return { certPem: cert.toString('pem'), keyPem: pem(keys.privateKey) };
  };
  const serviceAccountKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    ca: { certPem: caCert.toString('pem'), keyPem: pem(caKeys.privateKey) },
    apiServerServing: await issue('CN=kube-apiserver', 'server', ['127.0.0.1', options.nodeAddress, options.kubernetesServiceIp], [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ]),
    apiServerKubeletClient: await issue('CN=kube-apiserver-kubelet-client, O=system:masters', 'client'),
    kubeletServing: await issue(`CN=${options.nodeName}`, 'server', [options.nodeAddress], [options.nodeName]),
    serviceAccountKeyPem: serviceAccountKeys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    serviceAccountPublicKeyPem: serviceAccountKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function pem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}
