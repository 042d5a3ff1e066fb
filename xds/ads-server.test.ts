import test from 'ava';
import { TypeUrl } from '../proto/type-urls.js';
import { AdsServer } from './ads-server.js';
import { SnapshotCache, type SnapshotUpdate } from './snapshot-cache.js';
import { DeltaTestClient, resourceNames, SotwTestClient } from './testing/ads-test-client.js';
import {
  clusterFixture as cluster,
  endpointsFixture as endpoints,
  extensionConfigFixture as extensionConfig,
  listenerFixture as listener,
  routesFixture as routes,
} from './testing/resource-fixtures.js';

const node = { id: 'test-envoy', cluster: 'test' };

function fullUpdate(clusterName = 'default/web/80', port = 9000): SnapshotUpdate {
  return {
    cluster: [cluster(clusterName)],
    clusterLoadAssignment: [endpoints(clusterName, port)],
    listener: [listener('ingress_http', 'http')],
    routeConfiguration: [routes('http', clusterName)],
    secret: [],
  };
}

async function start(t: { teardown(fn: () => void | Promise<void>): void }) {
  const cache = new SnapshotCache();
  const server = new AdsServer(cache);
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(() => server.forceClose());
  return { cache, server, address: `127.0.0.1:${port}` };
}

test('SotW: nothing is served before the first snapshot; then the wildcard CDS request gets every cluster', async (t) => {
  const { cache, address } = await start(t);
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  // The request is parked, not answered with an empty snapshot: the first response carries the clusters.
  cache.update({ ...fullUpdate(), cluster: [cluster('a/x/80'), cluster('a/y/80')], clusterLoadAssignment: [endpoints('a/x/80', 1), endpoints('a/y/80', 2)] });
  const res = await client.next();
  t.is(res.typeUrl, TypeUrl.cluster);
  t.deepEqual(resourceNames(res).sort(), ['a/x/80', 'a/y/80']);
  t.truthy(res.versionInfo);
  t.truthy(res.nonce);
});

test('SotW: versions change only when that type changes; an endpoint-only change sends only EDS', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate());
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  const cds = await client.next();
  client.ack(cds);
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNames: ['default/web/80'] });
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment);
  client.ack(eds, ['default/web/80']);
  client.send({ typeUrl: TypeUrl.listener });
  const lds = await client.next();
  t.is(lds.typeUrl, TypeUrl.listener);
  client.ack(lds);
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNames: ['http'] });
  const rds = await client.next();
  t.is(rds.typeUrl, TypeUrl.routeConfiguration);
  client.ack(rds, ['http']);

  const versionsBefore = { ...cache.snapshot.versions };
  const changed = cache.update({ ...fullUpdate(), clusterLoadAssignment: [endpoints('default/web/80', 9000, 9001)] });
  t.deepEqual(changed, ['clusterLoadAssignment']);
  t.is(cache.snapshot.versions.cluster, versionsBefore.cluster);
  t.is(cache.snapshot.versions.listener, versionsBefore.listener);
  t.is(cache.snapshot.versions.routeConfiguration, versionsBefore.routeConfiguration);
  t.not(cache.snapshot.versions.clusterLoadAssignment, versionsBefore.clusterLoadAssignment);
  const next = await client.next();
  t.is(next.typeUrl, TypeUrl.clusterLoadAssignment);
  t.not(next.versionInfo, eds.versionInfo);
  client.ack(next, ['default/web/80']);
  // Prove nothing else was queued: a new subscription's answer is the very next message.
  client.send({ typeUrl: TypeUrl.secret, resourceNames: [] });
  const sds = await client.next();
  t.is(sds.typeUrl, TypeUrl.secret);
  t.is(client.queued, 0);
});

