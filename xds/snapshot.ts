import { resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import { hashOf, type XdsResource } from './resource.js';

export type ResourceMap = ReadonlyMap<string, XdsResource>;

/**
 * An immutable set of resources per type, with a version per type that changes only when that type's content
 * changes (a hash of names and resource versions).
 */
export interface Snapshot {
  readonly resources: Readonly<Record<ResourceKind, ResourceMap>>;
  readonly versions: Readonly<Record<ResourceKind, string>>;
}

/** Per map: its type version (snapshot maps are never mutated once published). */
const mapVersions = new WeakMap<ResourceMap, string>();

/**
 * cyrb53's two 32-bit lanes over `name NUL version`. The version is already a content hash: this only has to mix
 * it with the name, and a JS loop over ~60 characters is far cheaper than a crypto call per resource.
 */
function entryDigest(r: XdsResource): readonly [number, number] {
  let d = r.digest;
  if (d === undefined) {
    const text = `${r.name}\u0000${r.version}`;
    let h1 = 0xdeadbeef;
    let h2 = 0x41c6ce57;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    d = [h1 >>> 0, h2 >>> 0];
    r.digest = d;
  }
  return d;
}

/**
 * A hash of the set of (name, version) pairs: the sum of per-entry digests (each 32-bit lane mod 2^32), so no
 * sorting and, with the digests memoised per resource, a type of 10,000 resources costs 10,000 additions.
 */
export function typeVersion(resources: ResourceMap): string {
  const known = mapVersions.get(resources);
  if (known !== undefined) return known;
  let low = 0;
  let high = 0;
  for (const r of resources.values()) {
    const [a, b] = entryDigest(r);
    low = (low + a) >>> 0;
    high = (high + b) >>> 0;
  }
  return remember(resources, low, high);
}

function remember(resources: ResourceMap, low: number, high: number): string {
  const version = hashOf(`${resources.size}:${high.toString(36)}:${low.toString(36)}`);
  mapVersions.set(resources, version);
  mapSums.set(resources, [low, high]);
  return version;
}

/** Per map: the digest sums behind its version, so a patched copy can derive its own from them. */
const mapSums = new WeakMap<ResourceMap, readonly [number, number]>();

/**
 * The version of `patched`, a copy of `base` in which only `changed` names differ (replaced, added or removed):
 * subtracts those names' entries in `base` and adds their entries in `patched` instead of summing all of
 * `patched` again, so an endpoint patch of one resource costs O(1) here even with 10,000 ClusterLoadAssignments.
 */
export function patchedTypeVersion(patched: ResourceMap, base: ResourceMap, changed: ReadonlySet<string>): string {
  const sums = mapSums.get(base);
  if (sums === undefined) return typeVersion(patched);
  let [low, high] = sums;
  for (const name of changed) {
    const old = base.get(name);
    if (old !== undefined) {
      const [a, b] = entryDigest(old);
      low = (low - a) >>> 0;
      high = (high - b) >>> 0;
    }
    const now = patched.get(name);
    if (now !== undefined) {
      const [a, b] = entryDigest(now);
      low = (low + a) >>> 0;
      high = (high + b) >>> 0;
    }
  }
  return remember(patched, low, high);
}

/**
 * Where a type's map stands in the line of maps the cache published for that type, so a stream that computed
 * what it owes against an earlier map re-examines only the names changed since (an endpoint patch of one
 * resource among 10,000 costs one look-up per stream instead of a walk of both maps). Only names are logged,
 * no maps: nothing here keeps an old snapshot alive.
 */
interface Lineage {
  /** Sequence number of the first map whose changes are still logged (its predecessor is the oldest base). */
  first: number;
  /** changes[i]: names added, replaced or removed going from map first + i - 1 to map first + i. */
  changes: ReadonlySet<string>[];
  /** Names held in `changes`, to bound the log. */
  logged: number;
  /** Sequence number of the newest map: only it can be derived from (no forks). */
  head: number;
}

const positions = new WeakMap<ResourceMap, { readonly lineage: Lineage; readonly seq: number }>();
/** The log forgets its oldest entries beyond these; a stream further behind walks its maps in full. */
const maxLoggedChanges = 256;
const maxLoggedNames = 16_384;

/**
 * Records that `map` is `base` with the resources named in `changed` added, replaced or removed (and nothing
 * else). A change too large to be worth logging starts a new line: comparisons across it fall back to a walk.
 */
export function recordDerivation(map: ResourceMap, base: ResourceMap, changed: ReadonlySet<string>): void {
  if (map === base || positions.has(map)) return;
  let from = positions.get(base);
  if (from === undefined) {
    from = { lineage: { first: 1, changes: [], logged: 0, head: 0 }, seq: 0 };
    positions.set(base, from);
  }
  // A fork (base is not the newest of its line) or a change too large to log: `map` starts no line of its own.
  if (from.lineage.head !== from.seq || changed.size > maxLoggedNames / 4) return;
  const lineage = from.lineage;
  lineage.changes.push(changed);
  lineage.logged += changed.size;
  lineage.head = from.seq + 1;
  positions.set(map, { lineage, seq: lineage.head });
  while (lineage.changes.length > maxLoggedChanges || lineage.logged > maxLoggedNames) {
    lineage.logged -= lineage.changes.shift()!.size;
    lineage.first += 1;
  }
}

/**
 * Names whose resource may differ between `from` and a later map `to` of the same type (a superset: a name
 * changed and changed back is included), or undefined when that is not known and both maps must be compared.
 */
export function changedNamesBetween(from: ResourceMap, to: ResourceMap): ReadonlySet<string> | undefined {
  if (from === to) return new Set();
  const a = positions.get(from);
  const b = positions.get(to);
  if (a === undefined || b === undefined || a.lineage !== b.lineage || a.seq > b.seq) return undefined;
  const lineage = a.lineage;
  // changes[i] leads to map first + i; the ones after `from` up to `to` are needed.
  if (a.seq + 1 < lineage.first) return undefined;
  const start = a.seq + 1 - lineage.first;
  const end = b.seq + 1 - lineage.first;
  if (end - start === 1) return lineage.changes[start]!;
  const names = new Set<string>();
  for (let i = start; i < end; i++) for (const n of lineage.changes[i]!) names.add(n);
  return names;
}

export function makeSnapshot(resources: Record<ResourceKind, ResourceMap>, previous?: Snapshot): Snapshot {
  const versions = {} as Record<ResourceKind, string>;
  for (const kind of resourceKinds) {
    const map = resources[kind];
    versions[kind] = previous && previous.resources[kind] === map ? previous.versions[kind] : typeVersion(map);
  }
  return { resources, versions };
}

export function emptyResources(): Record<ResourceKind, ResourceMap> {
  return {
    cluster: new Map(),
    clusterLoadAssignment: new Map(),
    secret: new Map(),
    extensionConfig: new Map(),
    listener: new Map(),
    routeConfiguration: new Map(),
    virtualHost: new Map(),
  };
}

/**
 * Consistency check in the spirit of go-control-plane's: every EDS resource names a cluster, every route
 * configuration is referenced by a listener. Returns human-readable problems (empty when consistent).
 */
export function checkConsistency(snapshot: Snapshot): string[] {
  const problems: string[] = [];
  for (const name of snapshot.resources.clusterLoadAssignment.keys()) {
    if (!snapshot.resources.cluster.has(name)) problems.push(`ClusterLoadAssignment ${name} has no cluster`);
  }
  for (const name of snapshot.resources.cluster.keys()) {
    if (!snapshot.resources.clusterLoadAssignment.has(name)) problems.push(`cluster ${name} has no ClusterLoadAssignment`);
  }
  const listenerText = [...snapshot.resources.listener.values()].map((l) => JSON.stringify(l.json)).join('\n');
  for (const name of snapshot.resources.routeConfiguration.keys()) {
    if (!listenerText.includes(`"route_config_name":${JSON.stringify(name)}`)) {
      problems.push(`route configuration ${name} is not referenced by any listener`);
    }
  }
  return problems;
}
