import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import test from 'ava';
import { createTestCA } from '../test/harness/test-certs.js';
import { requireClientSan, subjectAltNames } from './client-identity.js';

test('requireClientSan admits exactly the listed DNS names, refuses other names and peers without a certificate', async (t) => {
  const ca = await createTestCA();
  const peer = async (dnsNames: string[]) => {
    const cert = await ca.issue({ dnsNames, clientAuth: true });
    return { transportSecurityType: 'ssl', sslPeerCertificate: { raw: new X509Certificate(cert.certPem).raw } as PeerCertificate };
  };
  const check = requireClientSan(['envoy.envoy-ingress.svc']);
  t.is(check(await peer(['envoy.envoy-ingress.svc'])), undefined);
  t.is(check(await peer(['other.example', 'envoy.envoy-ingress.svc'])), undefined);
  t.is(check(await peer(['other.example'])), 'client certificate names DNS:other.example, not one of envoy.envoy-ingress.svc');
  // A prefix or a wildcard is not the name.
  t.truthy(check(await peer(['envoy.envoy-ingress.svc.evil.example'])));
  t.truthy(check(await peer(['*.envoy-ingress.svc'])));
  t.is(check({}), 'no verified client certificate');
  t.deepEqual(subjectAltNames((await peer(['a.example', 'b.example'])).sslPeerCertificate.raw), ['DNS:a.example', 'DNS:b.example']);
});
