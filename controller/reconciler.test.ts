// The reconciler with a real store, translator, Envoy builders and SnapshotCache (no Envoy needed). Builds run
// from setImmediate, so "did not build" is checked after the reconciler's own setImmediate has had its turn.
import test from 'ava';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { ingress, ingressClass, serviceWithEndpoints } from '../test/fixtures/manifests.js';
import { Reconciler, type BuildResult } from './reconciler.js';
import { normalizeObject } from './sources/normalize.js';
import { ObjectStore } from './store.js';
import type { EndpointSlice, KubeObject } from './translate/shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from './translate/shared/options.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

function kube(raw: object): KubeObject {
  const n = normalizeObject(raw);
  if (!n.ok) throw new Error(`fixture does not normalize: ${JSON.stringify(n)}`);
  return n.object;
}

/** Lets every already scheduled setImmediate callback (a pending build) run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setUp(translate: TranslateOptions = defaultTranslateOptions) {
  const store = new ObjectStore();
  const cache = new SnapshotCache();
  const reconciler = new Reconciler(
    store,
    cache,
    { translate, envoy: { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 } },
    quiet,
  );
  const builds: BuildResult[] = [];
  const failures: unknown[] = [];
  reconciler.on('built', (b) => builds.push(b));
  reconciler.on('failed', (e) => failures.push(e));
  const put = (...objects: object[]): void => {
    for (const o of objects) store.upsert(kube(o));
  };
  return { store, cache, reconciler, builds, failures, put };
}

/** One served Ingress routing app.example.test to Service `app`, whose one endpoint is 10.0.0.1:8080. */
async function readyWithApp(translate?: TranslateOptions) {
  const s = setUp(translate);
  s.put(
    ingressClass(),
    ingress('app', { rules: [{ host: 'app.example.test', paths: [{ path: '/', service: 'app' }] }] }),
    ...serviceWithEndpoints('app', [{ address: '10.0.0.1', port: 8080 }]),
  );
  s.reconciler.markReady();
  await s.reconciler.idle();
  s.builds.length = 0;
  return s;
}

function claAddresses(cache: SnapshotCache): string[] {
  const out: string[] = [];
  for (const r of cache.snapshot.resources.clusterLoadAssignment.values()) {
    const json = r.json as { endpoints?: { lb_endpoints: { endpoint: { address: { socket_address: { address: string; port_value: number } } } }[] }[] };
    for (const l of json.endpoints ?? []) for (const e of l.lb_endpoints) out.push(`${e.endpoint.address.socket_address.address}:${e.endpoint.address.socket_address.port_value}`);
  }
  return out.sort();
}

test('nothing is built or published before markReady(); markReady builds once', async (t) => {
  const { reconciler, cache, builds, put } = setUp();
  put(ingressClass(), ingress('app', { rules: [{ host: 'a.test', paths: [{ path: '/', service: 'app' }] }] }), ...serviceWithEndpoints('app', [{ address: '10.0.0.1', port: 80 }]));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
  t.false(cache.ready, 'an empty or partial snapshot is never served');
  reconciler.markReady();
  await reconciler.idle();
  t.is(builds.length, 1);
  t.is(builds[0]?.kind, 'full');
  t.true(cache.ready);
  t.true(cache.snapshot.resources.listener.size > 0);
  t.deepEqual(claAddresses(cache), ['10.0.0.1:80']);
});

test('the first change after a quiet period is built on the next turn, without waiting for a timer', async (t) => {
  const { builds, put } = await readyWithApp();
  put(ingress('app', { rules: [{ host: 'other.example.test', paths: [{ path: '/', service: 'app' }] }] }));
  await turn();
  t.is(builds.length, 1);
  // An Ingress change alone: only the Ingresses around it are translated again (incremental-translate.ts).
  t.is(builds[0]?.kind, 'routes');
});

test('a burst of changes in one tick is one build', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  for (let i = 0; i < 20; i++) put(ingress(`extra-${i}`, { rules: [{ host: `h${i}.example.test`, paths: [{ path: '/', service: 'app' }] }] }));
  await reconciler.idle();
  t.is(builds.length, 1);
});