test('SotW: a NACKed version is not resent; the next config change is sent', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update(fullUpdate());
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  const nacks: string[] = [];
  server.on('nack', (e) => nacks.push(e.message));
  client.send({ typeUrl: TypeUrl.cluster, node });
  const first = await client.next();
  client.send({
    typeUrl: TypeUrl.cluster,
    versionInfo: '',
    responseNonce: first.nonce,
    errorDetail: { code: 3, message: 'cluster rejected: bad thing' },
  });
  // Another type's answer arrives next: the rejected CDS was not sent again in between.
  client.send({ typeUrl: TypeUrl.secret });
  const sds = await client.next();
  t.is(sds.typeUrl, TypeUrl.secret);
  t.deepEqual(nacks, ['cluster rejected: bad thing']);
  t.is(server.stats.nacks, 1);
  t.deepEqual(server.clients()[0]?.types.cluster?.lastNack?.message, 'cluster rejected: bad thing');
  // A new config is sent.
  cache.update({ cluster: [cluster('default/web/80', '3s')] });
  const second = await client.next();
  t.is(second.typeUrl, TypeUrl.cluster);
  t.not(second.versionInfo, first.versionInfo);
});

test('SotW: requests with a stale nonce are ignored', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update(fullUpdate());
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  const first = await client.next();
  cache.update({ cluster: [cluster('default/web/80', '2s')] }); // not sent yet: first is not ACKed
  client.send({ typeUrl: TypeUrl.cluster, responseNonce: 'not-a-nonce-we-sent', versionInfo: 'x' });
  client.ack(first);
  const second = await client.next();
  t.is(second.typeUrl, TypeUrl.cluster);
  t.not(second.versionInfo, first.versionInfo);
  t.is(server.stats.staleRequests, 1);
  t.is(server.stats.acks, 1);
});

test('SotW: a newly requested name is answered even when nothing changed, and names that appear later are pushed', async (t) => {
  const { cache, address } = await start(t);
  cache.update({ ...fullUpdate(), cluster: [cluster('a/x/80'), cluster('a/y/80')], clusterLoadAssignment: [endpoints('a/x/80', 1), endpoints('a/y/80', 2)] });
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, node, resourceNames: ['a/x/80'] });
  const one = await client.next();
  t.deepEqual(resourceNames(one), ['a/x/80']);
  client.ack(one, ['a/x/80', 'a/y/80']);
  const two = await client.next();
  t.deepEqual(resourceNames(two).sort(), ['a/x/80', 'a/y/80']);
  client.ack(two, ['a/x/80', 'a/y/80', 'a/z/80']);
  // a/z/80 does not exist: the answer for the unchanged set is not repeated...
  cache.update({
    cluster: [cluster('a/x/80'), cluster('a/y/80'), cluster('a/z/80')],
    clusterLoadAssignment: [endpoints('a/x/80', 1), endpoints('a/y/80', 2), endpoints('a/z/80', 3)],
  });
  // ...and it is pushed once it appears.
  const three = await client.next();
  t.deepEqual(resourceNames(three).sort(), ['a/x/80', 'a/y/80', 'a/z/80']);
});

test('SotW: a reconnecting Envoy that presents the last version gets its first request answered', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate());
  const first = new SotwTestClient(address);
  first.send({ typeUrl: TypeUrl.listener, node });
  const lds = await first.next();
  first.close();
  const again = new SotwTestClient(address);
  t.teardown(() => again.close());
  again.send({ typeUrl: TypeUrl.listener, node, versionInfo: lds.versionInfo });
  const res = await again.next();
  t.is(res.versionInfo, lds.versionInfo);
  t.deepEqual(resourceNames(res), ['ingress_http']);
});

test('ordering: EDS follows CDS without waiting for its ACK; listeners and routes wait until both are ACKed', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate());
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  // Envoy asks for everything at once.
  client.send({ typeUrl: TypeUrl.cluster, node });
  client.send({ typeUrl: TypeUrl.listener });
  const cds = await client.next();
  t.is(cds.typeUrl, TypeUrl.cluster);
  // Envoy ACKs CDS only once the clusters are warm, which needs their endpoints: EDS must flow before that ACK.
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNames: ['default/web/80'] });
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment, 'EDS answered while CDS is not ACKed yet');
  client.ack(eds, ['default/web/80']);
  // Listeners are still held back: the clusters are not ACKed. A new subscription of another type is answered
  // first, which shows nothing else was sent in between.
  client.send({ typeUrl: TypeUrl.secret });
  t.is((await client.next()).typeUrl, TypeUrl.secret);
  client.ack(cds);
  const lds = await client.next();
  t.is(lds.typeUrl, TypeUrl.listener);
});

