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

/** Per resource: a 64-bit digest of its name and version, as two 32-bit halves (resources are immutable). */
const entryDigests = new WeakMap<XdsResource, readonly [number, number]>();
/** Per map: its type version (snapshot maps are never mutated once published). */
const mapVersions = new WeakMap<ResourceMap, string>();

/**
 * cyrb53's two 32-bit lanes over `name NUL version`. The version is already a content hash: this only has to mix
 * it with the name, and a JS loop over ~60 characters is far cheaper than a crypto call per resource.
 */
function entryDigest(r: XdsResource): readonly [number, number] {
  let d = entryDigests.get(r);
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
    entryDigests.set(r, d);
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
 * The version of `patched`, a copy of `base` without `removed` and with `added` (a replaced resource is in both):
 * subtracts and adds those entries' digests instead of summing all of `patched` again, so an endpoint patch of
 * one resource costs O(1) here even with 10,000 ClusterLoadAssignments.
 */
export function patchedTypeVersion(patched: ResourceMap, base: ResourceMap, removed: readonly XdsResource[], added: readonly XdsResource[]): string {
  const sums = mapSums.get(base);
  if (sums === undefined) return typeVersion(patched);
  let [low, high] = sums;
  for (const r of removed) {
    const [a, b] = entryDigest(r);
    low = (low - a) >>> 0;
    high = (high - b) >>> 0;
  }
  for (const r of added) {
    const [a, b] = entryDigest(r);
    low = (low + a) >>> 0;
    high = (high + b) >>> 0;
  }
  return remember(patched, low, high);
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
    listener: new Map(),
    routeConfiguration: new Map(),
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
