// End to end for the Gateway API's first round: manifests on disk (a GatewayClass of ours, a Gateway with an HTTP
// listener on a free port, two HTTPRoutes) -> controller (standalone mode) -> a real Envoy -> loopback backends.
// Checks routing by host and path (a Host header's port kept for the backend), the spec's precedence across routes, filters, weighted backends (with an invalid one's
// share answered 500), and that an Ingress beside it keeps being served on its own port.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

test('Gateway API HTTP listener: routing, precedence across routes, weights; an Ingress beside it still served', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = {
    web: await useEchoBackend(t, { service: 'web' }),
    api: await useEchoBackend(t, { service: 'api' }),
    canary: await useEchoBackend(t, { service: 'canary' }),
    legacy: await useEchoBackend(t, { service: 'legacy' }),
  };
  const services = Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: b.address, port: b.port }]));
  const gatewayPort = await freePort();
  // serviceWithEndpoints makes Services on port 80 (targetPort: the backend's port).
  const port = (_name: keyof typeof backends): number => 80;
  const objects = [
    ingressClass(),
    ...services,
    ingress('legacy', { rules: [{ host: 'legacy.example.test', paths: [{ path: '/', service: 'legacy' }] }] }),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    {
      apiVersion: gatewayApi,
      kind: 'Gateway',
      metadata: { name: 'gw', namespace: 'default' },
      spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP', hostname: '*.example.test' }] },
    },
    {
      // Older: its exact /api/v1 beats the newer route's longer prefix; its / loses to the newer route's /api.
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'older', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: ['shop.example.test'],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'web', port: port('web') }] },
          { matches: [{ path: { type: 'Exact', value: '/api/v1' } }], backendRefs: [{ name: 'web', port: port('web') }] },
        ],
      },
    },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'newer', namespace: 'default', creationTimestamp: '2026-02-01T00:00:00Z' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: ['shop.example.test'],
        rules: [
          { matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: port('api') }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/api' }, headers: [{ name: 'x-canary', value: 'yes' }] }], backendRefs: [{ name: 'canary', port: port('canary') }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/search' }, queryParams: [{ name: 'q', value: 'canary' }] }], backendRefs: [{ name: 'canary', port: port('canary') }] },
          { matches: [{ path: { type: 'PathPrefix', value: '/search' }, method: 'DELETE' }], backendRefs: [{ name: 'api', port: port('api') }] },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/v1' } }],
            filters: [
              { type: 'URLRewrite', urlRewrite: { hostname: 'internal.example.test', path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } },
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Env', value: 'prod' }], remove: ['X-Debug'] } },
              { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'X-Served-By', value: 'gateway' }] } },
            ],
            backendRefs: [{ name: 'api', port: port('api') }],
          },
          {
            matches: [{ path: { type: 'Exact', value: '/old' } }],
            filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', hostname: 'new.example.test', path: { type: 'ReplaceFullPath', replaceFullPath: '/new' }, statusCode: 301 } }],
          },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/split' } }],
            backendRefs: [
              { name: 'api', port: port('api'), weight: 1 },
              { name: 'canary', port: port('canary'), weight: 1 },
              { name: 'missing', port: 80, weight: 1 },
            ],
          },
        ],
      },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener('ingress_http');
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);

  const at = async (host: string, p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<string> => {
    const res = await httpGet({ port: gatewayPort, hostHeader: host, path: p, headers, method });
    return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
  };
  await waitFor(async () => (await at('shop.example.test', '/')) === 'web', { description: 'the Gateway listener routes' });
  t.is(await at('shop.example.test', '/api/items'), 'api', 'the longer prefix of the newer route beats the older route\'s /');
  t.is(await at('shop.example.test', '/api/v1'), 'web', 'an exact path beats a prefix');
  t.is(await at('shop.example.test', '/api/items', { 'x-canary': 'yes' }), 'canary', 'a header match beats the same prefix without');
  t.is(await at('shop.example.test', '/apix'), 'web', 'a prefix matches whole path segments');
  t.is(await at('other.example.test', '/'), 'status 404', 'a host no route serves');
  t.is(await at('shop.example.test', '/search?q=canary'), 'canary', 'a query parameter match');
  t.is(await at('shop.example.test', '/search?q=other'), 'web', 'another value falls through to the older route\'s /');
  t.is(await at('shop.example.test', '/search', {}, 'DELETE'), 'api', 'a method match');
  // A Host header with a port matches its host, and reaches the backend unchanged (the Gateway API forwards Host
  // as sent; Envoy would otherwise strip the port).
  const withPort = await httpGet({ port: gatewayPort, hostHeader: `shop.example.test:${gatewayPort}`, path: '/api/items' });
  t.is(withPort.json?.service, 'api');
  t.is(withPort.json?.host, `shop.example.test:${gatewayPort}`);

  // Filters: a prefix rewrite without `//`, a Host rewrite, header changes both ways, a redirect.
  const rewritten = await httpGet({ port: gatewayPort, hostHeader: 'shop.example.test', path: '/v1/items?x=1', headers: { 'x-debug': '1' } });
  t.is(rewritten.json?.service, 'api');
  t.is(rewritten.json?.path, '/items?x=1');
  t.is(rewritten.json?.host, 'internal.example.test');
  t.is(rewritten.json?.headers['x-env'], 'prod');
  t.is(rewritten.json?.headers['x-debug'], undefined);
  t.is(rewritten.headers['x-served-by'], 'gateway');
  t.is((await httpGet({ port: gatewayPort, hostHeader: 'shop.example.test', path: '/v1' })).json?.path, '/');
  const moved = await httpGet({ port: gatewayPort, hostHeader: 'shop.example.test', path: '/old' });
  t.is(moved.status, 301);
  t.is(moved.headers.location, 'https://new.example.test/new');

  // 1:1:1 between api, canary and a missing Service: each about a third, the missing one's share a 500.
  const counts: Record<string, number> = {};
  for (let i = 0; i < 150; i++) {
    const got = await at('shop.example.test', '/split');
    counts[got] = (counts[got] ?? 0) + 1;
  }
  t.deepEqual(Object.keys(counts).sort(), ['api', 'canary', 'status 500'], JSON.stringify(counts));
  for (const share of Object.values(counts)) t.true(share >= 25 && share <= 80, JSON.stringify(counts));

  // The Ingress keeps its own port; the Gateway port does not serve it.
  const legacy = await httpGet({ port: stack.httpPort, hostHeader: 'legacy.example.test', path: '/' });
  t.is(legacy.json?.service, 'legacy');
  // Ingress listeners keep stripping the port (the Ingress behaviour the parity rows pin).
  const legacyWithPort = await httpGet({ port: stack.httpPort, hostHeader: `legacy.example.test:${stack.httpPort}`, path: '/' });
  t.is(legacyWithPort.json?.host, 'legacy.example.test');
  t.is(await at('legacy.example.test', '/'), 'status 404');
});