test('changes arriving during a build coalesce into exactly one more build', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  let burstDone = false;
  reconciler.on('built', () => {
    if (burstDone) return;
    burstDone = true;
    // Still inside the build loop: these land while a build is "running".
    for (let i = 0; i < 10; i++) put(ingress(`during-${i}`, { rules: [{ host: `d${i}.example.test`, paths: [{ path: '/', service: 'app' }] }] }));
  });
  put(ingress('trigger', { rules: [{ host: 't.example.test', paths: [{ path: '/', service: 'app' }] }] }));
  await reconciler.idle();
  t.is(builds.length, 2);
  t.deepEqual(builds.map((b) => b.kind), ['routes', 'routes']);
  t.deepEqual(builds.map((b) => b.generation), [builds[0]!.generation, builds[0]!.generation + 1]);
  t.is(reconciler.servedIngresses.filter((r) => r.name.startsWith('during-')).length, 10, 'the last build saw every change');
});

test('a Service or Secret no served Ingress references triggers no build', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  put(...serviceWithEndpoints('unrelated', [{ address: '10.0.0.9', port: 80 }]));
  put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unrelated-tls' }, type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'x', 'tls.key': 'y' } });
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
});

test('the ingress-nginx ConfigMap (--nginx-configmap) triggers a full build; another ConfigMap triggers none', async (t) => {
  const nginxConfigMap = { namespace: 'ingress-nginx', name: 'ingress-nginx-controller' };
  const { reconciler, builds, put, cache } = await readyWithApp({ ...defaultTranslateOptions, nginxAnnotations: true, nginxConfigMap });
  const routes = (): string => JSON.stringify([...cache.snapshot.resources.virtualHost.values()].map((r) => r.json));
  t.true(routes().includes('"max_request_bytes":1048576'), 'ingress-nginx default proxy-body-size 1m while the ConfigMap does not exist');
  put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'ingress-nginx' }, data: { 'proxy-body-size': '2m' } });
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
  put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: nginxConfigMap, data: { 'proxy-body-size': '2m' } });
  await turn();
  await reconciler.idle();
  t.deepEqual(builds.map((b) => b.kind), ['full']);
  t.true(routes().includes('"max_request_bytes":2097152'));
});

test('a Service referenced only by an Ingress of another class triggers no build', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  put(ingress('foreign', { className: 'someone-else', rules: [{ host: 'f.example.test', paths: [{ path: '/', service: 'theirs' }] }] }));
  await reconciler.idle();
  t.is(builds.length, 1, 'the Ingress itself is looked at');
  put(...serviceWithEndpoints('theirs', [{ address: '10.0.0.8', port: 80 }]));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 1, 'but its Service is not ours to watch');
});

test('a referenced Service triggers a build of the Ingresses naming it, also one that did not exist yet', async (t) => {
  const { reconciler, builds, put, cache } = await readyWithApp();
  put(ingress('later', { rules: [{ host: 'later.example.test', paths: [{ path: '/', service: 'later' }] }] }));
  await reconciler.idle();
  const clustersBefore = cache.snapshot.resources.cluster.size;
  builds.length = 0;
  put(...serviceWithEndpoints('later', [{ address: '10.0.0.5', port: 80 }]));
  await reconciler.idle();
  t.is(builds.length, 1);
  t.is(builds[0]?.kind, 'routes');
  t.is(cache.snapshot.resources.cluster.size, clustersBefore + 1);
});

test('an EndpointSlice change of a referenced Service is an endpoints build that changes only ClusterLoadAssignments', async (t) => {
  const { reconciler, builds, put, cache } = await readyWithApp();
  const before = cache.snapshot;
  put(...serviceWithEndpoints('app', [{ address: '10.0.0.2', port: 8080 }]).slice(1));
  await reconciler.idle();
  t.is(builds.length, 1);
  t.is(builds[0]?.kind, 'endpoints');
  t.deepEqual(builds[0]?.changedTypes, ['clusterLoadAssignment']);
  const after = cache.snapshot;
  for (const kind of ['listener', 'routeConfiguration', 'cluster', 'secret'] as const) t.is(after.versions[kind], before.versions[kind], kind);
  t.not(after.versions.clusterLoadAssignment, before.versions.clusterLoadAssignment);
  t.deepEqual(claAddresses(cache), ['10.0.0.2:8080']);
});

