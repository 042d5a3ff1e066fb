// The Gateway API status writer's work on a build: every object's wanted status is looked up by key, so handing over a
// build's status data costs about the number of objects, not its square (a search of the status lists per object
// made every build at 10,000 HTTPRoutes wait seconds before Envoy's next push, on the controller's one thread). And
// when: a build's status goes out once Envoy ACKed that build, or after statusAckHoldMs without an ACK.
import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { ObjectStore } from '../store.js';
import type { HTTPRoute } from '../translate/shared/kube-objects.js';
import type { GatewayApiStatus, RouteStatusData } from '../translate/gateway-api/status-data.js';
import { GatewayApiStatusWriter, statusAckHoldMs } from './gateway-api-status-writer.js';
import { FakeClock } from '../testing/fake-clock.js';

const controllerName = 'envoy-ingress.io/gateway-controller';
const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** An API server nobody listens on: the writes the queue starts fail and back off; none is awaited here. */
function unreachableKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

function routeOf(i: number, accepted: boolean): HTTPRoute {
  return {
    kind: 'HTTPRoute',
    metadata: { name: `r-${i}`, namespace: 'default', generation: 1, resourceVersion: '1' },
    spec: { parentRefs: [{ name: 'gw' }] },
    // Half already hold the wanted status, half do not.
    status: accepted ? { parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }] }] } : {},
  };
}

test('handing over a build of 10,000 HTTPRoutes looks each route\'s status up by key', (t) => {
  const n = 10_000;
  const store = new ObjectStore();
  for (let i = 0; i < n; i++) store.upsert(routeOf(i, i % 2 === 0));
  const status: GatewayApiStatus = {
    gatewayClasses: [],
    gateways: [],
    routes: Array.from({ length: n }, (_, i) => ({
      ref: { kind: 'HTTPRoute', namespace: 'default', name: `r-${i}` },
      parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1 }] }],
    })),
  };
  const writer = new GatewayApiStatusWriter({ kubeConfig: unreachableKubeConfig(), store, isLeader: () => true, log: quiet, controllerName, maxInFlight: 1 });
  const started = performance.now();
  writer.publishBuilt(status, 1);
  // Envoy ACKed the build: its status is published (queued).
  writer.publishApplied(status, 1);
  const ms = performance.now() - started;
  writer.stop();
  // Looked up by key: tens of milliseconds on a loaded machine; searched per object: seconds.
  t.true(ms < 1500, `publishBuilt took ${Math.round(ms)} ms`);
  t.log(`publishBuilt of ${n} HTTPRoutes: ${Math.round(ms)} ms`);
});

/** A build handed over and ACKed by Envoy at once. */
function built(writer: GatewayApiStatusWriter, status: GatewayApiStatus, generation: number): void {
  writer.publishBuilt(status, generation);
  writer.publishApplied(status, generation);
}

/** An API server that answers every status write with the object written (a newer resourceVersion), recording its path. */
async function recordingApiServer(): Promise<{ kubeConfig: KubeConfig; writes: string[]; close: () => Promise<void> }> {
  const writes: string[] = [];
  let version = 100;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      writes.push(`${req.method} ${req.url}`);
      const object = JSON.parse(body || '{}') as { metadata?: Record<string, unknown> };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(++version) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({ clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });
  return { kubeConfig, writes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('a build hands on the entries of the routes it did not touch: only routes whose entry is new, changed or gone are looked at and written', async (t) => {
  const api = await recordingApiServer();
  const looked: string[] = [];
  // The objects the writer looks at (each queued key's object is read from the store).
  const store = new (class extends ObjectStore {
    override get(kind: Parameters<ObjectStore['get']>[0], namespace: string, name: string): ReturnType<ObjectStore['get']> {
      looked.push(name);
      return super.get(kind, namespace, name);
    }
  })();
  const routes = [0, 1, 2, 3].map((i) => routeOf(i, false));
  for (const r of routes) store.upsert(r);
  const entry = (i: number, accepted: boolean): RouteStatusData => ({
    ref: { kind: 'HTTPRoute', namespace: 'default', name: `r-${i}` },
    parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: accepted ? ('True' as const) : ('False' as const), reason: accepted ? 'Accepted' : 'NotAllowedByListeners', message: '', observedGeneration: 1 }] }],
  });
  const entries = [0, 1, 2, 3].map((i) => entry(i, true));
  const writer = new GatewayApiStatusWriter({ kubeConfig: api.kubeConfig, store, isLeader: () => true, log: quiet, controllerName });
  try {
    built(writer, { gatewayClasses: [], gateways: [], routes: entries }, 1);
    await writer.idle();
    t.deepEqual(api.writes.sort(), [0, 1, 2, 3].map((i) => `PUT /apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes/r-${i}/status`));
    api.writes.length = 0;
    // What the writes bring back through the watch: the routes now hold the status.
    for (const i of [0, 1, 2, 3]) store.upsert({ ...routes[i]!, metadata: { ...routes[i]!.metadata, resourceVersion: '2' }, status: { parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ ...entries[i]!.parents[0]!.conditions[0]!, lastTransitionTime: '2026-01-01T00:00:00Z' }] }] } });
    await writer.idle();
    t.deepEqual(api.writes, []);
    // The next build: r-0 and r-3 untouched (the same entries), r-1 refused now, r-2 no longer ours.
    looked.length = 0;
    built(writer, { gatewayClasses: [], gateways: [], routes: [entries[0]!, entry(1, false), entries[3]!] }, 2);
    await writer.idle();
    t.deepEqual(api.writes.sort(), [1, 2].map((i) => `PUT /apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes/r-${i}/status`));
    t.deepEqual([...new Set(looked)].sort(), ['r-1', 'r-2'], 'the untouched routes are not looked at');
    // Leadership (resync) looks at every object again.
    looked.length = 0;
    writer.resync();
    t.deepEqual([...new Set(looked)].sort(), ['r-0', 'r-1', 'r-2', 'r-3']);
  } finally {
    writer.stop();
    await api.close();
  }
});