test('make before break: a removed cluster stays in CDS until the routes that stopped using it are ACKed; EDS is resent after CDS changes', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate('default/old/80'));
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNames: ['default/old/80'] });
  client.ack(await client.next(), ['default/old/80']);
  client.send({ typeUrl: TypeUrl.listener });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNames: ['http'] });
  client.ack(await client.next(), ['http']);

  cache.update(fullUpdate('default/new/80'));
  const cds = await client.next();
  t.is(cds.typeUrl, TypeUrl.cluster);
  t.deepEqual(resourceNames(cds).sort(), ['default/new/80', 'default/old/80'], 'old cluster retained');
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment, 'EDS resent right after the CDS change');
  client.ack(eds, ['default/new/80', 'default/old/80']);
  const eds2 = await client.next();
  // The retained cluster keeps its endpoints (its last ClusterLoadAssignment) while it is retained.
  t.deepEqual(resourceNames(eds2).sort(), ['default/new/80', 'default/old/80']);
  client.ack(eds2, ['default/new/80', 'default/old/80']);
  client.ack(cds); // the clusters are warm
  const rds = await client.next();
  t.is(rds.typeUrl, TypeUrl.routeConfiguration);
  t.is(rds.resources.length, 1);
  client.ack(rds, ['http']);
  const finalCds = await client.next();
  t.is(finalCds.typeUrl, TypeUrl.cluster);
  t.deepEqual(resourceNames(finalCds), ['default/new/80'], 'old cluster removed last');
});

test('delta make before break: a removed cluster and its endpoints stay until the routes that stopped using it are ACKed', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate('default/old/80'));
  const client = new DeltaTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNamesSubscribe: ['default/old/80'] });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.listener });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['http'] });
  client.ack(await client.next());

  cache.update(fullUpdate('default/new/80'));
  const cds = await client.next();
  t.is(cds.typeUrl, TypeUrl.cluster);
  t.deepEqual(cds.resources.map((r) => r.name), ['default/new/80']);
  t.deepEqual(cds.removedResources, [], 'old cluster retained');
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNamesSubscribe: ['default/new/80'] });
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment);
  t.deepEqual(eds.resources.map((r) => r.name), ['default/new/80']);
  t.deepEqual(eds.removedResources, [], 'the old cluster keeps its endpoints while routes may still use it');
  client.ack(cds);
  client.ack(eds);
  const rds = await client.next();
  t.is(rds.typeUrl, TypeUrl.routeConfiguration);
  client.ack(rds);
  // Routes moved: now the old cluster goes, then (Envoy unsubscribes from its endpoints, or they are removed).
  const last = await client.next();
  t.is(last.typeUrl, TypeUrl.cluster);
  t.deepEqual(last.removedResources, ['default/old/80']);
});

test('routes are not held back by endpoint updates of clusters that are not warming', async (t) => {
  const { cache, address } = await start(t);
  cache.update(fullUpdate('default/web/80'));
  const client = new DeltaTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNamesSubscribe: ['default/web/80'] });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.listener });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['http'] });
  client.ack(await client.next());

  // An endpoint update is sent and left unacknowledged (Envoy busy with it), then a route changes.
  cache.patch('clusterLoadAssignment', [endpoints('default/web/80', 9001)]);
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment);
  const changed = routes('http', 'default/web/80');
  cache.patch('routeConfiguration', [{ name: 'http', resource: { ...changed.resource, virtual_hosts: [{ name: 'changed', domains: ['*'], routes: [{ match: { prefix: '/v2' }, route: { cluster: 'default/web/80' } }] }] } }]);
  const rds = await client.next();
  t.is(rds.typeUrl, TypeUrl.routeConfiguration, 'the route goes out while the endpoint update awaits its ACK');
});