test('a slice relabelled to another Service takes its endpoints along, and a deleted slice takes them out, on the endpoint fast path', async (t) => {
  const { reconciler, builds, put, store, cache } = await readyWithApp();
  put(ingress('second', { rules: [{ host: 'second.example.test', paths: [{ path: '/', service: 'b' }] }] }), ...serviceWithEndpoints('b', [{ address: '10.0.1.1', port: 8080 }]));
  // A second slice of app, added after the last full build.
  const extra = (service: string): object => ({
    ...(serviceWithEndpoints('app', [{ address: '10.0.0.9', port: 8080 }])[1] as object),
    metadata: { name: 'moving', namespace: 'default', labels: { 'kubernetes.io/service-name': service } },
  });
  await reconciler.idle();
  builds.length = 0;
  put(extra('app'));
  await reconciler.idle();
  t.deepEqual(claAddresses(cache), ['10.0.0.1:8080', '10.0.0.9:8080', '10.0.1.1:8080']);
  put(extra('b'));
  await reconciler.idle();
  t.deepEqual(claAddresses(cache), ['10.0.0.1:8080', '10.0.0.9:8080', '10.0.1.1:8080'], 'the same addresses, now one more for b and one fewer for app:');
  const clusters = [...cache.snapshot.resources.clusterLoadAssignment.values()].map((r) => r.json as { cluster_name: string; endpoints?: { lb_endpoints: unknown[] }[] });
  const count = (name: string) => clusters.find((c) => c.cluster_name.includes(`/${name}/`))?.endpoints?.[0]?.lb_endpoints.length;
  t.is(count('app'), 1);
  t.is(count('b'), 2);
  store.delete('EndpointSlice', 'default', 'moving');
  await reconciler.idle();
  t.deepEqual(claAddresses(cache), ['10.0.0.1:8080', '10.0.1.1:8080']);
  t.true(builds.length >= 3 && builds.every((b) => b.kind === 'endpoints'), JSON.stringify(builds.map((b) => b.kind)));
});

test('an EndpointSlice of a Service nothing references triggers nothing', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  put(...serviceWithEndpoints('nobody', [{ address: '10.0.0.7', port: 80 }]).slice(1));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
});

/**
 * An extra EndpointSlice of `service` whose ports cannot be read, standing for a bug in the pipeline: since the
 * translator leaves out endpoints Envoy cannot use (bad addresses, ports out of range), no manifest content makes
 * a build fail any more. Put straight into the store, as normalising would read the ports.
 */
function putBrokenSlice(store: ObjectStore, service: string): void {
  const slice = kube(serviceWithEndpoints(service, [{ address: '10.0.0.66', port: 80 }])[1] as object) as EndpointSlice;
  const broken = { ...slice, metadata: { ...slice.metadata, name: `${service}-broken` } };
  Object.defineProperty(broken, 'ports', {
    enumerable: true,
    get: () => {
      throw new Error('simulated pipeline failure');
    },
  });
  store.upsert(broken);
}

test('a build that fails keeps the previous snapshot and reports the failure', async (t) => {
  const { reconciler, builds, failures, store, cache } = await readyWithApp();
  const before = cache.snapshot;
  putBrokenSlice(store, 'app');
  await reconciler.idle();
  t.is(builds.length, 0);
  t.is(failures.length, 1);
  t.regex(String(failures[0]), /simulated pipeline failure/);
  t.is(cache.snapshot, before, 'Envoy keeps being served the last good config');
});

test('a refused endpoints update of one Service does not block later endpoint updates of another', async (t) => {
  const { reconciler, builds, failures, put, store, cache } = await readyWithApp();
  put(ingress('second', { rules: [{ host: 'second.example.test', paths: [{ path: '/', service: 'b' }] }] }), ...serviceWithEndpoints('b', [{ address: '10.0.1.1', port: 80 }]));
  await reconciler.idle();
  builds.length = 0;
  putBrokenSlice(store, 'app');
  await reconciler.idle();
  t.is(failures.length, 1);
  put(...serviceWithEndpoints('b', [{ address: '10.0.1.2', port: 80 }]).slice(1));
  await reconciler.idle();
  t.is(failures.length, 1, 'no second failure');
  t.deepEqual(builds.map((b) => b.kind), ['endpoints']);
  t.deepEqual(claAddresses(cache), ['10.0.0.1:8080', '10.0.1.2:80'], "b moved; app keeps its last good endpoints");
});

test('stop() detaches from the store', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  reconciler.stop();
  put(ingress('after-stop', { rules: [{ host: 's.example.test', paths: [{ path: '/', service: 'app' }] }] }));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
});

