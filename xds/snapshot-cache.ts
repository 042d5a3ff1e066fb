import { EventEmitter } from 'node:events';
import { encodeAny } from '../proto/proto-json.js';
import { resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import { LayeredMap } from './layered-map.js';
import { resourceOf, sameBytes, type XdsResource } from './resource.js';
import { emptyResources, makeSnapshot, patchedTypeVersion, recordDerivation, type ResourceMap, type Snapshot } from './snapshot.js';

export interface NamedJson {
  name: string;
  resource: Record<string, unknown>;
}

export type SnapshotUpdate = Partial<Record<ResourceKind, readonly NamedJson[]>>;

/** What the last update or patch cost: resources encoded (not reused) per type, for logs and benchmarks. */
export type EncodeStats = Partial<Record<ResourceKind, number>>;

/**
 * The one snapshot all Envoys are served (an ingress controller gives every Envoy the same config, so there is
 * no per-node snapshot to multiply memory). `update` replaces the resources of the types it names; `patch`
 * changes named resources of one type and leaves the others alone (endpoint updates). A resource given as the
 * very JSON object it was last built from is not encoded again (builders that reuse unchanged parts pass them
 * back as they were; JSON handed to the cache must not be mutated afterwards); any other resource is encoded and
 * compared byte for byte with what is served, and an equal one keeps its object and version. A type whose
 * content did not change keeps its map, its version, and causes no push. Only the encoded bytes are kept.
 * Nothing is served before the first update: an empty snapshot is never sent.
 */
export class SnapshotCache extends EventEmitter<{ change: [Snapshot, ResourceKind[]] }> {
  #snapshot: Snapshot = makeSnapshot(emptyResources());
  #ready = false;
  #lastEncoded: EncodeStats = {};
  /**
   * The list each type's resources were last made from by `update`, until a `patch` changes that type: handed the
   * very same list again (a routes build that changed no cluster gets its CDS and EDS lists back from the builders),
   * the type is unchanged without a look at each resource.
   */
  #appliedLists: Partial<Record<ResourceKind, readonly NamedJson[]>> = {};

  get ready(): boolean {
    return this.#ready;
  }

  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** Resources encoded by the last update or patch (unchanged ones are reused and not counted). */
  get lastEncoded(): EncodeStats {
    return this.#lastEncoded;
  }

  /**
   * Encodes `list` against what type `kind` holds: returns the new map, or undefined when the content is
   * unchanged. `replaceAll`: names missing from `list` are removed; else they are kept (a patch). A map that
   * differs in few names shares the previous one (LayeredMap) instead of being built and sorted anew, so an
   * update that changes one virtual host of 10,000 costs a walk of the list, not a new map.
   */
  #apply(
    kind: ResourceKind,
    list: readonly NamedJson[],
    removals: readonly string[],
    replaceAll: boolean,
    changed: Set<string>,
  ): { map: ResourceMap; patched: boolean } | undefined {
    const previous = this.#snapshot.resources[kind];
    if (previous.size === 0 && replaceAll) return this.#fresh(kind, list, changed);
    // Collect the changes (undefined: removed); the rest is shared.
    const changes = new Map<string, XdsResource | undefined>();
    let kept = 0;
    let encoded = 0;
    for (const named of list) {
      const { name, resource } = named;
      const old = previous.get(name);
      if (old !== undefined) kept += 1;
      if (old !== undefined && old.source === resource) continue;
      const any = encodeAny(named.resource);
      encoded += 1;
      const made = old !== undefined && sameBytes(old.any.value, any.value) ? old : resourceOf(name, any);
      made.source = resource;
      if (made !== old) changes.set(name, made);
    }
    for (const name of removals) if (changes.get(name) !== undefined || previous.has(name)) changes.set(name, undefined);
    if (replaceAll && kept < previous.size) {
      // Some names are gone: find them.
      const names = new Set(list.map((r) => r.name));
      for (const name of previous.keys()) if (!names.has(name)) changes.set(name, undefined);
    }
    this.#lastEncoded[kind] = encoded;
    if (changes.size === 0) return undefined;
    for (const name of changes.keys()) changed.add(name);
    if (replaceAll && changes.size > Math.max(32, previous.size / 8)) {
      // Mostly new: a fresh sorted map.
      const map = new Map<string, XdsResource>();
      for (const { name } of list) {
        const r = changes.has(name) ? changes.get(name) : previous.get(name);
        if (r !== undefined) map.set(name, r);
      }
      return { map: sorted(map), patched: false };
    }
    return { map: LayeredMap.patched(previous, changes), patched: true };
  }

  /** A type that had nothing: every resource is new. */
  #fresh(kind: ResourceKind, list: readonly NamedJson[], changed: Set<string>): { map: ResourceMap; patched: boolean } | undefined {
    const map = new Map<string, XdsResource>();
    for (const named of list) {
      const { name, resource } = named;
      const made = resourceOf(name, encodeAny(named.resource));
      made.source = resource;
      map.set(name, made);
      changed.add(name);
    }
    this.#lastEncoded[kind] = list.length;
    return map.size === 0 ? undefined : { map: sorted(map), patched: false };
  }

  /** Apply an update; returns the kinds whose content changed. Throws (changing nothing) if encoding fails. */
  update(update: SnapshotUpdate): ResourceKind[] {
    this.#lastEncoded = {};
    const next = { ...this.#snapshot.resources };
    const changed: ResourceKind[] = [];
    const lists = Object.entries(update) as [ResourceKind, readonly NamedJson[]][];
    for (const [kind, list] of lists) {
      if (list === this.#appliedLists[kind]) {
        this.#lastEncoded[kind] = 0;
        continue;
      }
      const changedNames = new Set<string>();
      const applied = this.#apply(kind, list, [], true, changedNames);
      if (!applied) continue;
      const previous = this.#snapshot.resources[kind];
      next[kind] = applied.map;
      if (applied.patched) patchedTypeVersion(applied.map, previous, changedNames);
      recordDerivation(applied.map, previous, changedNames);
      changed.push(kind);
    }
    // Only once every type was taken (a list that failed to encode changed nothing).
    for (const [kind, list] of lists) this.#appliedLists[kind] = list;
    return this.#publish(next, changed);
  }

  /**
   * Upsert and remove named resources of one type, keeping the rest (an endpoint update touches only the
   * ClusterLoadAssignments of the Services that changed). Returns the kinds whose content changed.
   */
  patch(kind: ResourceKind, upserts: readonly NamedJson[], removals: readonly string[] = []): ResourceKind[] {
    this.#lastEncoded = {};
    delete this.#appliedLists[kind];
    const changedNames = new Set<string>();
    // In name order however many names were added (see LayeredMap).
    const map = this.#apply(kind, upserts, removals, false, changedNames)?.map;
    if (!map) return this.#publish({ ...this.#snapshot.resources }, []);
    const previous = this.#snapshot.resources[kind];
    patchedTypeVersion(map, previous, changedNames);
    // Streams that computed what they owe against `previous` re-examine only these names.
    recordDerivation(map, previous, changedNames);
    const next = { ...this.#snapshot.resources, [kind]: map };
    return this.#publish(next, [kind]);
  }

  #publish(next: Record<ResourceKind, ResourceMap>, changed: ResourceKind[]): ResourceKind[] {
    const firstUpdate = !this.#ready;
    if (changed.length === 0 && !firstUpdate) return changed;
    this.#snapshot = makeSnapshot(next, this.#snapshot);
    this.#ready = true;
    this.emit('change', this.#snapshot, firstUpdate ? [...resourceKinds] : changed);
    return changed;
  }
}

function sorted(map: ResourceMap): ResourceMap {
  // The builders hand over name-sorted lists: usually nothing to do.
  let previous: string | undefined;
  let inOrder = true;
  for (const name of map.keys()) {
    if (previous !== undefined && previous > name) {
      inOrder = false;
      break;
    }
    previous = name;
  }
  if (inOrder) return map;
  return new Map([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