const routePath = (i: number): string => `PUT /apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes/r-${i}/status`;

/** Long enough for a status write to this process's own API server to be made and answered, had one been queued. */
const writeWindow = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

test('a build\'s status writes wait for Envoy\'s ACK of that build, or go at the cap without one', async (t) => {
  const api = await recordingApiServer();
  const store = new ObjectStore();
  for (const i of [0, 1, 2, 3, 4]) store.upsert(routeOf(i, false));
  const entry = (i: number): RouteStatusData => ({
    ref: { kind: 'HTTPRoute', namespace: 'default', name: `r-${i}` },
    parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1 }] }],
  });
  const buildOf = (...routes: number[]): GatewayApiStatus => ({ gatewayClasses: [], gateways: [], routes: routes.map(entry) });
  const timers = new FakeClock();
  const writer = new GatewayApiStatusWriter({ kubeConfig: api.kubeConfig, store, isLeader: () => true, log: quiet, controllerName, timers });
  try {
    // Held until Envoy ACKs generation 1 (an ACK of an older generation does not release it).
    writer.publishBuilt(buildOf(0), 1);
    await writeWindow();
    t.deepEqual(api.writes, [], 'nothing is written before the ACK');
    writer.publishApplied(undefined, 0);
    await writeWindow();
    t.deepEqual(api.writes, [], 'an older generation\'s ACK does not release it');
    writer.publishApplied(buildOf(0), 1);
    await writer.idle();
    t.deepEqual(api.writes, [routePath(0)]);
    t.is(timers.pending, 0, 'the ACK cancelled the cap');

    // No ACK (no Envoy connected, or it rejected the config): written at the cap.
    api.writes.length = 0;
    writer.publishBuilt(buildOf(0, 1), 2);
    await timers.advance(statusAckHoldMs - 1);
    await writeWindow();
    t.deepEqual(api.writes, [], 'held until the cap');
    await timers.advance(1);
    await writer.idle();
    t.deepEqual(api.writes, [routePath(1)]);

    // Builds in a row: the newest is written, at the cap counted from the first held one (a stream of builds
    // does not keep status back).
    api.writes.length = 0;
    writer.publishBuilt(buildOf(0, 1, 2), 3);
    await timers.advance(statusAckHoldMs / 2);
    writer.publishBuilt(buildOf(0, 1, 2, 3), 4);
    await timers.advance(statusAckHoldMs / 2);
    await writer.idle();
    t.deepEqual(api.writes.sort(), [routePath(2), routePath(3)]);

    // A build Envoy had ACKed before it was handed over (the tracker hears of builds first): written at once.
    api.writes.length = 0;
    writer.publishApplied(undefined, 5);
    writer.publishBuilt(buildOf(0, 1, 2, 3, 4), 5);
    t.is(timers.pending, 0);
    await writer.idle();
    t.deepEqual(api.writes, [routePath(4)]);
  } finally {
    writer.stop();
    await api.close();
  }
});

test('leadership writes a held build at once; stopping drops it', async (t) => {
  const api = await recordingApiServer();
  const store = new ObjectStore();
  for (const i of [0, 1]) store.upsert(routeOf(i, false));
  const entry = (i: number): RouteStatusData => ({
    ref: { kind: 'HTTPRoute', namespace: 'default', name: `r-${i}` },
    parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1 }] }],
  });
  const timers = new FakeClock();
  let leader = false;
  const writer = new GatewayApiStatusWriter({ kubeConfig: api.kubeConfig, store, isLeader: () => leader, log: quiet, controllerName, timers });
  try {
    writer.publishBuilt({ gatewayClasses: [], gateways: [], routes: [entry(0)] }, 1);
    // Becoming leader writes the newest build's status, not the one before it (nothing here), without waiting.
    leader = true;
    writer.resync();
    t.is(timers.pending, 0);
    await writer.idle();
    t.deepEqual(api.writes, [routePath(0)]);

    api.writes.length = 0;
    writer.publishBuilt({ gatewayClasses: [], gateways: [], routes: [entry(0), entry(1)] }, 2);
    const idle = writer.idle();
    writer.stop();
    await idle;
    t.is(timers.pending, 0, 'stop cancelled the cap');
    await writeWindow();
    t.deepEqual(api.writes, [], 'a stopped writer writes nothing');
  } finally {
    writer.stop();
    await api.close();
  }
});
