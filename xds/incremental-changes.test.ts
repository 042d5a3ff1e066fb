// The incremental paths of the xDS streams (snapshot lineage, per-stream pending changes, memoised desired
// resources) against recomputation from scratch: sessions are driven in-process, with the self-check on, through
// the sequences an incremental path is most likely to get wrong.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import type { ResourceKind } from '../proto/type-urls.js';
import { TypeUrl } from '../proto/type-urls.js';
import { DeltaSession } from './delta-session.js';
import { decodeDeltaDiscoveryResponse, decodeDiscoveryResponse, type DeltaDiscoveryResponse, type DiscoveryResponse } from './discovery-messages.js';
import { SnapshotCache } from './snapshot-cache.js';
import { changedNamesBetween, recordDerivation, type ResourceMap } from './snapshot.js';
import { SotwSession } from './sotw-session.js';
import { xdsSelfCheck, type SessionHooks } from './stream-session.js';
import { clusterFixture as cluster, endpointsFixture as endpoints } from './testing/resource-fixtures.js';

xdsSelfCheck.enabled = true;

const node = { id: 'test-envoy', cluster: 'test' };
const quietHooks: SessionHooks = { onAck: () => undefined, onNack: () => undefined };

/** An Envoy in miniature on a delta stream: what it has per type is what it ACKed. */
class DeltaEnvoy {
  readonly responses: DeltaDiscoveryResponse[] = [];
  readonly has = new Map<string, string>();
  readonly session: DeltaSession;

  constructor(
    readonly cache: SnapshotCache,
    readonly kind: ResourceKind,
  ) {
    this.session = new DeltaSession(quietHooks, (bytes) => this.responses.push(decodeDeltaDiscoveryResponse(bytes)));
    cache.on('change', (snapshot) => this.session.setSnapshot(snapshot));
    if (cache.ready) this.session.setSnapshot(cache.snapshot);
  }

  request(o: { subscribe?: string[]; unsubscribe?: string[]; initial?: Record<string, string>; nonce?: string; error?: string }): void {
    this.session.handleRequest({
      node,
      typeUrl: TypeUrl[this.kind],
      resourceNamesSubscribe: o.subscribe ?? [],
      resourceNamesUnsubscribe: o.unsubscribe ?? [],
      initialResourceVersions: o.initial ?? {},
      responseNonce: o.nonce ?? '',
      ...(o.error === undefined ? {} : { errorDetail: { code: 3, message: o.error } }),
    });
  }

  /** The one response written since the last call (throws if there are several or none). */
  take(): DeltaDiscoveryResponse {
    if (this.responses.length !== 1) throw new Error(`expected one response, got ${this.responses.length}`);
    return this.responses.shift()!;
  }

  ack(res: DeltaDiscoveryResponse): void {
    for (const r of res.resources) this.has.set(r.name, r.version);
    for (const name of res.removedResources) this.has.delete(name);
    this.request({ nonce: res.nonce });
  }

  nack(res: DeltaDiscoveryResponse): void {
    this.request({ nonce: res.nonce, error: 'rejected' });
  }
}

function names(res: DeltaDiscoveryResponse): string[] {
  return res.resources.map((r) => r.name);
}

function version(cache: SnapshotCache, name: string): string | undefined {
  return cache.snapshot.resources.clusterLoadAssignment.get(name)?.version;
}

/** Self-check differences recorded while `run` ran. */
function selfCheckFailures(run: () => void): string[] {
  const before = xdsSelfCheck.failures.length;
  run();
  return xdsSelfCheck.failures.slice(before);
}

test('snapshot lineage: a patched map knows the names changed since any earlier map of its line', (t) => {
  const cache = new SnapshotCache();
  cache.update({ clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2), endpoints('c', 3)] });
  const m0 = cache.snapshot.resources.clusterLoadAssignment;
  cache.patch('clusterLoadAssignment', [endpoints('a', 10)]);
  const m1 = cache.snapshot.resources.clusterLoadAssignment;
  cache.patch('clusterLoadAssignment', [endpoints('d', 4)], ['b']);
  const m2 = cache.snapshot.resources.clusterLoadAssignment;
  cache.update({ clusterLoadAssignment: [endpoints('a', 10), endpoints('c', 30), endpoints('d', 4)] });
  const m3 = cache.snapshot.resources.clusterLoadAssignment;
  t.deepEqual([...changedNamesBetween(m0, m1)!].sort(), ['a']);
  t.deepEqual([...changedNamesBetween(m1, m2)!].sort(), ['b', 'd']);
  t.deepEqual([...changedNamesBetween(m0, m2)!].sort(), ['a', 'b', 'd']);
  t.deepEqual([...changedNamesBetween(m2, m3)!].sort(), ['c'], 'a full update logs only what differs');
  t.deepEqual([...changedNamesBetween(m0, m3)!].sort(), ['a', 'b', 'c', 'd']);
  t.is(changedNamesBetween(m2, m0), undefined, 'not backwards');
  t.is(changedNamesBetween(m0, new Map()), undefined, 'not across unrelated maps');
  // A patch that changes nothing publishes no new map.
  cache.patch('clusterLoadAssignment', [endpoints('a', 10)]);
  t.is(cache.snapshot.resources.clusterLoadAssignment, m3);
});

