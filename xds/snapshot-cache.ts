import { EventEmitter } from 'node:events';
import type { ResourceKind } from '../proto/type-urls.js';
import { makeResource, type XdsResource } from './resource.js';
import { emptyResources, makeSnapshot, type ResourceMap, type Snapshot } from './snapshot.js';

export interface NamedJson {
  name: string;
  resource: Record<string, unknown>;
}

export type SnapshotUpdate = Partial<Record<ResourceKind, readonly NamedJson[]>>;

/**
 * The one snapshot all Envoys are served (an ingress controller gives every Envoy the same config, so there is
 * no per-node snapshot to multiply memory). `update` replaces the resources of the types it names; a resource
 * whose JSON did not change is not re-encoded, and a type whose content did not change keeps its map, its
 * version, and causes no push. Nothing is served before the first update: an empty snapshot is never sent.
 */
export class SnapshotCache extends EventEmitter<{ change: [Snapshot, ResourceKind[]] }> {
  #snapshot: Snapshot = makeSnapshot(emptyResources());
  #ready = false;
  /** Last JSON text per type and name, to skip re-encoding unchanged resources. */
  readonly #jsonText = new Map<ResourceKind, Map<string, string>>();

  get ready(): boolean {
    return this.#ready;
  }

  get snapshot(): Snapshot {
    return this.#snapshot;
  }

  /** Apply an update; returns the kinds whose content changed. Throws (changing nothing) if encoding fails. */
  update(update: SnapshotUpdate): ResourceKind[] {
    const next = { ...this.#snapshot.resources };
    const changed: ResourceKind[] = [];
    const newTexts = new Map<ResourceKind, Map<string, string>>();
    for (const [kind, list] of Object.entries(update) as [ResourceKind, readonly NamedJson[]][]) {
      const previous = this.#snapshot.resources[kind];
      const previousTexts = this.#jsonText.get(kind) ?? new Map<string, string>();
      const texts = new Map<string, string>();
      const map = new Map<string, XdsResource>();
      let differs = list.length !== previous.size;
      for (const { name, resource } of list) {
        const text = JSON.stringify(resource);
        texts.set(name, text);
        const old = previous.get(name);
        if (old && previousTexts.get(name) === text) {
          map.set(name, old);
          continue;
        }
        const made = makeResource(name, resource);
        if (!old || old.version !== made.version) differs = true;
        map.set(name, old && old.version === made.version ? old : made);
      }
      newTexts.set(kind, texts);
      if (differs) {
        next[kind] = sorted(map);
        changed.push(kind);
      }
    }
    for (const [kind, texts] of newTexts) this.#jsonText.set(kind, texts);
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
