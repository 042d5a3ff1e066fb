// End to end, host ownership between namespaces (issue 25, items 2 and 3): the objects a tenant in namespace b can
// write to reach namespace a's host, controller (standalone) -> a real Envoy -> echo backends a-web and b-web. One
// stack reads the Ingress spec alone (TLS entries, default backends), one the ingress-nginx annotations (canary,
// app-root). Each case fails when hosts are merged across namespaces (--allow-cross-namespace-hosts, ingress-nginx).
import test from 'ava';
import { httpGet, httpsGet } from './harness/http-client.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret } from './fixtures/manifests.js';
import { nginx } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
  nginxLayer: Stack;
  ca: TestCA;
}

const older = '2024-01-01T00:00:00Z';
const newer = '2024-02-01T00:00:00Z';

const world = defineSharedWorld<World>(async (scope) => {
  const ca = await createTestCA();
  const aWeb = await scope.startBackend({ service: 'a-web' });
  const bWeb = await scope.startBackend({ service: 'b-web' });
  const services = [...serviceWithEndpoints('web', [endpointOf(aWeb)], 'a'), ...serviceWithEndpoints('web', [endpointOf(bWeb)], 'b')];
  // b's certificate names a's host: a tenant can issue itself one (a self-signed or a private CA's).
  const bCert = await ca.issue({ dnsNames: ['shop.test'] });
  const specObjects = [
    ingressClass(),
    ...services,
    ingress('site', { namespace: 'a', creationTimestamp: older, rules: [{ host: 'shop.test', paths: [{ path: '/app', service: 'web' }] }] }),
    // b: a TLS entry alone for a's host, and a default backend on an Ingress of its own host.
    ingress('takeover', { namespace: 'b', creationTimestamp: newer, defaultBackend: 'web', tls: [{ hosts: ['shop.test'], secretName: 'b-tls' }], rules: [{ host: 'b.test', paths: [{ path: '/b', service: 'web' }] }] }),
    tlsSecret('b-tls', bCert.certPem, bCert.keyPem, 'b'),
  ];
  const nginxObjects = [
    ingressClass(),
    ...services,
    ingress('site', { namespace: 'a', creationTimestamp: older, rules: [{ host: 'canary.test', paths: [{ path: '/', service: 'web' }] }, { host: 'approot.test', paths: [{ path: '/', service: 'web' }] }] }),
    ingress('canary', { namespace: 'b', creationTimestamp: newer, annotations: nginx({ canary: 'true', 'canary-weight': '100' }), rules: [{ host: 'canary.test', paths: [{ path: '/', service: 'web' }] }] }),
    ingress('app-root', { namespace: 'b', creationTimestamp: newer, annotations: nginx({ 'app-root': '/b' }), rules: [{ host: 'approot.test', paths: [{ path: '/b', service: 'web' }] }] }),
  ];
  const spec = await scope.startStack({ dir: await scope.tempDir(), objects: specObjects, ready: { host: 'b.test', path: '/b' } });
  const nginxLayer = await scope.startStack({ dir: await scope.tempDir(), objects: nginxObjects, translate: { nginxAnnotations: true }, ready: { host: 'canary.test' } });
  return { stack: spec, nginxLayer, ca };
});

async function served(stack: Stack, host: string, path: string): Promise<string> {
  const res = await httpGet({ port: stack.httpPort, hostHeader: host, path });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

test("b's TLS entry for a's plain host neither redirects it to https nor serves b's certificate for it", async (t) => {
  const w = await world(t);
  t.is(await served(w.stack, 'shop.test', '/app'), 'a-web');
  // No chain for shop.test and no default certificate: the handshake fails instead of presenting b's certificate.
  const tls = await httpsGet({ port: w.stack.httpsPort, hostHeader: 'shop.test', servername: 'shop.test', path: '/app', ca: w.ca.certPem }).then(
    (res) => `status ${res.status}`,
    () => 'refused',
  );
  t.is(tls, 'refused');
});

test("b's default backend answers its own host only, not a's unmatched paths", async (t) => {
  const w = await world(t);
  t.is(await served(w.stack, 'shop.test', '/elsewhere'), 'status 404');
  t.is(await served(w.stack, 'b.test', '/elsewhere'), 'b-web');
});

test("b's canary with canary-weight 100 on a's host and path takes none of a's requests", async (t) => {
  const w = await world(t);
  const answers = new Set<string>();
  for (let i = 0; i < 20; i++) answers.add(await served(w.nginxLayer, 'canary.test', `/r${i}`));
  t.deepEqual([...answers], ['a-web']);
});

test("b's app-root does not redirect a's /", async (t) => {
  const w = await world(t);
  t.is(await served(w.nginxLayer, 'approot.test', '/'), 'a-web');
});
