// End to end: many Gateways on one Envoy, each with addresses of its own (manifests -> controller in standalone mode
// -> a real Envoy -> loopback backends). Two Gateways both listen on port 80 for the same hostname, each with its
// own HTTPRoute: through each Gateway's own address only its own route answers, never the other's. Once with
// --gateway-address-pool (an IP each, port 80 on both), once with the cluster mode's Envoy ports per Gateway
// (--gateway-port-range: what each Gateway's Service targets). Without either, the same manifests give one shared
// listener where the younger Gateway's listener is refused (HostnameConflict): the isolation comes from the sockets.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { freePort, startStack } from './fixtures/standalone-stack.js';
import type { TranslateOptions } from '../controller/translate/shared/options.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

/** Two Gateways (a older than b) on `port` for shop.example.test, a route each to a backend of its own. */
async function twoGateways(t: ExecutionContext, port: number, extra: { b?: Record<string, unknown> } = {}): Promise<string> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const backendA = await useEchoBackend(t, { service: 'app-a' });
  const backendB = await useEchoBackend(t, { service: 'app-b' });
  const gateway = (name: string, created: string, spec: Record<string, unknown> = {}): object => ({
    apiVersion: gatewayApi,
    kind: 'Gateway',
    metadata: { name, namespace: 'default', creationTimestamp: created },
    spec: { gatewayClassName: 'envoy', listeners: [{ name: 'http', port, protocol: 'HTTP', hostname: 'shop.example.test' }], ...spec },
  });
  const route = (name: string, gatewayName: string, service: string): object => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default' },
    spec: { parentRefs: [{ name: gatewayName }], hostnames: ['shop.example.test'], rules: [{ backendRefs: [{ name: service, port: 80 }] }] },
  });
  const objects = [
    ...serviceWithEndpoints('app-a', [{ address: backendA.address, port: backendA.port }]),
    ...serviceWithEndpoints('app-b', [{ address: backendB.address, port: backendB.port }]),
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    gateway('a', '2026-01-01T00:00:00Z'),
    gateway('b', '2026-01-02T00:00:00Z', extra.b),
    route('to-a', 'a', 'app-a'),
    route('to-b', 'b', 'app-b'),
  ];
  await writeFile(path.join(tmp.path, 'all.yaml'), toYaml(objects));
  return tmp.path;
}

async function serviceAt(host: string, port: number): Promise<string> {
  const res = await httpGet({ host, port, hostHeader: 'shop.example.test', path: '/' });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

/** Addresses of a loopback /24 few other tests use, so port 80 on them is free. */
function loopbackPool(): [string, string] {
  const net = `127.77.${1 + Math.floor(Math.random() * 250)}`;
  return [`${net}.11`, `${net}.12`];
}

test('--gateway-address-pool: two Gateways on port 80 for one hostname, each on its own IP, each serving only its own route', async (t) => {
  const [ipA, ipB] = loopbackPool();
  // b asks for the second address (spec.addresses); a gets the one left.
  const dir = await twoGateways(t, 80, { b: { addresses: [{ type: 'IPAddress', value: ipB }] } });
  const stack = await startStack(t, { manifestsDir: dir, translate: { gatewayAddressing: { mode: 'pool', pool: [ipA, ipB] } } });
  await stack.envoy.waitForListener('gateway/default/a/http/80');
  await stack.envoy.waitForListener('gateway/default/b/http/80');
  await waitFor(async () => (await serviceAt(ipA, 80)) === 'app-a', { description: "Gateway a's address serves a's route" });
  for (let i = 0; i < 10; i++) {
    t.is(await serviceAt(ipA, 80), 'app-a');
    t.is(await serviceAt(ipB, 80), 'app-b');
  }
  // Neither Gateway is reachable on the shared listen address.
  await t.throwsAsync(serviceAt('127.0.0.1', 80).then((s) => (s === 'app-a' || s === 'app-b' ? Promise.resolve(s) : Promise.reject(new Error(s)))));
  t.deepEqual(
    stack.controller.reconciler.diagnostics.filter((d) => d.object.kind === 'Gateway'),
    [],
    'no HostnameConflict between Gateways with sockets of their own',
  );
});

/** Two consecutive ports free now (the Envoy port range of the cluster mode). */
async function twoFreePorts(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const first = await freePort();
    const probe = await freePort();
    if (probe === first + 1) return first;
    // freePort picks at random: try first+1 directly.
    const { createServer } = await import('node:net');
    const ok = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(first + 1, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (ok) return first;
  }
  throw new Error('no two consecutive free ports');
}

test('--gateway-port-range: two Gateways on port 80 for one hostname, each on Envoy ports of its own (what its Service targets)', async (t) => {
  const first = await twoFreePorts();
  const dir = await twoGateways(t, 80);
  const addressing: TranslateOptions['gatewayAddressing'] = { mode: 'service', namespace: 'envoy-ingress', portRange: { first, last: first + 1 } };
  const stack = await startStack(t, { manifestsDir: dir, translate: { gatewayAddressing: addressing } });
  await stack.envoy.waitForListener('gateway/default/a/http/80');
  await stack.envoy.waitForListener('gateway/default/b/http/80');
  // No Services recorded yet: the older Gateway takes the first port of the range.
  await waitFor(async () => (await serviceAt('127.0.0.1', first)) === 'app-a', { description: "Gateway a's Envoy port serves a's route" });
  for (let i = 0; i < 10; i++) {
    t.is(await serviceAt('127.0.0.1', first), 'app-a');
    t.is(await serviceAt('127.0.0.1', first + 1), 'app-b');
  }
});

test('without addresses of their own, the same two Gateways share port 80 and the younger listener is refused (HostnameConflict)', async (t) => {
  const port = await freePort();
  const dir = await twoGateways(t, port);
  const stack = await startStack(t, { manifestsDir: dir });
  await stack.envoy.waitForListener(`gateway/http/${port}`);
  await waitFor(async () => (await serviceAt('127.0.0.1', port)) === 'app-a', { description: 'the shared listener serves the older Gateway' });
  t.deepEqual(
    stack.controller.reconciler.diagnostics.filter((d) => d.object.kind === 'Gateway').map((d) => [d.object.name, d.reason]),
    [['b', 'HostnameConflict']],
  );
});
