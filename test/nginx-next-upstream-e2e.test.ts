// End to end with --nginx-annotations: ingress-nginx proxy-next-upstream / proxy-next-upstream-tries as an Envoy
// retry policy to another endpoint, through the controller and a real Envoy. Each Service has a failing endpoint
// (one answering 503, or one refusing connections) beside a healthy one.
import { createServer } from 'node:net';
import test from 'ava';
import { httpGet, type HttpResult } from './harness/http-client.js';
import { ingressClass, serviceWithEndpoints } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { defineSharedWorld, endpointOf } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const failing = await scope.startBackend({ service: 'failing', failFirst: 1_000_000 });
  const healthy = await scope.startBackend({ service: 'healthy' });
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('flaky', [endpointOf(failing), endpointOf(healthy)]),
    ...serviceWithEndpoints('gone', [{ address: '127.0.0.1', port: await closedPort() }, endpointOf(healthy)]),
    nginxIngress('retry-503', 'retry-503.test', 'flaky', { 'proxy-next-upstream': 'http_503' }),
    nginxIngress('no-retry', 'no-retry.test', 'flaky', {}),
    nginxIngress('retry-error', 'retry-error.test', 'gone', { 'proxy-next-upstream': 'error timeout', 'proxy-next-upstream-tries': '2' }),
    nginxIngress('retry-off', 'retry-off.test', 'flaky', { 'proxy-next-upstream': 'off' }),
  ];
  const stack = await scope.startStack({ dir, objects, translate: { nginxAnnotations: true }, ready: { host: 'retry-503.test' } });
  return { stack };
});

async function statuses(w: World, host: string, n: number, method = 'GET'): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const r: HttpResult = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: `/r${i}`, method });
    counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  }
  return counts;
}

test('proxy-next-upstream http_503: a 503 from one endpoint is passed to the other; without it (or "off") the client gets it', async (t) => {
  const w = await world(t);
  t.deepEqual([...(await statuses(w, 'retry-503.test', 20))], [[200, 20]]);
  // Round robin over both endpoints: every other request meets the failing one.
  t.true(((await statuses(w, 'no-retry.test', 20)).get(503) ?? 0) >= 5);
  t.true(((await statuses(w, 'retry-off.test', 20)).get(503) ?? 0) >= 5);
});

test('proxy-next-upstream: a POST is not passed to the next endpoint (nginx retries idempotent methods only)', async (t) => {
  const w = await world(t);
  t.true(((await statuses(w, 'retry-503.test', 20, 'POST')).get(503) ?? 0) >= 5);
});

test('proxy-next-upstream error timeout, tries 2: an endpoint refusing connections is skipped', async (t) => {
  const w = await world(t);
  t.deepEqual([...(await statuses(w, 'retry-error.test', 20))], [[200, 20]]);
});
