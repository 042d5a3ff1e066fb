// End to end: an Ingress and HTTPRoutes on the same port through a real Envoy (standalone, shared mode). A Gateway
// HTTP listener on the Ingress HTTP port joins the Ingress listener, HTTPS listeners with a hostname on the Ingress
// HTTPS port the Ingress HTTPS listener; a host both claim is served by the older object only (on HTTPS with its
// certificate), never a mix of both (coexistence.ts), and both objects are told.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet, httpsGet } from './harness/http-client.js';
import { createTestCA } from './harness/test-certs.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from './fixtures/manifests.js';
import { startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

test('an Ingress and HTTPRoutes on one port: each shared host answered by the older claimant alone, both reported', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const viaIngress = await useEchoBackend(t, { service: 'via-ingress' });
  const viaRoute = await useEchoBackend(t, { service: 'via-route' });
  // The Ingress HTTP port is chosen by the stack; the Gateway listener names it, so the manifests are written after
  // the stack started (the directory is watched).
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml([ingressClass()]));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  const httpPort = stack.httpPort;
  const route = (name: string, created: string, hostnames: string[]): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default', creationTimestamp: created },
    spec: { parentRefs: [{ name: 'gw' }], hostnames, rules: [{ backendRefs: [{ name: 'via-route', port: 80 }] }] },
  });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('via-ingress', [{ address: viaIngress.address, port: viaIngress.port }]),
    ...serviceWithEndpoints('via-route', [{ address: viaRoute.address, port: viaRoute.port }]),
    ingress('legacy', {
      creationTimestamp: '2026-01-02T00:00:00Z',
      rules: ['a.example.test', 'b.example.test', 'd.example.test'].map((host) => ({ host, paths: [{ path: '/', service: 'via-ingress', port: 80 }] })),
    }),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: httpPort, protocol: 'HTTP' }] },
    },
    route('newer', '2026-01-03T00:00:00Z', ['a.example.test', 'c.example.test']),
    route('older', '2026-01-01T00:00:00Z', ['b.example.test']),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  await stack.envoy.waitForListener('ingress_http');
  const at = async (host: string): Promise<string> => {
    const res = await httpGet({ port: httpPort, hostHeader: host, path: '/' });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  };
  await waitFor(async () => (await at('c.example.test')) === 'via-route', { description: 'the route served on the Ingress port' });
  for (let i = 0; i < 5; i++) {
    t.is(await at('a.example.test'), 'via-ingress', 'the Ingress is older than the route: it keeps a');
    t.is(await at('b.example.test'), 'via-route', 'the route is older than the Ingress: it keeps b');
    t.is(await at('c.example.test'), 'via-route');
    t.is(await at('d.example.test'), 'via-ingress');
  }
  t.is(await at('e.example.test'), 'status 404');
  const reported = stack.controller.reconciler.diagnostics
    .filter((d) => d.reason === 'HostSharedWithHTTPRoute' || d.reason === 'HostSharedWithIngress')
    .map((d) => `${d.object.kind}/${d.object.name}`)
    .sort();
  t.deepEqual(reported, ['HTTPRoute/newer', 'HTTPRoute/older', 'Ingress/legacy', 'Ingress/legacy']);
});

