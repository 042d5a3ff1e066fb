import { once } from 'node:events';
import test from 'ava';
import { decodeAnyToJson } from '../../proto/proto-json.js';
import { kindOfTypeUrl, TypeUrl, type ResourceKind } from '../../proto/type-urls.js';
import { AdsServer } from '../../xds/ads-server.js';
import type { DiscoveryResponse } from '../../xds/discovery-messages.js';
import { SnapshotCache, type NamedJson, type SnapshotUpdate } from '../../xds/snapshot-cache.js';
import { isWildcardKind } from '../../xds/stream-session.js';
import { SotwTestClient } from '../../xds/testing/ads-test-client.js';
import {
  clusterFixture as cluster,
  endpointsFixture as endpoints,
  listenerFixture as listener,
  routesFixture as routes,
} from '../../xds/testing/resource-fixtures.js';
import type { ObjectRef } from '../translate/shared/kube-objects.js';
import { AppliedTracker, type AppliedEvent } from './applied-tracker.js';

const node = { id: 'test-envoy', cluster: 'test' };
const served: ObjectRef[] = [{ kind: 'Ingress', namespace: 'shop', name: 'web' }];

function secret(name: string, ca: string): NamedJson {
  return { name, resource: { '@type': TypeUrl.secret, name, validation_context: { trusted_ca: { inline_string: ca } } } };
}

/** All five kinds; `clusters` clusters each with one endpoint at basePort + i. */
function config({ clusters = 1, basePort = 9000, ca = 'ca-1' } = {}): SnapshotUpdate {
  const names = Array.from({ length: clusters }, (_, i) => `shop/web-${i}/80`);
  return {
    cluster: names.map((n) => cluster(n)),
    clusterLoadAssignment: names.map((n, i) => endpoints(n, basePort + i)),
    secret: [secret('shop/tls', ca)],
    listener: [listener('ingress_http', 'http')],
    routeConfiguration: [routes('http', names[0]!)],
  };
}

async function start(t: { teardown(fn: () => void | Promise<void>): void }) {
  const cache = new SnapshotCache();
  const server = new AdsServer(cache);
  const port = await server.listen('127.0.0.1', 0);
  const tracker = new AppliedTracker(cache, server);
  const applied: AppliedEvent[] = [];
  tracker.on('applied', (e) => applied.push(e));
  t.teardown(() => {
    tracker.stop();
    server.forceClose();
  });
  return { cache, server, tracker, applied, address: `127.0.0.1:${port}` };
}

/** The names an Envoy subscribes to for a kind: everything for wildcard kinds, else what the snapshot has. */
function subscription(cache: SnapshotCache, kind: ResourceKind): string[] {
  return isWildcardKind(kind) ? [] : [...cache.snapshot.resources[kind].keys()];
}

/** Opens an ADS stream that subscribes to all five kinds, like Envoy does on start. */
function connect(address: string, cache: SnapshotCache): SotwTestClient {
  const client = new SotwTestClient(address);
  const kinds: ResourceKind[] = ['cluster', 'clusterLoadAssignment', 'secret', 'listener', 'routeConfiguration'];
  kinds.forEach((kind, i) => client.send({ typeUrl: TypeUrl[kind], resourceNames: subscription(cache, kind), ...(i === 0 ? { node } : {}) }));
  return client;
}

/** ACKs one response and resolves once the server has processed the ACK. */
async function ackOne(server: AdsServer, cache: SnapshotCache, client: SotwTestClient, res: DiscoveryResponse): Promise<void> {
  const processed = once(server, 'ack', { signal: AbortSignal.timeout(5000) });
  client.ack(res, subscription(cache, kindOfTypeUrl(res.typeUrl)!));
  await processed;
}

/** A background loop that ACKs every response (or NACKs those `reject` picks), as a healthy Envoy would. */
function autoAck(server: AdsServer, cache: SnapshotCache, client: SotwTestClient, reject: (res: DiscoveryResponse) => boolean = () => false) {
  let running = true;
  void (async () => {
    while (running) {
      let res: DiscoveryResponse;
      try {
        res = await client.next(500);
      } catch {
        continue;
      }
      if (reject(res)) {
        client.send({ typeUrl: res.typeUrl, versionInfo: '', responseNonce: res.nonce, errorDetail: { code: 3, message: 'rejected by test' } });
      } else {
        client.ack(res, subscription(cache, kindOfTypeUrl(res.typeUrl)!));
      }
    }
  })();
  return () => {
    running = false;
    client.close();
  };
}

function nextApplied(tracker: AppliedTracker): Promise<AppliedEvent> {
  return once(tracker, 'applied', { signal: AbortSignal.timeout(5000) }).then(([e]) => e as AppliedEvent);
}

test('a generation is applied once an Envoy has ACKed every resource of all five kinds; a silent Envoy does not block it', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  t.deepEqual(applied, [], 'no Envoy is connected yet');

  const silent = connect(address, cache); // receives responses, never ACKs
  t.teardown(() => silent.close());
  const client = connect(address, cache);
  t.teardown(() => client.close());

  const ackedKinds = new Set<ResourceKind>();
  let kindsAtApplied = -1;
  tracker.on('applied', () => (kindsAtApplied = ackedKinds.size));
  while (applied.length === 0) {
    const res = await client.next();
    t.deepEqual(applied, [], `not applied before the ${res.typeUrl} response is ACKed`);
    ackedKinds.add(kindOfTypeUrl(res.typeUrl)!); // counted before the ACK: 'applied' fires while it is processed
    await ackOne(server, cache, client, res);
  }
  t.is(kindsAtApplied, 5, 'applied only after the fifth kind was ACKed');
  t.deepEqual(applied, [{ generation: 1, servedIngresses: served }]);
  t.is(tracker.pendingGeneration, undefined);
  t.is(tracker.stats.applied, 1);
});