test('delta: initial request gets everything, then only changes; deletions are in removed_resources', async (t) => {
  const { cache, address } = await start(t);
  cache.update({ ...fullUpdate(), cluster: [cluster('a/x/80'), cluster('a/y/80')], clusterLoadAssignment: [endpoints('a/x/80', 1), endpoints('a/y/80', 2)] });
  const client = new DeltaTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  const first = await client.next();
  t.deepEqual(first.resources.map((r) => r.name).sort(), ['a/x/80', 'a/y/80']);
  client.ack(first);
  client.send({ typeUrl: TypeUrl.clusterLoadAssignment, resourceNamesSubscribe: ['a/x/80', 'a/y/80'] });
  client.ack(await client.next());
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['http'] });
  client.ack(await client.next());

  // Endpoint-only change: exactly one ClusterLoadAssignment travels.
  cache.update({ clusterLoadAssignment: [endpoints('a/x/80', 1, 7), endpoints('a/y/80', 2)] });
  const eds = await client.next();
  t.is(eds.typeUrl, TypeUrl.clusterLoadAssignment);
  t.deepEqual(eds.resources.map((r) => r.name), ['a/x/80']);
  client.ack(eds);

  // Remove a cluster: routes do not use it, so it goes at once (routes settled) in removed_resources.
  cache.update({ cluster: [cluster('a/x/80')], clusterLoadAssignment: [endpoints('a/x/80', 1, 7)] });
  const cds = await client.next();
  t.is(cds.typeUrl, TypeUrl.cluster);
  t.deepEqual(cds.resources, []);
  t.deepEqual(cds.removedResources, ['a/y/80']);
});

test('delta: reconnect with initial_resource_versions sends only what differs', async (t) => {
  const { cache, address } = await start(t);
  cache.update({ ...fullUpdate(), cluster: [cluster('a/x/80'), cluster('a/y/80')], clusterLoadAssignment: [endpoints('a/x/80', 1), endpoints('a/y/80', 2)] });
  const first = new DeltaTestClient(address);
  first.send({ typeUrl: TypeUrl.cluster, node });
  const res = await first.next();
  first.close();
  const versions = Object.fromEntries(res.resources.map((r) => [r.name, r.version]));
  cache.update({ cluster: [cluster('a/x/80', '1s'), cluster('a/y/80')] });
  const again = new DeltaTestClient(address);
  t.teardown(() => again.close());
  again.send({ typeUrl: TypeUrl.cluster, node, initialResourceVersions: versions });
  const delta = await again.next();
  t.deepEqual(delta.resources.map((r) => r.name), ['a/x/80']);
  t.deepEqual(delta.removedResources, []);
});

test('delta: NACKed resources are not resent; subscription changes are honoured even with a stale nonce; missing names are reported removed', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update(fullUpdate());
  const client = new DeltaTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.cluster, node });
  const cds = await client.next();
  client.send({ typeUrl: TypeUrl.cluster, responseNonce: cds.nonce, errorDetail: { code: 3, message: 'no' } });
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['nope'], responseNonce: 'stale' });
  const rds = await client.next();
  t.is(rds.typeUrl, TypeUrl.routeConfiguration, 'the rejected clusters were not resent before this');
  t.deepEqual(rds.removedResources, ['nope']);
  t.is(server.stats.nacks, 1);
  client.ack(rds);
  client.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['http'], responseNonce: 'also-stale' });
  const rds2 = await client.next();
  t.deepEqual(rds2.resources.map((r) => r.name), ['http']);
});

test('delta: resources Envoy presents on reconnect count as ACKed (status can be published after a restart)', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update(fullUpdate());
  const first = new DeltaTestClient(address);
  first.send({ typeUrl: TypeUrl.cluster, node });
  const res = await first.next();
  first.close();
  const versions = Object.fromEntries(res.resources.map((r) => [r.name, r.version]));
  const again = new DeltaTestClient(address);
  t.teardown(() => again.close());
  const acks: string[][] = [];
  server.on('ack', (e) => acks.push(e.resourceNames));
  again.send({ typeUrl: TypeUrl.cluster, node, initialResourceVersions: versions });
  // Nothing differs, so nothing is sent; a new subscription of another type is answered first.
  again.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['nope'] });
  t.is((await again.next()).typeUrl, TypeUrl.routeConfiguration);
  t.deepEqual(acks, [['default/web/80']]);
  const client = server.clients().find((c) => c.protocol === 'delta' && c.acked.cluster.size > 0);
  t.is(client?.acked.cluster.get('default/web/80'), versions['default/web/80']);
});

