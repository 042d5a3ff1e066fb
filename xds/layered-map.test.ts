import test from 'ava';
import fc from 'fast-check';
import { LayeredMap } from './layered-map.js';
import { makeResource, type XdsResource } from './resource.js';
import { SnapshotCache } from './snapshot-cache.js';
import { TypeUrl } from '../proto/type-urls.js';

function resource(name: string, port: number): XdsResource {
  return makeResource(name, {
    '@type': TypeUrl.clusterLoadAssignment,
    cluster_name: name,
    endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } } }] }],
  });
}

const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const changeArb = fc.array(fc.tuple(fc.constantFrom(...names), fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined })), { maxLength: 6 });

test('a chain of patches reads, sizes and iterates (in name order) like a sorted copy with the same changes', (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.subarray(names), fc.array(changeArb, { maxLength: 200 }), (initial, patches) => {
        let model = new Map(initial.map((n) => [n, resource(n, 1)]));
        let map: ReadonlyMap<string, XdsResource> = new Map(model);
        for (const patch of patches) {
          const changes = new Map(patch.map(([n, port]) => [n, port === undefined ? undefined : resource(n, port)]));
          map = LayeredMap.patched(map, changes);
          for (const [n, r] of changes) {
            if (r === undefined) model.delete(n);
            else model.set(n, r);
          }
          model = new Map([...model].sort(([a], [b]) => (a < b ? -1 : 1)));
          if (map.size !== model.size) throw new Error(`size ${map.size} != ${model.size}`);
          const entries = [...map].map(([n, r]) => `${n}=${r.version}`).join(',');
          const expected = [...model].map(([n, r]) => `${n}=${r.version}`).join(',');
          if (entries !== expected) throw new Error(`${entries} != ${expected}`);
          for (const n of names) if (map.has(n) !== model.has(n) || map.get(n) !== model.get(n)) throw new Error(`lookup of ${n}`);
          if ([...map.keys()].join() !== [...model.keys()].join() || [...map.values()].length !== model.size) throw new Error('keys/values');
        }
      }),
      { numRuns: 200, seed: 7 },
    ),
  );
});

test('a patch of one resource among many shares the rest instead of copying it, and folds large overlays', (t) => {
  const cache = new SnapshotCache();
  const many = Array.from({ length: 1000 }, (_, i) => ({
    name: `n${String(i).padStart(4, '0')}`,
    resource: { '@type': TypeUrl.clusterLoadAssignment, cluster_name: `n${i}`, endpoints: [] },
  }));
  cache.update({ clusterLoadAssignment: many });
  const first = cache.snapshot.resources.clusterLoadAssignment;
  t.true(first instanceof Map);
  cache.patch('clusterLoadAssignment', [{ name: 'n0001', resource: { '@type': TypeUrl.clusterLoadAssignment, cluster_name: 'changed', endpoints: [] } }]);
  const patched = cache.snapshot.resources.clusterLoadAssignment;
  t.true(patched instanceof LayeredMap);
  t.is(patched.size, 1000);
  t.is(patched.get('n0002'), first.get('n0002'));
  t.not(patched.get('n0001'), first.get('n0001'));
  let folds = 0;
  for (let i = 0; i < 200; i++) {
    cache.patch('clusterLoadAssignment', [{ name: `n${String(i).padStart(4, '0')}`, resource: { '@type': TypeUrl.clusterLoadAssignment, cluster_name: `v${i}`, endpoints: [] } }]);
    if (!(cache.snapshot.resources.clusterLoadAssignment instanceof LayeredMap)) folds += 1;
  }
  t.is(folds, 1, 'one full copy for 200 changed names');
  const folded = cache.snapshot.resources.clusterLoadAssignment;
  t.is(folded.size, 1000);
  t.deepEqual([...folded.keys()], many.map((m) => m.name), 'still in name order');
});
