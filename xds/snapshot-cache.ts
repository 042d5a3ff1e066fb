import { EventEmitter } from 'node:events';
import type { ResourceKind } from '../proto/type-urls.js';
import { makeResource, RouteConfigurationEncoder, type XdsResource } from './resource.js';
import { emptyResources, makeSnapshot, type ResourceMap, type Snapshot } from './snapshot.js';

export interface NamedJson {
  name: string;
  resource: Record<string, unknown>;
}

export type SnapshotUpdate = Partial<Record<ResourceKind, readonly NamedJson[]>>;

/** What the last update or patch cost: resources encoded (not reused) per type, for logs and benchmarks. */
export type EncodeStats = Partial<Record<ResourceKind, number>> & { virtualHosts?: number };

/**
 * JSON text of a resource, for change detection. A RouteConfiguration is kept as its parts (everything but the
 * virtual hosts, then each virtual host) so a change re-encodes only the virtual hosts that changed.
 */
type ResourceText = string | { rest: string; hosts: string[] };

function textOf(kind: ResourceKind, resource: Record<string, unknown>): ResourceText {
  if (kind !== 'routeConfiguration') return JSON.stringify(resource);
  const { virtual_hosts: hosts, ...rest } = resource;
  return { rest: JSON.stringify(rest), hosts: ((hosts ?? []) as unknown[]).map((h) => JSON.stringify(h)) };
}

function sameText(a: ResourceText | undefined, b: ResourceText): boolean {
  if (a === undefined) return false;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a.rest !== b.rest || a.hosts.length !== b.hosts.length) return false;
  for (let i = 0; i < a.hosts.length; i++) if (a.hosts[i] !== b.hosts[i]) return false;
  return true;
}

/**
 * The one snapshot all Envoys are served (an ingress controller gives every Envoy the same config, so there is
 * no per-node snapshot to multiply memory). `update` replaces the resources of the types it names; `patch`
 * changes named resources of one type and leaves the others alone (endpoint updates). A resource whose JSON did
 * not change is not re-encoded, and a type whose content did not change keeps its map, its version, and causes
 * no push. Nothing is served before the first update: an empty snapshot is never sent.
 */
export class SnapshotCache extends EventEmitter<{ change: [Snapshot, ResourceKind[]] }> {
  #snapshot: Snapshot = makeSnapshot(emptyResources());
  #ready = false;
  /** Last JSON text per type and name, to skip re-encoding unchanged resources. */
  readonly #texts = new Map<ResourceKind, Map<string, ResourceText>>();
  readonly #routes = new RouteConfigurationEncoder();
  #lastEncoded: EncodeStats = {};

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

  #encode(kind: ResourceKind, name: string, resource: Record<string, unknown>, text: ResourceText): XdsResource {
    if (typeof text !== 'string') {
      const made = this.#routes.encode(name, resource, text.hosts);
      this.#lastEncoded.virtualHosts = (this.#lastEncoded.virtualHosts ?? 0) + this.#routes.lastEncodedVirtualHosts;
      return made;
    }
    return makeResource(name, resource);
  }

  /**
   * Encodes `list` against what type `kind` holds: returns the new map and texts, or undefined when the content
   * is unchanged. `replaceAll`: names missing from `list` are removed; else they are kept (a patch).
   */
  #apply(kind: ResourceKind, list: readonly NamedJson[], removals: readonly string[], replaceAll: boolean): { map: Map<string, XdsResource>; texts: Map<string, ResourceText> } | undefined {
    const previous = this.#snapshot.resources[kind];
    const previousTexts = this.#texts.get(kind) ?? new Map<string, ResourceText>();
    const texts = replaceAll ? new Map<string, ResourceText>() : new Map(previousTexts);
    const map = replaceAll ? new Map<string, XdsResource>() : new Map(previous);
    let differs = replaceAll && list.length !== previous.size;
    let encoded = 0;
    for (const { name, resource } of list) {
      const text = textOf(kind, resource);
      texts.set(name, text);
      const old = previous.get(name);
      if (old && sameText(previousTexts.get(name), text)) {
        map.set(name, old);
        continue;
      }
      const made = this.#encode(kind, name, resource, text);
      encoded += 1;
      const same = old !== undefined && old.version === made.version;
      if (!same) differs = true;
      map.set(name, same ? old : made);
    }
    for (const name of removals) {
      if (map.delete(name)) differs = true;
      texts.delete(name);
    }
    this.#lastEncoded[kind] = encoded;
    if (!differs) {
      this.#texts.set(kind, texts);
      return undefined;
    }
    return { map, texts };
  }

  /** Apply an update; returns the kinds whose content changed. Throws (changing nothing) if encoding fails. */
  update(update: SnapshotUpdate): ResourceKind[] {
    this.#lastEncoded = {};
    const next = { ...this.#snapshot.resources };
    const changed: ResourceKind[] = [];
    const newTexts = new Map<ResourceKind, Map<string, ResourceText>>();
    for (const [kind, list] of Object.entries(update) as [ResourceKind, readonly NamedJson[]][]) {
      const applied = this.#apply(kind, list, [], true);
      if (!applied) continue;
      newTexts.set(kind, applied.texts);
      next[kind] = sorted(applied.map);
      changed.push(kind);
    }
    if (update.routeConfiguration) this.#routes.retain(new Set(update.routeConfiguration.map((r) => r.name)));
    return this.#publish(next, changed, newTexts);
  }

  /**
   * Upsert and remove named resources of one type, keeping the rest (an endpoint update touches only the
   * ClusterLoadAssignments of the Services that changed). Returns the kinds whose content changed.
   */
  patch(kind: ResourceKind, upserts: readonly NamedJson[], removals: readonly string[] = []): ResourceKind[] {
    this.#lastEncoded = {};
    const applied = this.#apply(kind, upserts, removals, false);
    if (!applied) return this.#publish({ ...this.#snapshot.resources }, [], new Map());
    const previous = this.#snapshot.resources[kind];
    const added = [...applied.map.keys()].some((name) => !previous.has(name));
    const next = { ...this.#snapshot.resources, [kind]: added ? sorted(applied.map) : applied.map };
    return this.#publish(next, [kind], new Map([[kind, applied.texts]]));
  }

  #publish(next: Record<ResourceKind, ResourceMap>, changed: ResourceKind[], newTexts: Map<ResourceKind, Map<string, ResourceText>>): ResourceKind[] {
    for (const [kind, texts] of newTexts) this.#texts.set(kind, texts);
    const firstUpdate = !this.#ready;
    if (changed.length === 0 && !firstUpdate) return changed;
    this.#snapshot = makeSnapshot(next, this.#snapshot);
    this.#ready = true;
    this.emit('change', this.#snapshot, firstUpdate ? ['cluster', 'clusterLoadAssignment', 'secret', 'listener', 'routeConfiguration'] : changed);
    return changed;
  }
}

function sorted(map: Map<string, XdsResource>): ResourceMap {
  return new Map([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
