import test from 'ava';
import { decodeAnyToJson, encodeAny } from '../proto/proto-json.js';
import { TypeUrl } from '../proto/type-urls.js';
import { SnapshotCache } from './snapshot-cache.js';
import { typeVersion } from './snapshot.js';

function cla(name: string, ip: string): { name: string; resource: Record<string, unknown> } {
  return {
    name,
    resource: {
      '@type': TypeUrl.clusterLoadAssignment,
      cluster_name: name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: ip, port_value: 8080 } } } }] }],
    },
  };
}

function routeTable(bodies: string[]): { name: string; resource: Record<string, unknown> } {
  return {
    name: 'http',
    resource: {
      '@type': TypeUrl.routeConfiguration,
      name: 'http',
      virtual_hosts: bodies.map((body, i) => ({
        name: `vh-${i}`,
        domains: [`host-${i}.test`],
        routes: [{ match: { prefix: '/' }, direct_response: { status: 200, body: { inline_string: body } } }],
      })),
      validate_clusters: false,
    },
  };
}

test('patch re-encodes only the named ClusterLoadAssignments and keeps the others as they were', (t) => {
  const cache = new SnapshotCache();
  cache.update({ clusterLoadAssignment: [cla('a', '10.0.0.1'), cla('b', '10.0.0.2'), cla('c', '10.0.0.3')] });
  const before = cache.snapshot;
  const events: string[][] = [];
  cache.on('change', (_s, kinds) => events.push(kinds));

  t.deepEqual(cache.patch('clusterLoadAssignment', [cla('b', '10.0.0.9')]), ['clusterLoadAssignment']);
  const after = cache.snapshot.resources.clusterLoadAssignment;
  t.is(after.get('a'), before.resources.clusterLoadAssignment.get('a'));
  t.is(after.get('c'), before.resources.clusterLoadAssignment.get('c'));
  t.not(after.get('b')!.version, before.resources.clusterLoadAssignment.get('b')!.version);
  t.deepEqual([...after.keys()], ['a', 'b', 'c']);
  t.is(cache.lastEncoded.clusterLoadAssignment, 1);
  t.not(cache.snapshot.versions.clusterLoadAssignment, before.versions.clusterLoadAssignment);
  t.is(cache.snapshot.versions.cluster, before.versions.cluster);

  // The same content again changes nothing and pushes nothing.
  t.deepEqual(cache.patch('clusterLoadAssignment', [cla('b', '10.0.0.9')]), []);
  t.is(events.length, 1);

  // A new name is added in order; a removal drops it.
  cache.patch('clusterLoadAssignment', [cla('ab', '10.0.0.4')]);
  t.deepEqual([...cache.snapshot.resources.clusterLoadAssignment.keys()], ['a', 'ab', 'b', 'c']);
  cache.patch('clusterLoadAssignment', [], ['ab']);
  t.deepEqual([...cache.snapshot.resources.clusterLoadAssignment.keys()], ['a', 'b', 'c']);
});

test('a patched type version equals the version computed from scratch over the whole map', (t) => {
  const cache = new SnapshotCache();
  cache.update({ clusterLoadAssignment: [cla('a', '10.0.0.1'), cla('b', '10.0.0.2'), cla('c', '10.0.0.3')] });
  // Derived incrementally (old digests out, new in); typeVersion over a fresh copy of the map sums every entry.
  const fromScratch = (): string => typeVersion(new Map(cache.snapshot.resources.clusterLoadAssignment));
  const steps: [Parameters<SnapshotCache['patch']>[1], string[]][] = [
    [[cla('b', '10.0.0.9')], []], // replaced
    [[cla('ab', '10.0.0.4')], []], // added
    [[], ['a']], // removed
    [[cla('d', '10.0.0.5'), cla('c', '10.0.0.6')], ['d', 'nothing']], // added and removed in one patch, one replaced
    [[cla('a', '10.0.0.1')], []], // back
  ];
  for (const [upserts, removals] of steps) {
    cache.patch('clusterLoadAssignment', upserts, removals);
    t.is(cache.snapshot.versions.clusterLoadAssignment, fromScratch(), JSON.stringify(removals));
  }
  // Equal content gives the equal version, whatever path led there.
  const fresh = new SnapshotCache();
  fresh.update({ clusterLoadAssignment: [cla('a', '10.0.0.1'), cla('ab', '10.0.0.4'), cla('b', '10.0.0.9'), cla('c', '10.0.0.6')] });
  t.is(cache.snapshot.versions.clusterLoadAssignment, fresh.snapshot.versions.clusterLoadAssignment);
});