test('snapshot lineage: a map derived from one that is not the newest of its line starts a new line', (t) => {
  const base: ResourceMap = new Map();
  const first: ResourceMap = new Map();
  const fork: ResourceMap = new Map();
  recordDerivation(first, base, new Set(['x']));
  recordDerivation(fork, base, new Set(['y']));
  t.deepEqual([...changedNamesBetween(base, first)!], ['x']);
  t.is(changedNamesBetween(base, fork), undefined);
});

test('snapshot lineage: the log is bounded; a stream too far behind falls back to a full walk', (t) => {
  const cache = new SnapshotCache();
  cache.update({ clusterLoadAssignment: [endpoints('a', 1)] });
  const old = cache.snapshot.resources.clusterLoadAssignment;
  for (let i = 0; i < 300; i++) cache.patch('clusterLoadAssignment', [endpoints('a', 1000 + i)]);
  t.is(changedNamesBetween(old, cache.snapshot.resources.clusterLoadAssignment), undefined);
  const recent = cache.snapshot.resources.clusterLoadAssignment;
  cache.patch('clusterLoadAssignment', [endpoints('a', 1)]);
  t.deepEqual([...changedNamesBetween(recent, cache.snapshot.resources.clusterLoadAssignment)!], ['a']);
});

test('delta EDS: a patch, a NACK, then a patch of the same and of another resource', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2), endpoints('c', 3)] });
    const envoy = new DeltaEnvoy(cache, 'clusterLoadAssignment');
    envoy.request({ subscribe: ['a', 'b', 'c'] });
    envoy.ack(envoy.take());
    t.deepEqual([...envoy.has.keys()].sort(), ['a', 'b', 'c']);

    cache.patch('clusterLoadAssignment', [endpoints('a', 10)]);
    const patched = envoy.take();
    t.deepEqual(names(patched), ['a']);
    envoy.nack(patched);
    t.is(envoy.responses.length, 0, 'the rejected version is not resent');
    // An ACK-free moment where another type's churn must not bring it back either.
    cache.update({ listener: [] });
    t.is(envoy.responses.length, 0);

    cache.patch('clusterLoadAssignment', [endpoints('b', 20)]);
    const b = envoy.take();
    t.deepEqual(names(b), ['b'], 'only the new change, not the rejected one');
    cache.patch('clusterLoadAssignment', [endpoints('a', 11)]);
    t.is(envoy.responses.length, 0, 'one response in flight per type');
    envoy.ack(b);
    const a = envoy.take();
    t.deepEqual(names(a), ['a'], 'the new version of the rejected resource');
    t.is(a.resources[0]?.version, version(cache, 'a'));
  });
  t.deepEqual(failures, []);
});

test('delta EDS: after a NACK, a new version of the rejected resource is sent once the pending one is ACKed', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2)] });
    const envoy = new DeltaEnvoy(cache, 'clusterLoadAssignment');
    envoy.request({ subscribe: ['a', 'b'] });
    envoy.ack(envoy.take());
    cache.patch('clusterLoadAssignment', [endpoints('a', 10)]);
    envoy.nack(envoy.take());
    cache.patch('clusterLoadAssignment', [endpoints('b', 20)]);
    const b = envoy.take();
    t.deepEqual(names(b), ['b']);
    cache.patch('clusterLoadAssignment', [endpoints('a', 11), endpoints('b', 21)]);
    envoy.ack(b);
    const both = envoy.take();
    t.deepEqual(names(both), ['a', 'b']);
    t.deepEqual(
      both.resources.map((r) => r.version),
      [version(cache, 'a'), version(cache, 'b')],
    );
    envoy.ack(both);
    t.is(envoy.responses.length, 0);
    t.is(envoy.has.get('a'), version(cache, 'a'));
  });
  t.deepEqual(failures, []);
});