test('the Ingress HTTPS port shared: each TLS host served by the older claimant with its certificate; a TLS host\'s plain-HTTP redirect stays its Ingress\'s', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const viaIngress = await useEchoBackend(t, { service: 'via-ingress' });
  const viaRoute = await useEchoBackend(t, { service: 'via-route' });
  const ca = await createTestCA();
  // Two certificates for the same names, so an answer shows whose served it.
  const ingressCert = await ca.issue({ dnsNames: ['a.example.test', 'b.example.test', 'c.example.test'] });
  const gatewayCert = await ca.issue({ dnsNames: ['a.example.test', 'b.example.test', 'c.example.test'] });
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml([ingressClass()]));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  const { httpPort, httpsPort } = stack;
  const route = (name: string, created: string, sections: string[], hostnames: string[]): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default', creationTimestamp: created },
    spec: { parentRefs: sections.map((sectionName) => ({ name: 'gw', sectionName })), hostnames, rules: [{ backendRefs: [{ name: 'via-route', port: 80 }] }] },
  });
  const https = (name: string): object => ({ name: `https-${name[0]}`, port: httpsPort, protocol: 'HTTPS', hostname: name, tls: { certificateRefs: [{ name: 'gateway-tls' }] } });
  await writeFile(
    path.join(tmp.path, 'all.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('via-ingress', [{ address: viaIngress.address, port: viaIngress.port }]),
      ...serviceWithEndpoints('via-route', [{ address: viaRoute.address, port: viaRoute.port }]),
      tlsSecret('ingress-tls', ingressCert.certPem, ingressCert.keyPem),
      tlsSecret('gateway-tls', gatewayCert.certPem, gatewayCert.keyPem),
      ingress('legacy', {
        creationTimestamp: '2026-01-02T00:00:00Z',
        tls: [{ hosts: ['a.example.test', 'b.example.test'], secretName: 'ingress-tls' }],
        rules: ['a.example.test', 'b.example.test', 'd.example.test'].map((host) => ({ host, paths: [{ path: '/', service: 'via-ingress', port: 80 }] })),
      }),
      { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
      {
        apiVersion: gatewayApi,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: httpPort, protocol: 'HTTP' }, ...['a.example.test', 'b.example.test', 'c.example.test'].map(https)] },
      },
      route('newer', '2026-01-03T00:00:00Z', ['https-a', 'https-c'], ['a.example.test', 'c.example.test']),
      route('older', '2026-01-01T00:00:00Z', ['https-b'], ['b.example.test']),
      // Newer than the Ingress, on the HTTP port: a's plain HTTP (the Ingress's https redirect) stays the Ingress's.
      route('newer-plain', '2026-01-03T00:00:00Z', ['http'], ['a.example.test']),
    ]),
  );
  const over = async (host: string): Promise<string> => {
    try {
      const res = await httpsGet({ port: httpsPort, hostHeader: host, servername: host, ca: ca.certPem, path: '/' });
      const cert = res.peerCertificate?.serialNumber === gatewayCert.serialNumber ? 'gateway certificate' : res.peerCertificate?.serialNumber === ingressCert.serialNumber ? 'Ingress certificate' : 'another certificate';
      return `${res.status === 200 ? String(res.json?.service) : `status ${res.status}`} with the ${cert}`;
    } catch (err: unknown) {
      return `error ${String(err)}`;
    }
  };
  await waitFor(async () => (await over('c.example.test')) === 'via-route with the gateway certificate', { description: 'the Gateway HTTPS listener served on the Ingress HTTPS port' });
  for (let i = 0; i < 3; i++) {
    t.is(await over('a.example.test'), 'via-ingress with the Ingress certificate', 'the Ingress is older than the route: it keeps a, with its certificate');
    t.is(await over('b.example.test'), 'via-route with the gateway certificate', 'the route is older than the Ingress: it keeps b, with the Gateway listener\'s certificate');
    t.is(await over('c.example.test'), 'via-route with the gateway certificate');
  }
  const plain = await httpGet({ port: httpPort, hostHeader: 'a.example.test', path: '/x' });
  t.is(plain.status, 301, 'a over plain HTTP: still the Ingress\'s https redirect');
  t.is((await httpGet({ port: httpPort, hostHeader: 'd.example.test', path: '/' })).json?.service, 'via-ingress');
  const reported = stack.controller.reconciler.diagnostics
    .filter((d) => d.reason === 'HostSharedWithHTTPRoute' || d.reason === 'HostSharedWithIngress')
    .map((d) => `${d.object.kind}/${d.object.name}: ${d.message.replace(/ on port \d+/, ` on ${d.message.includes(` on port ${httpsPort} `) ? 'https' : 'http'}`).replace(/ is claimed.*keeps it: /, ' -> ')}`)
    .sort();
  t.deepEqual(reported, [
    'HTTPRoute/newer-plain: host a.example.test on http -> Ingress default/legacy; this route is not served for it there',
    'HTTPRoute/newer: host a.example.test on https -> Ingress default/legacy; this route is not served for it there',
    'HTTPRoute/older: host b.example.test on https -> HTTPRoute default/older',
    'Ingress/legacy: host a.example.test on http -> Ingress default/legacy',
    'Ingress/legacy: host a.example.test on https -> Ingress default/legacy',
    'Ingress/legacy: host b.example.test on https -> HTTPRoute default/older; this Ingress\'s rules for it are not served on that port',
  ]);
});
