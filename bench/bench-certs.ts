// One certificate and key shared by every synthetic TLS Secret (issuing thousands would measure the CA, not us).
import { createTestCA } from '../test/harness/test-certs.js';

export async function benchCertificate(): Promise<{ certPem: string; keyPem: string }> {
  const ca = await createTestCA({ commonName: 'envoy-ingress bench CA' });
  const cert = await ca.issue({ dnsNames: ['*.bench.test'] });
  return { certPem: cert.certPem, keyPem: cert.keyPem };
}