test('a change of a kind the kind table does not have asks for a configuration build', async (t) => {
  const { store, reconciler, builds } = await readyWithApp();
  store.upsert({ apiVersion: 'test.envoy-ingress.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } } as unknown as KubeObject);
  await turn();
  await reconciler.idle();
  t.is(builds.length, 1);
});

test('a Gateway API object whose status alone changed (a status write coming back) triggers no build; a spec change does', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  const route = (status: object, hostnames: string[]) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace: 'default', generation: 1, resourceVersion: String(builds.length + Math.random()) },
    spec: { parentRefs: [{ name: 'gw' }], hostnames },
    status,
  });
  put(route({}, ['a.example.test']));
  await turn();
  await reconciler.idle();
  // A new or changed HTTPRoute is a routes build (controller/translate/incremental-translate.ts).
  t.deepEqual(builds.map((b) => b.kind), ['routes']);
  builds.length = 0;
  put(route({ parents: [{ controllerName: 'envoy-ingress.io/gateway-controller', parentRef: { name: 'gw' }, conditions: [] }] }, ['a.example.test']));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
  put(route({ parents: [] }, ['b.example.test']));
  await turn();
  await reconciler.idle();
  t.deepEqual(builds.map((b) => b.kind), ['routes']);
});

test('a TLSRoute or TCPRoute whose status alone changed triggers no build either', async (t) => {
  const { reconciler, builds, put } = await readyWithApp();
  for (const kind of ['TLSRoute', 'TCPRoute']) {
    const route = (status: object) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind,
      metadata: { name: 'r', namespace: 'default', generation: 1, resourceVersion: String(builds.length + Math.random()) },
      spec: { parentRefs: [{ name: 'gw' }] },
      status,
    });
    put(route({}));
    await turn();
    await reconciler.idle();
    t.deepEqual(builds.map((b) => b.kind), ['full'], kind);
    builds.length = 0;
    put(route({ parents: [{ controllerName: 'envoy-ingress.io/gateway-controller', parentRef: { name: 'gw' }, conditions: [] }] }));
    await turn();
    await reconciler.idle();
    t.is(builds.length, 0, kind);
  }
});

test('an HTTPRoute created after our status writes came back (its Gateway\'s, the routes\') is a routes build, equal to translating the store afresh', async (t) => {
  const { store, reconciler, builds, put } = setUp();
  const gatewayApi = 'gateway.networking.k8s.io/v1';
  const gateway = (status: object, resourceVersion: string) => ({
    apiVersion: gatewayApi,
    kind: 'Gateway',
    metadata: { name: 'gw', namespace: 'default', generation: 1, resourceVersion },
    spec: { gatewayClassName: 'ours', listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] },
    status,
  });
  const route = (name: string, status: object, resourceVersion: string) => ({
    apiVersion: gatewayApi,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default', generation: 1, resourceVersion },
    spec: { parentRefs: [{ name: 'gw' }], hostnames: [`${name}.example.test`], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
    status,
  });
  put(
    { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'ours', generation: 1 }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
    gateway({}, '1'),
    route('r0', {}, '2'),
    ...serviceWithEndpoints('app', [{ address: '10.0.0.1', port: 8080 }]),
  );
  reconciler.markReady();
  await reconciler.idle();
  t.deepEqual(builds.map((b) => b.kind), ['full']);
  builds.length = 0;
  // The status writes coming back: no build.
  const parents = { parents: [{ controllerName: 'envoy-ingress.io/gateway-controller', parentRef: { name: 'gw' }, conditions: [{ type: 'Accepted', status: 'True' }] }] };
  put(gateway({ listeners: [{ name: 'http', attachedRoutes: 1 }] }, '3'), route('r0', parents, '4'));
  await turn();
  await reconciler.idle();
  t.is(builds.length, 0);
  put(route('r1', {}, '5'));
  await turn();
  await reconciler.idle();
  t.deepEqual(builds.map((b) => b.kind), ['routes']);
  const { translate } = await import('./translate/translate.js');
  t.deepEqual(reconciler.ir, translate(store.state(), defaultTranslateOptions).ir);
  t.deepEqual(reconciler.gatewayApiStatus, translate(store.state(), defaultTranslateOptions).gatewayApiStatus);
});