test('delta EDS: a reconnect with initial versions gets only what differs, also after later patches', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2), endpoints('c', 3)] });
    const first = new DeltaEnvoy(cache, 'clusterLoadAssignment');
    first.request({ subscribe: ['a', 'b', 'c'] });
    first.ack(first.take());
    first.session.close();
    cache.patch('clusterLoadAssignment', [endpoints('b', 20)]);
    const again = new DeltaEnvoy(cache, 'clusterLoadAssignment');
    again.request({ subscribe: ['a', 'b', 'c'], initial: Object.fromEntries(first.has) });
    const res = again.take();
    t.deepEqual(names(res), ['b']);
    t.deepEqual(res.removedResources, []);
    again.ack(res);
    cache.patch('clusterLoadAssignment', [endpoints('c', 30)]);
    t.deepEqual(names(again.take()), ['c']);
  });
  t.deepEqual(failures, []);
});

test('delta EDS: a removal goes out in removed_resources, and a name that appears later by a patch is pushed', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2)] });
    const envoy = new DeltaEnvoy(cache, 'clusterLoadAssignment');
    envoy.request({ subscribe: ['a', 'b', 'later'] });
    const first = envoy.take();
    t.deepEqual(names(first), ['a', 'b']);
    t.deepEqual(first.removedResources, ['later'], 'a subscribed name that does not exist is reported removed');
    envoy.ack(first);

    cache.patch('clusterLoadAssignment', [], ['b']);
    const removal = envoy.take();
    t.deepEqual(names(removal), []);
    t.deepEqual(removal.removedResources, ['b']);
    envoy.ack(removal);

    cache.patch('clusterLoadAssignment', [endpoints('later', 7)]);
    const appeared = envoy.take();
    t.deepEqual(names(appeared), ['later']);
    t.is(appeared.resources[0]?.version, version(cache, 'later'));
    envoy.ack(appeared);
    // Unsubscribed, then removed from the snapshot: nothing to tell.
    envoy.request({ unsubscribe: ['later'] });
    cache.patch('clusterLoadAssignment', [], ['later']);
    t.is(envoy.responses.length, 0);
    cache.patch('clusterLoadAssignment', [endpoints('later', 8)]);
    t.is(envoy.responses.length, 0, 'an unsubscribed name is not pushed');
    envoy.request({ subscribe: ['later'] });
    t.deepEqual(names(envoy.take()), ['later'], 'a renewed subscription is answered');
  });
  t.deepEqual(failures, []);
});

test('delta CDS+EDS: a changed cluster makes its endpoints go again even though they did not change', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ cluster: [cluster('a'), cluster('b')], clusterLoadAssignment: [endpoints('a', 1), endpoints('b', 2)] });
    const responses: DeltaDiscoveryResponse[] = [];
    const session = new DeltaSession(quietHooks, (bytes) => responses.push(decodeDeltaDiscoveryResponse(bytes)));
    cache.on('change', (s) => session.setSnapshot(s));
    session.setSnapshot(cache.snapshot);
    const req = (typeUrl: string, o: { subscribe?: string[]; nonce?: string }) =>
      session.handleRequest({ node, typeUrl, resourceNamesSubscribe: o.subscribe ?? [], resourceNamesUnsubscribe: [], initialResourceVersions: {}, responseNonce: o.nonce ?? '' });
    req(TypeUrl.cluster, {});
    req(TypeUrl.clusterLoadAssignment, { subscribe: ['a', 'b'] });
    for (const r of responses.splice(0)) req(r.typeUrl, { nonce: r.nonce });
    cache.patch('cluster', [cluster('a', '2s')]);
    const [cds, eds] = responses.splice(0);
    t.deepEqual(cds && names(cds), ['a']);
    t.deepEqual(eds && names(eds), ['a'], 'EDS follows the cluster change');
  });
  t.deepEqual(failures, []);
});

test('SotW EDS: a name that appears later by a patch is pushed; an unchanged subscription is not answered again', (t) => {
  const failures = selfCheckFailures(() => {
    const cache = new SnapshotCache();
    cache.update({ clusterLoadAssignment: [endpoints('a', 1)] });
    const responses: DiscoveryResponse[] = [];
    const session = new SotwSession(quietHooks, (bytes) => responses.push(decodeDiscoveryResponse(bytes)));
    cache.on('change', (s) => session.setSnapshot(s));
    session.setSnapshot(cache.snapshot);
    const req = (resourceNames: string[], nonce = '', versionInfo = '') =>
      session.handleRequest({ node, typeUrl: TypeUrl.clusterLoadAssignment, resourceNames, responseNonce: nonce, versionInfo });
    req(['a', 'later']);
    const first = responses.splice(0);
    t.is(first.length, 1);
    t.is(first[0]!.resources.length, 1);
    req(['a', 'later'], first[0]!.nonce, first[0]!.versionInfo);
    t.is(responses.length, 0);
    cache.patch('clusterLoadAssignment', [endpoints('later', 2)]);
    const second = responses.splice(0);
    t.is(second.length, 1);
    t.is(second[0]!.resources.length, 2);
    req(['a', 'later'], second[0]!.nonce, second[0]!.versionInfo);
    cache.patch('clusterLoadAssignment', [endpoints('other', 3)]);
    t.is(responses.length, 0, 'a change of an unsubscribed name sends nothing');
  });
  t.deepEqual(failures, []);
});

