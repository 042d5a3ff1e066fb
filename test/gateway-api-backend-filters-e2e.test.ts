// End to end for HTTPRoute backendRefs[].filters (the Gateway API's HTTPRouteBackendRequestHeaderModification),
// standalone controller -> a real Envoy -> loopback echo backends, with the conformance tests' expectations
// (conformance/tests/httproute-request-header-modifier.go with -backend.yaml, and
// httproute-request-header-modifier-backend-weights.go at v1.6.3): a backend's header changes reach that backend
// only, on every request of a weighted split.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';
const host = 'backend-filters.example.test';

test("backendRef filters through Envoy: each backend's request header changes reach it alone; response changes too", async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const v1 = await useEchoBackend(t, { service: 'infra-backend-v1' });
  const v2 = await useEchoBackend(t, { service: 'infra-backend-v2' });
  const gatewayPort = await freePort();
  const setBackend = (value: string): object[] => [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'Backend', value }] } }];
  const prefix = (value: string): { matches: object[] } => ({ matches: [{ path: { type: 'PathPrefix', value } }] });
  const objects = [
    ...serviceWithEndpoints('v1', [{ address: v1.address, port: v1.port }]),
    ...serviceWithEndpoints('v2', [{ address: v2.address, port: v2.port }]),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'backend-filters', namespace: 'default' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: [host],
        rules: [
          {
            ...prefix('/multiple'),
            backendRefs: [
              {
                name: 'v1',
                port: 80,
                filters: [
                  {
                    type: 'RequestHeaderModifier',
                    requestHeaderModifier: {
                      set: [{ name: 'X-Header-Set-1', value: 'header-set-1' }],
                      add: [{ name: 'X-Header-Add-2', value: 'header-add-2' }],
                      remove: ['X-Header-Remove-1'],
                    },
                  },
                  { type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: 'X-From-Backend-Filter', value: 'v1' }] } },
                ],
              },
            ],
          },
          {
            ...prefix('/'),
            backendRefs: [
              { name: 'v1', port: 80, weight: 10, filters: setBackend('infra-backend-v1') },
              { name: 'v2', port: 80, weight: 10, filters: setBackend('infra-backend-v2') },
            ],
          },
        ],
      },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  const get = (p: string, headers: Record<string, string> = {}) => httpGet({ port: gatewayPort, hostHeader: host, path: p, headers });
  await waitFor(async () => (await get('/')).status === 200, { description: 'the route is served' });

  // The weighted split: every request carries exactly the header of the backend it reached, and both are reached.
  const seen = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const res = await get('/');
    t.is(res.status, 200);
    t.is(res.json?.headers['backend'], res.json?.service);
    seen.add(String(res.json?.service));
  }
  t.deepEqual([...seen].sort(), ['infra-backend-v1', 'infra-backend-v2']);

  // One backend with set, add and remove (canonical names in the filter, lower-case in the request), and a response
  // header of its own.
  const res = await get('/multiple', { 'x-header-set-1': 'original', 'x-header-add-2': 'add-val-2', 'x-header-remove-1': 'gone', 'another-header': 'kept' });
  t.is(res.status, 200);
  t.is(res.json?.service, 'infra-backend-v1');
  t.is(res.json?.headers['x-header-set-1'], 'header-set-1');
  t.is(res.json?.headers['x-header-add-2'], 'add-val-2, header-add-2');
  t.is(res.json?.headers['another-header'], 'kept');
  t.false('x-header-remove-1' in (res.json?.headers ?? {}));
  t.is(res.headers['x-from-backend-filter'], 'v1');
  // The other rule's backend header is not on this route's requests.
  t.false('backend' in (res.json?.headers ?? {}));
});