// ECDS: filter configurations are named resources (Envoy asks for the names its listeners' filters give), served
// like SDS: before the listeners that name them, without waiting for clusters.
/** Resolves once the server has taken an ACK of `kind` (an ACK travels asynchronously). */
function ackOf(server: AdsServer, kind: string): Promise<void> {
  return new Promise((resolve) => {
    const onAck = (e: { kind: string }): void => {
      if (e.kind !== kind) return;
      server.off('ack', onAck);
      resolve();
    };
    server.on('ack', onAck);
  });
}

test('SotW ECDS: the names asked for are answered, each once; a changed configuration goes out before the listener change that came with it', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update({ ...fullUpdate(), extensionConfig: [extensionConfig('a'), extensionConfig('b'), extensionConfig('c')] });
  const client = new SotwTestClient(address);
  t.teardown(() => client.close());
  client.send({ typeUrl: TypeUrl.listener, node });
  const lds = await client.next();
  t.is(lds.typeUrl, TypeUrl.listener);
  client.ack(lds);
  client.send({ typeUrl: TypeUrl.extensionConfig, resourceNames: ['a', 'c'] });
  const ecds = await client.next();
  t.is(ecds.typeUrl, TypeUrl.extensionConfig);
  t.deepEqual(resourceNames(ecds).sort(), ['a', 'c']);
  const acked = ackOf(server, 'extensionConfig');
  client.ack(ecds, ['a', 'c']);
  await acked;

  // One update changes a configuration and the listener: the configuration is sent first.
  const changed = listener('ingress_http', 'http2');
  cache.update({ ...fullUpdate(), listener: [changed], extensionConfig: [extensionConfig('a', 'function envoy_on_response(h) end'), extensionConfig('b'), extensionConfig('c')] });
  const first = await client.next();
  t.is(first.typeUrl, TypeUrl.extensionConfig);
  t.deepEqual(resourceNames(first).sort(), ['a', 'c'], 'state of the world: every name asked for');
  const second = await client.next();
  t.is(second.typeUrl, TypeUrl.listener);
});

test('delta ECDS: subscribed names are answered, a missing one is left unanswered (Envoy would wait for it for good); a reconnect with the versions it has gets nothing again', async (t) => {
  const { cache, server, address } = await start(t);
  cache.update({ ...fullUpdate(), extensionConfig: [extensionConfig('a'), extensionConfig('b')] });
  const client = new DeltaTestClient(address);
  client.send({ typeUrl: TypeUrl.extensionConfig, node, resourceNamesSubscribe: ['a', 'b', 'nope'] });
  const ecds = await client.next();
  t.is(ecds.typeUrl, TypeUrl.extensionConfig);
  t.deepEqual(ecds.resources.map((r) => r.name).sort(), ['a', 'b']);
  t.deepEqual(ecds.removedResources, [], 'its initial fetch times out instead (test/ecds-filters-e2e)');
  const acked = ackOf(server, 'extensionConfig');
  client.ack(ecds);
  await acked;
  client.close();

  const versions = Object.fromEntries(ecds.resources.map((r) => [r.name, r.version]));
  const again = new DeltaTestClient(address);
  t.teardown(() => again.close());
  const acks: string[][] = [];
  server.on('ack', (e) => {
    if (e.kind === 'extensionConfig') acks.push(e.resourceNames);
  });
  again.send({ typeUrl: TypeUrl.extensionConfig, node, resourceNamesSubscribe: ['a', 'b'], initialResourceVersions: versions });
  again.send({ typeUrl: TypeUrl.routeConfiguration, resourceNamesSubscribe: ['http'] });
  t.is((await again.next()).typeUrl, TypeUrl.routeConfiguration, 'nothing of ECDS was sent again');
  t.deepEqual(acks, [['a', 'b']], 'what it has counts as ACKed');
});