// Random sequences of snapshot changes and Envoy answers on one delta EDS stream (reconnects included): the
// incremental state must always equal a recomputation, and once Envoy has ACKed everything it must hold exactly
// the current version of every subscribed resource, except versions (or removals) it rejected: those are not resent.
const pool = ['a', 'b', 'c', 'd', 'e'];
const nameArb = fc.constantFrom(...pool);
const opArb = fc.oneof(
  fc.record({ op: fc.constant('patch' as const), name: nameArb, port: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ op: fc.constant('remove' as const), name: nameArb }),
  fc.record({ op: fc.constant('update' as const), keep: fc.subarray(pool), port: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ op: fc.constant('ack' as const) }),
  fc.record({ op: fc.constant('nack' as const) }),
  fc.record({ op: fc.constant('subscribe' as const), name: nameArb }),
  fc.record({ op: fc.constant('unsubscribe' as const), name: nameArb }),
  fc.record({ op: fc.constant('reconnect' as const) }),
  fc.record({ op: fc.constant('other-type' as const), port: fc.integer({ min: 1, max: 4 }) }),
);

test('delta EDS: random changes, ACKs, NACKs, subscriptions and reconnects agree with recomputation', (t) => {
  // node:assert inside the property, so fast-check sees a failure, shrinks it and reports the smallest sequence.
  t.notThrows(() => fc.assert(
    fc.property(fc.array(opArb, { maxLength: 40 }), fc.subarray(pool, { minLength: 1 }), (ops, initialNames) => {
      const before = xdsSelfCheck.failures.length;
      const cache = new SnapshotCache();
      cache.update({ clusterLoadAssignment: pool.slice(0, 3).map((n) => endpoints(n, 1)), listener: [] });
      let envoy = new DeltaEnvoy(cache, 'clusterLoadAssignment');
      const subscribed = new Set(initialNames);
      /** Per name, every version (or 'removal') Envoy rejected: none of them is sent to it again. */
      const rejected = new Map<string, Set<string>>();
      const reject = (name: string, what: string) => rejected.set(name, (rejected.get(name) ?? new Set()).add(what));
      envoy.request({ subscribe: [...subscribed] });
      for (const o of ops) {
        switch (o.op) {
          case 'patch':
            cache.patch('clusterLoadAssignment', [endpoints(o.name, o.port)]);
            break;
          case 'remove':
            cache.patch('clusterLoadAssignment', [], [o.name]);
            break;
          case 'update':
            cache.update({ clusterLoadAssignment: o.keep.map((n) => endpoints(n, o.port)) });
            break;
          case 'ack': {
            const res = envoy.responses.shift();
            if (res) envoy.ack(res);
            break;
          }
          case 'nack': {
            const res = envoy.responses.shift();
            if (res) {
              for (const r of res.resources) reject(r.name, r.version);
              for (const n of res.removedResources) reject(n, 'removal');
              envoy.nack(res);
            }
            break;
          }
          case 'subscribe':
            subscribed.add(o.name);
            envoy.request({ subscribe: [o.name] });
            break;
          case 'unsubscribe':
            subscribed.delete(o.name);
            envoy.has.delete(o.name);
            envoy.request({ unsubscribe: [o.name] });
            break;
          case 'reconnect': {
            envoy.session.close();
            const has = envoy.has;
            envoy = new DeltaEnvoy(cache, 'clusterLoadAssignment');
            for (const [n, v] of has) envoy.has.set(n, v);
            rejected.clear();
            envoy.request({ subscribe: [...subscribed], initial: Object.fromEntries(has) });
            break;
          }
          case 'other-type':
            cache.update({ listener: [] });
            cache.patch('cluster', [cluster('x', `${o.port}s`)]);
            break;
        }
      }
      // Drain: Envoy ACKs whatever comes until nothing does.
      for (let i = 0; i < 20 && envoy.responses.length > 0; i++) envoy.ack(envoy.responses.shift()!);
      assert.equal(envoy.responses.length, 0);
      for (const name of pool) {
        const current = subscribed.has(name) ? version(cache, name) : undefined;
        const held = envoy.has.get(name);
        if (current === undefined) {
          if (held !== undefined) assert.ok(rejected.get(name)?.has('removal'), `${name} was removed, or its removal rejected`);
        } else if (held !== current) assert.ok(rejected.get(name)?.has(current), `${name} is current or its current version was rejected`);
      }
      assert.deepEqual(xdsSelfCheck.failures.slice(before), []);
    }),
    { numRuns: 300, seed: 5 },
  ));
});