test('newest wins: a generation superseded before it reached Envoy is never reported', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  await nextApplied(tracker);

  // Two builds in the same tick: Envoy cannot have ACKed the first one before the second replaces it.
  cache.update(config({ basePort: 9100 }));
  tracker.noteBuilt({ generation: 2, servedIngresses: [] });
  cache.update(config({ basePort: 9200 }));
  tracker.noteBuilt({ generation: 3, servedIngresses: served });
  t.is(tracker.pendingGeneration, 3);
  const third = await nextApplied(tracker);
  t.deepEqual(third, { generation: 3, servedIngresses: served });
  t.deepEqual(applied.map((e) => e.generation), [1, 3]);
  t.is(tracker.stats.superseded, 1);
  // An older generation arriving late does not replace a newer one.
  tracker.noteBuilt({ generation: 2, servedIngresses: [] });
  t.is(tracker.pendingGeneration, undefined);
});

test('a build that changed nothing is applied at once when an Envoy already has its snapshot', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  await nextApplied(tracker);
  t.deepEqual(cache.update(config()), []);
  tracker.noteBuilt({ generation: 2, servedIngresses: served });
  t.deepEqual(applied.map((e) => e.generation), [1, 2], 'reported synchronously, without waiting for an ACK');
});

test('a NACKed generation is not applied; the next good one is', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  const badPort = 9666;
  const rejectsBadEndpoints = (res: DiscoveryResponse): boolean =>
    res.typeUrl === TypeUrl.clusterLoadAssignment && res.resources.some((r) => JSON.stringify(decodeAnyToJson(r.type_url, r.value)).includes(`"port_value":${badPort}`));
  const stop = autoAck(server, cache, connect(address, cache), rejectsBadEndpoints);
  t.teardown(stop);
  await nextApplied(tracker);

  const nacked = once(server, 'nack', { signal: AbortSignal.timeout(5000) });
  cache.update(config({ basePort: badPort }));
  tracker.noteBuilt({ generation: 2, servedIngresses: [] });
  await nacked;
  t.is(tracker.pendingGeneration, 2);
  t.deepEqual(applied.map((e) => e.generation), [1]);

  cache.update(config({ basePort: 9001 }));
  tracker.noteBuilt({ generation: 3, servedIngresses: served });
  t.is((await nextApplied(tracker)).generation, 3);
  t.deepEqual(applied.map((e) => e.generation), [1, 3]);
});

test('an endpoint-only build rechecks only endpoints, and ACKs recheck only what is still missing', async (t) => {
  const { cache, server, tracker, address } = await start(t);
  const clusters = 40;
  cache.update(config({ clusters }));
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  await nextApplied(tracker);

  const before = tracker.stats.resourceChecks;
  const update = config({ clusters });
  update.clusterLoadAssignment = [...update.clusterLoadAssignment!.slice(0, -1), endpoints(`shop/web-${clusters - 1}/80`, 9999)];
  t.deepEqual(cache.update({ clusterLoadAssignment: update.clusterLoadAssignment }), ['clusterLoadAssignment']);
  tracker.noteBuilt({ generation: 2, servedIngresses: served });
  await nextApplied(tracker);
  const spent = tracker.stats.resourceChecks - before;
  // One scan of the 40 ClusterLoadAssignments, then the one changed name rechecked on its ACK. A full
  // rescan would be 40 clusters + 40 assignments + 1 secret + 1 listener + 1 route = 83 per pass.
  t.true(spent >= clusters && spent <= clusters + 2, `spent ${spent} checks`);
});

test('a disconnected Envoy is forgotten; a new one that catches up applies the pending generation', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served });
  const first = connect(address, cache);
  const res = await first.next();
  await ackOne(server, cache, first, res);
  const gone = once(server, 'disconnect', { signal: AbortSignal.timeout(5000) });
  first.close();
  await gone;
  t.deepEqual(applied, []);
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  t.is((await nextApplied(tracker)).generation, 1);
});

test('the tracker follows a reconciler-like emitter of built events', async (t) => {
  const { cache, server, address } = await start(t);
  const { EventEmitter } = await import('node:events');
  const builds = new EventEmitter<{ built: [{ generation: number; servedIngresses: ObjectRef[] }] }>();
  const tracker = new AppliedTracker(cache, server, builds);
  t.teardown(() => tracker.stop());
  cache.update(config());
  builds.emit('built', { generation: 7, servedIngresses: served });
  t.is(tracker.pendingGeneration, 7);
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  t.deepEqual(await nextApplied(tracker), { generation: 7, servedIngresses: served });
  tracker.stop();
  builds.emit('built', { generation: 8, servedIngresses: served });
  t.is(tracker.pendingGeneration, undefined, 'stopped trackers ignore builds');
});

test('an applied generation carries its Gateway API status data (what may now say Programmed)', async (t) => {
  const { cache, server, tracker, applied, address } = await start(t);
  const gatewayApiStatus = { gatewayClasses: [], gateways: [], routes: [] };
  cache.update(config());
  tracker.noteBuilt({ generation: 1, servedIngresses: served, gatewayApiStatus });
  const stop = autoAck(server, cache, connect(address, cache));
  t.teardown(stop);
  await nextApplied(tracker);
  t.is(applied[0]?.gatewayApiStatus, gatewayApiStatus);
});
