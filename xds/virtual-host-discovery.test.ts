// VHDS on the wire: route configurations carry no virtual hosts over delta xDS, each virtual host is its own
// resource in the route configuration's namespace, and a change to one host sends that host alone. State-of-the-
// world streams (no VHDS in Envoy) get the route configurations re-assembled, and their ACK counts for the parts.
import test from 'ava';
import { splitVirtualHosts } from '../envoy/virtual-host-discovery.js';
import { decodeAnyToJson } from '../proto/proto-json.js';
import { TypeUrl } from '../proto/type-urls.js';
import { DeltaSession } from './delta-session.js';
import { decodeDeltaDiscoveryResponse, decodeDiscoveryResponse, type DeltaDiscoveryResponse, type DiscoveryResponse } from './discovery-messages.js';
import { withoutField } from './embedded-virtual-hosts.js';
import { SnapshotCache, type SnapshotUpdate } from './snapshot-cache.js';
import { SotwSession } from './sotw-session.js';
import { xdsSelfCheck, type AckEvent, type SessionHooks } from './stream-session.js';

xdsSelfCheck.enabled = true;

const node = { id: 'test-envoy', cluster: 'test' };

function routeTable(name: string, hosts: Record<string, string>): { name: string; resource: Record<string, unknown> } {
  return {
    name,
    resource: {
      '@type': TypeUrl.routeConfiguration,
      name,
      virtual_hosts: Object.entries(hosts).map(([host, body]) => ({
        name: host,
        domains: [host],
        routes: [{ match: { prefix: '/' }, direct_response: { status: 200, body: { inline_string: body } } }],
      })),
    },
  };
}

function update(hosts: Record<string, string>): SnapshotUpdate {
  const vhds = splitVirtualHosts([routeTable('http', hosts)]);
  return { routeConfiguration: vhds.routeConfigurations, virtualHost: vhds.virtualHosts };
}

function deltaStream(cache: SnapshotCache, acks: AckEvent[] = []) {
  const responses: DeltaDiscoveryResponse[] = [];
  const hooks: SessionHooks = { onAck: (e) => acks.push(e), onNack: () => undefined };
  const session = new DeltaSession(hooks, (bytes) => responses.push(decodeDeltaDiscoveryResponse(bytes)));
  cache.on('change', (s) => session.setSnapshot(s));
  session.setSnapshot(cache.snapshot);
  const request = (typeUrl: string, o: { subscribe?: string[]; nonce?: string } = {}): void =>
    session.handleRequest({
      node,
      typeUrl,
      resourceNamesSubscribe: o.subscribe ?? [],
      resourceNamesUnsubscribe: [],
      initialResourceVersions: {},
      responseNonce: o.nonce ?? '',
    });
  return { responses, request };
}

test('delta: a subscription to a route configuration gets its virtual hosts; one changed host is sent alone', (t) => {
  const cache = new SnapshotCache();
  cache.update(update({ 'a.test': 'a', 'b.test': 'b', 'c.test': 'c' }));
  const { responses, request } = deltaStream(cache);
  request(TypeUrl.routeConfiguration, { subscribe: ['http'] });
  const rds = responses.shift()!;
  t.deepEqual(rds.resources.map((r) => r.name), ['http']);
  const table = decodeAnyToJson(TypeUrl.routeConfiguration, rds.resources[0]!.resource!.value);
  t.is(table['virtual_hosts'], undefined);
  t.deepEqual(table['vhds'], { config_source: { ads: {}, resource_api_version: 'V3' } });
  request(TypeUrl.routeConfiguration, { nonce: rds.nonce });

  // Envoy subscribes to VHDS namespaces with a legacy wildcard request (no names) and sorts by namespace.
  request(TypeUrl.virtualHost);
  const first = responses.shift()!;
  t.deepEqual(first.resources.map((r) => r.name), ['http/a.test', 'http/b.test', 'http/c.test']);
  const host = decodeAnyToJson(TypeUrl.virtualHost, first.resources[0]!.resource!.value);
  t.is(host['name'], 'http/a.test', 'the VirtualHost is named like its resource (Envoy keys and removes it by that name)');
  request(TypeUrl.virtualHost, { nonce: first.nonce });
  t.is(responses.length, 0);

  cache.update(update({ 'a.test': 'a', 'b.test': 'B', 'd.test': 'd' }));
  t.is(responses.length, 1, 'the route configuration did not change: only VHDS is sent');
  const change = responses.shift()!;
  t.is(change.typeUrl, TypeUrl.virtualHost);
  t.deepEqual(change.resources.map((r) => r.name), ['http/b.test', 'http/d.test']);
  t.deepEqual(change.removedResources, ['http/c.test']);
});

test('delta: a subscription by namespace gets only that route configuration\'s virtual hosts', (t) => {
  const cache = new SnapshotCache();
  const vhds = splitVirtualHosts([routeTable('http', { 'a.test': 'a' }), routeTable('https', { 'a.test': 'A' })]);
  cache.update({ routeConfiguration: vhds.routeConfigurations, virtualHost: vhds.virtualHosts });
  const { responses, request } = deltaStream(cache);
  request(TypeUrl.virtualHost, { subscribe: ['https'] });
  t.deepEqual(responses.shift()!.resources.map((r) => r.name), ['https/a.test']);
});

