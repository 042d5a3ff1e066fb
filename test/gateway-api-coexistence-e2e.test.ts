// End to end: an Ingress and HTTPRoutes on the same port through a real Envoy (standalone, shared mode). A Gateway
// HTTP listener on the Ingress HTTP port joins the Ingress listener; a host both claim is served by the older object
// only, never a mix of both (coexistence.ts), and both objects are told.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
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