test('a resource passed as the same JSON object as last time is not encoded again', (t) => {
  const cache = new SnapshotCache();
  const table = routeTable(['one', 'two', 'three'.repeat(100)]);
  const a = cla('a', '10.0.0.1');
  cache.update({ routeConfiguration: [table], clusterLoadAssignment: [a] });
  t.is(cache.lastEncoded.routeConfiguration, 1);
  const served = cache.snapshot.resources.routeConfiguration.get('http')!;
  const events: string[][] = [];
  cache.on('change', (_s, kinds) => events.push(kinds));

  // Same objects: nothing encoded. A new CLA object with other content next to them: only it is encoded.
  t.deepEqual(cache.update({ routeConfiguration: [table], clusterLoadAssignment: [cla('a', '10.0.0.2')] }), ['clusterLoadAssignment']);
  t.is(cache.lastEncoded.routeConfiguration, 0);
  t.is(cache.lastEncoded.clusterLoadAssignment, 1);
  t.is(cache.snapshot.resources.routeConfiguration.get('http'), served);
  t.deepEqual(events, [['clusterLoadAssignment']]);
});

test('equal content in a new object is encoded, found byte-identical, and keeps the served resource and version', (t) => {
  const cache = new SnapshotCache();
  cache.update({ routeConfiguration: [routeTable(['one', 'two', 'three'])] });
  const first = cache.snapshot.resources.routeConfiguration.get('http')!;
  const versions = cache.snapshot.versions;
  t.deepEqual(cache.update({ routeConfiguration: [routeTable(['one', 'two', 'three'])] }), []);
  t.is(cache.lastEncoded.routeConfiguration, 1);
  t.is(cache.snapshot.resources.routeConfiguration.get('http'), first);
  t.is(cache.snapshot.versions, versions);

  const changed = routeTable(['one', 'TWO', 'three']);
  t.deepEqual(cache.update({ routeConfiguration: [changed] }), ['routeConfiguration']);
  const served = cache.snapshot.resources.routeConfiguration.get('http')!;
  t.not(served.version, first.version);
  t.deepEqual(served.any.value, encodeAny(changed.resource).value);
});

test('a served resource keeps only its bytes: its JSON is decoded from them', (t) => {
  const cache = new SnapshotCache();
  const table = routeTable(['one']);
  cache.update({ routeConfiguration: [table] });
  const served = cache.snapshot.resources.routeConfiguration.get('http')!;
  t.deepEqual(served.json, decodeAnyToJson(TypeUrl.routeConfiguration, encodeAny(table.resource).value));
  t.is((served.json['virtual_hosts'] as { name: string }[])[0]!.name, 'vh-0');
});

test('the type version depends on the set of resources, not on their order', (t) => {
  const cache = new SnapshotCache();
  cache.update({ clusterLoadAssignment: [cla('a', '10.0.0.1'), cla('b', '10.0.0.2')] });
  const map = cache.snapshot.resources.clusterLoadAssignment;
  const reversed = new Map([...map.entries()].reverse());
  t.is(typeVersion(reversed), typeVersion(map));
  const fewer = new Map([...map.entries()].slice(0, 1));
  t.not(typeVersion(fewer), typeVersion(map));
});

test('the very list a type was last made from is taken as unchanged without a look at its resources, until a patch changes that type', (t) => {
  const cache = new SnapshotCache();
  let reads = 0;
  // Each resource counts how often its name is read: what a walk of the list does first.
  const counted = (r: ReturnType<typeof cla>): ReturnType<typeof cla> => ({
    get name() {
      reads += 1;
      return r.name;
    },
    resource: r.resource,
  });
  const list = [counted(cla('a', '10.0.0.1')), counted(cla('b', '10.0.0.2'))];
  cache.update({ clusterLoadAssignment: list });
  const served = cache.snapshot;
  reads = 0;
  t.deepEqual(cache.update({ clusterLoadAssignment: list }), []);
  t.is(reads, 0, 'the same list is not walked');
  t.is(cache.snapshot, served);
  // An endpoints patch changes `a` behind the list's back: the same list handed again must put it back.
  cache.patch('clusterLoadAssignment', [cla('a', '10.0.0.9')]);
  t.deepEqual(cache.update({ clusterLoadAssignment: list }), ['clusterLoadAssignment']);
  const a = cache.snapshot.resources.clusterLoadAssignment.get('a')!;
  t.deepEqual(a.json, decodeAnyToJson(TypeUrl.clusterLoadAssignment, encodeAny(list[0]!.resource).value));
});