test('delta: a new route configuration\'s virtual hosts go out behind it, not before (the first TLS host)', (t) => {
  // Envoy watches a namespace only once it has the route configuration; over its one wildcard VHDS subscription,
  // virtual hosts of a table it does not have yet are ACKed, dropped, and never asked for again. Real Envoy 1.40:
  // the 'https' table then waited out initial_fetch_timeout and served 404 for every host.
  const cache = new SnapshotCache();
  cache.update(update({ 'a.test': 'a' }));
  const { responses, request } = deltaStream(cache);
  request(TypeUrl.routeConfiguration, { subscribe: ['http'] });
  request(TypeUrl.virtualHost);
  t.deepEqual(responses.map((r) => [r.typeUrl, r.resources.map((x) => x.name)]), [
    [TypeUrl.routeConfiguration, ['http']],
    [TypeUrl.virtualHost, ['http/a.test']],
  ]);
  request(TypeUrl.routeConfiguration, { nonce: responses.shift()!.nonce });
  request(TypeUrl.virtualHost, { nonce: responses.shift()!.nonce });

  // The first TLS host: a new 'https' table, which Envoy subscribes to only when its listener has arrived.
  const vhds = splitVirtualHosts([routeTable('http', { 'a.test': 'a', 'c.test': 'c' }), routeTable('https', { 'a.test': 'A', 'c.test': 'C' })]);
  cache.update({ routeConfiguration: vhds.routeConfigurations, virtualHost: vhds.virtualHosts });
  const early = responses.shift()!;
  t.deepEqual(early.resources.map((r) => r.name), ['http/c.test'], 'no https/... before Envoy has the https table');
  t.is(responses.length, 0);
  request(TypeUrl.virtualHost, { nonce: early.nonce });
  request(TypeUrl.routeConfiguration, { subscribe: ['https'] });
  t.deepEqual(responses.map((r) => [r.typeUrl, r.resources.map((x) => x.name)]), [
    [TypeUrl.routeConfiguration, ['https']],
    [TypeUrl.virtualHost, ['https/a.test', 'https/c.test']],
  ], 'the table, then right behind it on the same stream its virtual hosts');
});

test('delta: VHDS with no virtual hosts at all is still answered (Envoy waits for it)', (t) => {
  const cache = new SnapshotCache();
  cache.update({ routeConfiguration: splitVirtualHosts([routeTable('http', {})]).routeConfigurations });
  const { responses, request } = deltaStream(cache);
  request(TypeUrl.virtualHost);
  t.is(responses.length, 1);
  t.deepEqual(responses[0]!.resources, []);
  t.deepEqual(responses[0]!.removedResources, [], 'a namespace is not a resource: never reported missing');
});

test('delta: a first wildcard request is answered even when there are no clusters', (t) => {
  const cache = new SnapshotCache();
  cache.update(update({ 'a.test': 'a' }));
  const { responses, request } = deltaStream(cache);
  request(TypeUrl.cluster);
  t.is(responses.length, 1);
  t.is(responses[0]!.typeUrl, TypeUrl.cluster);
  t.deepEqual(responses[0]!.resources, []);
});

test('state of the world: route configurations come with their virtual hosts inside, and their ACK covers the virtual hosts', (t) => {
  const cache = new SnapshotCache();
  const hosts = { 'a.test': 'a', 'b.test': 'b' };
  cache.update(update(hosts));
  const responses: DiscoveryResponse[] = [];
  const acks: AckEvent[] = [];
  const session = new SotwSession({ onAck: (e) => acks.push(e), onNack: () => undefined }, (bytes) => responses.push(decodeDiscoveryResponse(bytes)));
  session.setSnapshot(cache.snapshot);
  session.handleRequest({ node, typeUrl: TypeUrl.routeConfiguration, resourceNames: ['http'], versionInfo: '', responseNonce: '' });
  const res = responses.shift()!;
  const table = decodeAnyToJson(TypeUrl.routeConfiguration, res.resources[0]!.value);
  t.is(table['vhds'], undefined);
  t.deepEqual(
    (table['virtual_hosts'] as { name: string; domains: string[] }[]).map((v) => [v.name, v.domains]),
    [
      ['http/a.test', ['a.test']],
      ['http/b.test', ['b.test']],
    ],
  );
  session.handleRequest({ node, typeUrl: TypeUrl.routeConfiguration, resourceNames: ['http'], versionInfo: res.versionInfo, responseNonce: res.nonce });
  const snapshot = cache.snapshot.resources;
  t.deepEqual(
    acks.map((a) => [a.kind, a.resourceNames, a.resourceVersions]),
    [
      ['routeConfiguration', ['http'], [snapshot.routeConfiguration.get('http')!.version]],
      ['virtualHost', ['http/a.test', 'http/b.test'], [snapshot.virtualHost.get('http/a.test')!.version, snapshot.virtualHost.get('http/b.test')!.version]],
    ],
  );
});

test('withoutField drops one top-level field and keeps the rest byte for byte', (t) => {
  // field 1 (varint 150), field 9 (bytes "ab"), field 2 (fixed32), field 9 again
  const bytes = Uint8Array.from([0x08, 0x96, 0x01, 0x4a, 0x02, 0x61, 0x62, 0x15, 1, 2, 3, 4, 0x4a, 0x00]);
  t.deepEqual([...withoutField(bytes, 9)], [0x08, 0x96, 0x01, 0x15, 1, 2, 3, 4]);
  t.deepEqual([...withoutField(bytes, 7)], [...bytes]);
});
