// End to end for BackendTLSPolicy and the Gateway's backend client certificate: manifests on disk -> controller
// (standalone mode) -> a real Envoy -> HTTPS echo backends with certificates of a test CA. An HTTPRoute's backend
// targeted by a policy is reached over TLS with the policy's hostname as SNI and its CA (a ConfigMap `ca.crt`) and
// subjectAltNames checked; a backend whose certificate lacks the names, or is signed by another CA, is refused
// (503: the TLS handshake fails, nothing is sent in plaintext); a policy without a usable CA answers 500; the
// Gateway presents its clientCertificateRef to a backend that asks for one; a policy of another namespace cannot
// change this namespace's backends.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

function policy(name: string, service: string, validation: object, namespace = 'default'): object {
  return { apiVersion: gatewayApi, kind: 'BackendTLSPolicy', metadata: { name, namespace }, spec: { targetRefs: [{ group: '', kind: 'Service', name: service, sectionName: 'http' }], validation } };
}

test('BackendTLSPolicy: TLS to the backend with SNI, CA and SAN checks (refused when they do not match); the Gateway client certificate presented', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA({ commonName: 'backend CA' });
  const otherCa = await createTestCA({ commonName: 'another CA' });
  const serving = await ca.issue({ dnsNames: ['secure.example.internal'] });
  const foreignServing = await otherCa.issue({ dnsNames: ['secure.example.internal'] });
  const client = await ca.issue({ dnsNames: ['gateway.example.internal'], commonName: 'gateway-client', clientAuth: true });
  const backends = {
    // The same certificate: the names a policy asks for decide.
    secure: await useEchoBackend(t, { service: 'secure', tls: { cert: serving.certPem, key: serving.keyPem } }),
    mismatch: await useEchoBackend(t, { service: 'mismatch', tls: { cert: serving.certPem, key: serving.keyPem } }),
    foreign: await useEchoBackend(t, { service: 'foreign', tls: { cert: foreignServing.certPem, key: foreignServing.keyPem } }),
    broken: await useEchoBackend(t, { service: 'broken', tls: { cert: serving.certPem, key: serving.keyPem } }),
    mutual: await useEchoBackend(t, { service: 'mutual', tls: { cert: serving.certPem, key: serving.keyPem, clientCa: ca.certPem } }),
    plain: await useEchoBackend(t, { service: 'plain' }),
  };
  const gatewayPort = await freePort();
  const mutualPort = await freePort();
  const caConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'backend-ca', namespace: 'default' }, data: { 'ca.crt': ca.certPem } };
  const route = (name: string, gateway: string, hostname: string, rules: [string, string][]): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default' },
    spec: {
      parentRefs: [{ name: gateway }],
      hostnames: [hostname],
      rules: rules.map(([prefix, service]) => ({ matches: [{ path: { type: 'PathPrefix', value: prefix } }], backendRefs: [{ name: service, port: 80 }] })),
    },
  });
  const objects = [
    ...Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: b.address, port: b.port }])),
    caConfigMap,
    tlsSecret('gateway-client', client.certPem, client.keyPem),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'mtls', namespace: 'default' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: mutualPort, protocol: 'HTTP' }], tls: { backend: { clientCertificateRef: { name: 'gateway-client' } } } },
    },
    route('app', 'gw', 'app.example.test', [
      ['/secure', 'secure'],
      ['/mismatch', 'mismatch'],
      ['/foreign', 'foreign'],
      ['/broken', 'broken'],
      ['/plain', 'plain'],
    ]),
    route('mutual', 'mtls', 'mutual.example.test', [['/', 'mutual']]),
    route('no-client-cert', 'gw', 'nocert.example.test', [['/', 'mutual']]),
    policy('secure', 'secure', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'backend-ca' }], hostname: 'secure.example.internal', subjectAltNames: [{ type: 'Hostname', hostname: 'secure.example.internal' }] }),
    policy('mismatch', 'mismatch', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'backend-ca' }], hostname: 'secure.example.internal', subjectAltNames: [{ type: 'Hostname', hostname: 'other.example.internal' }] }),
    policy('foreign', 'foreign', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'backend-ca' }], hostname: 'secure.example.internal' }),
    policy('broken', 'broken', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'missing-ca' }], hostname: 'secure.example.internal' }),
    policy('mutual', 'mutual', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'backend-ca' }], hostname: 'secure.example.internal' }),
    // Another namespace's policy naming a Service called `plain`: targets are local, default/plain stays plaintext.
    policy('hijack', 'plain', { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'backend-ca' }], hostname: 'evil.example.internal' }, 'tenant-b'),
    { ...caConfigMap, metadata: { name: 'backend-ca', namespace: 'tenant-b' } },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (host: string, p: string, port = gatewayPort) => httpGet({ port, hostHeader: host, path: p });

  await waitFor(async () => (await get('app.example.test', '/secure')).status === 200, { description: 'the TLS backend answers through the Gateway' });
  const secure = await get('app.example.test', '/secure');
  t.is(secure.json?.service, 'secure');
  t.true(secure.json?.tls, 'the backend was reached over TLS');
  t.is(secure.json?.sni, 'secure.example.internal', 'the policy hostname is the SNI');

  // The certificate lacks the subjectAltName asked for, or is signed by a CA the policy does not trust: refused.
  t.is((await get('app.example.test', '/mismatch')).status, 503);
  t.is((await get('app.example.test', '/foreign')).status, 503);
  // No usable CA certificate: 5xx, never plaintext.
  t.is((await get('app.example.test', '/broken')).status, 500);
  // An untargeted Service port stays plaintext, whatever another namespace's policy names.
  const plain = await get('app.example.test', '/plain');
  t.is(plain.status, 200);
  t.false(plain.json?.tls);

  // The Gateway with a backend client certificate presents it; the other Gateway has none to present.
  await waitFor(async () => (await get('mutual.example.test', '/', mutualPort)).status === 200, { description: 'the client-certificate Gateway routes' });
  const mutual = await get('mutual.example.test', '/', mutualPort);
  t.is(mutual.json?.service, 'mutual');
  t.is(mutual.json?.clientCertificateCN, 'gateway-client');
  t.is((await get('nocert.example.test', '/')).status, 503);
});
