// End to end for GRPCRoute (conformance grpcroute-exact-method-matching.go, -header-matching.go, -weight.go): manifests
// -> controller (standalone) -> a real Envoy -> gRPC backends (@grpc/grpc-js, HTTP/2 only), through a gRPC client on
// the Gateway's HTTP listener. Method matches (exact, service only, method only, regex), header matches, header
// modifiers, a mirror and a weighted split; an HTTPRoute on the same host keeps its own paths.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { echoService, grpcCall, startGrpcBackend } from './harness/grpc-echo.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';
const host = 'grpc.example.test';
const methods = ['Echo', 'EchoTwo', 'EchoThree'];
const call = (port: number, method: string, metadata: Record<string, string> = {}, service = echoService) => grpcCall(port, host, method, metadata, service);

test('GRPCRoute through Envoy: method and header matches, header modifier, mirror, weights; an HTTPRoute beside it', async (t) => {
  t.timeout(120_000);
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backends = { v1: await startGrpcBackend('v1', methods), v2: await startGrpcBackend('v2', methods), v3: await startGrpcBackend('v3', methods), other: await startGrpcBackend('other', methods, 'other.Service') };
  t.teardown(() => Object.values(backends).forEach((b) => b.stop()));
  const web = await useEchoBackend(t, { service: 'web' });
  const gatewayPort = await freePort();
  const services = [
    ...Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: '127.0.0.1', port: b.port }])),
    ...serviceWithEndpoints('web', [{ address: web.address, port: web.port }]),
  ];
  const to = (name: string, weight?: number): object => ({ name, port: 80, ...(weight === undefined ? {} : { weight }) });
  const objects = [
    ...services,
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    { apiVersion: gatewayApi, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port: gatewayPort, protocol: 'HTTP' }] } },
    {
      apiVersion: gatewayApi,
      kind: 'GRPCRoute',
      metadata: { name: 'echo', namespace: 'default' },
      spec: {
        parentRefs: [{ name: 'gw' }],
        hostnames: [host],
        rules: [
          { matches: [{ method: { service: echoService, method: 'Echo' } }], backendRefs: [to('v1')] },
          { matches: [{ method: { method: 'EchoTwo' } }], backendRefs: [to('v2')] },
          {
            // Service only: EchoThree (and any method no rule above names).
            matches: [{ method: { service: echoService } }],
            filters: [
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Grpc-Route', value: 'three' }] } },
              { type: 'RequestMirror', requestMirror: { backendRef: to('v3') } },
            ],
            backendRefs: [to('v1')],
          },
          { matches: [{ method: { service: echoService, method: 'Echo' }, headers: [{ name: 'version', value: 'two' }] }], backendRefs: [to('v2')] },
          { matches: [{ method: { type: 'RegularExpression', service: 'other\\..*', method: 'Echo.*' } }], backendRefs: [to('other')] },
          { matches: [{ method: { service: echoService, method: 'Echo' }, headers: [{ name: 'split', value: 'yes' }] }], backendRefs: [to('v1', 1), to('v2', 1)] },
        ],
      },
    },
    {
      apiVersion: gatewayApi,
      kind: 'HTTPRoute',
      metadata: { name: 'web', namespace: 'default' },
      spec: { parentRefs: [{ name: 'gw' }], hostnames: [host], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/web' } }], backendRefs: [to('web')] }] },
    },
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  const stack = await startStack(t, { manifestsDir: tmp.path });
  await stack.envoy.waitForListener(`gateway/http/${gatewayPort}`);
  await waitFor(async () => (await call(gatewayPort, 'Echo')).code === grpc.status.OK, { description: 'the GRPCRoute is served' });

  t.is((await call(gatewayPort, 'Echo')).backend, 'v1', 'exact service and method');
  t.is((await call(gatewayPort, 'EchoTwo')).backend, 'v2', 'method of any service');
  const three = await call(gatewayPort, 'EchoThree');
  t.is(three.backend, 'v1', 'service only');
  t.is(three.metadata?.['x-grpc-route'], 'three', 'the request header modifier');
  await waitFor(() => backends.v3.calls >= 1, { description: 'the mirror got the call' });
  t.is((await call(gatewayPort, 'Echo', { version: 'two' })).backend, 'v2', 'a header match beats the same method without');
  t.is((await call(gatewayPort, 'EchoTwo', {}, 'other.Service')).backend, 'other', 'regex service and method');
  t.is((await call(gatewayPort, 'Call', {}, 'unknown.Service')).code, grpc.status.UNIMPLEMENTED, 'no rule: a 404, which gRPC reads as UNIMPLEMENTED');

  const counts: Record<string, number> = {};
  for (let i = 0; i < 60; i++) {
    const answer = await call(gatewayPort, 'Echo', { split: 'yes' });
    counts[answer.backend ?? String(answer.code)] = (counts[answer.backend ?? String(answer.code)] ?? 0) + 1;
  }
  t.deepEqual(Object.keys(counts).sort(), ['v1', 'v2'], JSON.stringify(counts));
  for (const share of Object.values(counts)) t.true(share >= 15, JSON.stringify(counts));

  const plain = await httpGet({ port: gatewayPort, hostHeader: host, path: '/web/x' });
  t.is(plain.json?.service, 'web', 'the HTTPRoute on the same host');
  t.is(plain.json?.httpVersion, '1.1', 'an HTTPRoute backend stays HTTP/1.1');
});
