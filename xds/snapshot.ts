import { resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import { hash } from 'node:crypto';
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

/** Per resource: a 64-bit digest of its name and version (resources are immutable and shared by snapshots). */
const entryDigests = new WeakMap<XdsResource, bigint>();
/** Per map: its type version (snapshot maps are never mutated once published). */
const mapVersions = new WeakMap<ResourceMap, string>();
const mask64 = (1n << 64n) - 1n;

function entryDigest(r: XdsResource): bigint {
  let d = entryDigests.get(r);
  if (d === undefined) {
    d = (hash('sha256', `${r.name}\u0000${r.version}`, 'buffer') as unknown as Buffer).readBigUInt64BE(0);
    entryDigests.set(r, d);
  }
  return d;
}

/**
 * A hash of the set of (name, version) pairs: the sum of per-entry digests, so no sorting and, with the digests
 * memoised per resource, a type of 10,000 resources costs 10,000 additions instead of a sort and a big string.
 */
export function typeVersion(resources: ResourceMap): string {
  const known = mapVersions.get(resources);
  if (known !== undefined) return known;
  let sum = 0n;
  for (const r of resources.values()) sum = (sum + entryDigest(r)) & mask64;
  const version = hashOf(`${resources.size}:${sum.toString(36)}`);
  mapVersions.set(resources, version);
  return version;
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
