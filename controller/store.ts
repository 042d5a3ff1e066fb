// The object store: the latest version of every watched object, by kind and namespace/name. Sources write it;
// the reconciler reads consistent snapshots of it. Writes that do not change an object emit nothing. Builds read a
// view of their own (buildState) in which a status write coming back does not replace an object whose status no
// build reads: the incremental builds tell unchanged inputs by identity, and our own status writes (every new
// HTTPRoute's, its Gateway's attachedRoutes) otherwise made the next change a full build.
import { EventEmitter } from 'node:events';
import { isKindName, keyNamespaceOf, kindNames, kindTable, statusNotReadKinds } from './translate/shared/kinds.js';
import type { ClusterState, KubeKind, KubeObject } from './translate/shared/kube-objects.js';

export interface StoreChange {
  kind: KubeKind;
  namespace: string;
  name: string;
  type: 'added' | 'modified' | 'deleted';
  object: KubeObject;
  /** The previous version, for modifications and deletions. */
  previous?: KubeObject;
  /**
   * A modification of the status alone, of a kind whose status no build reads (statusNotReadKinds): our own status
   * writes coming back. It needs no build, and builds go on reading the previous version (buildState).
   */
  statusOnly?: true;
}

/** keyNamespaceOf, and an object's own namespace for a kind the table lacks. */
function namespaceKeyOf(kind: KubeKind, metadata: KubeObject['metadata']): string {
  return isKindName(kind) ? keyNamespaceOf(kind, metadata) : (metadata.namespace ?? '');
}

/** The store's key of an object: its namespace as every layer reads it (kinds.ts), and its name. */
function keyOf(obj: KubeObject): string {
  return `${namespaceKeyOf(obj.kind, obj.metadata)}/${obj.metadata.name}`;
}

/** An object as compared: without the bookkeeping fields that change on every write, and without its status if asked. */
function comparable(o: KubeObject, withoutStatus: boolean): string {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return JSON.stringify({ ...o, metadata: { ...meta, managedFields: undefined }, ...(withoutStatus ? { status: undefined } : {}) });
}

export class ObjectStore extends EventEmitter<{ change: [StoreChange[]] }> {
  readonly #objects = new Map<KubeKind, Map<string, KubeObject>>(kindNames.map((k) => [k, new Map()]));
  /**
   * Per kind, the list `list` returned, until an object of that kind is written: a kind that did not change gives
   * the same array, so builds can tell it unchanged at once and keep what they derived from it.
   */
  readonly #lists = new Map<KubeKind, readonly KubeObject[]>();
  /**
   * Per kind of statusNotReadKinds, by key: the object builds go on reading while the stored one differs from it only
   * in status and bookkeeping (sameForBuilds).
   */
  readonly #seenByBuilds = new Map<KubeKind, Map<string, KubeObject>>();
  /** Per kind, the list `buildList` returned, until an object of that kind changes for builds. */
  readonly #buildLists = new Map<KubeKind, readonly KubeObject[]>();

  /** A kind's objects; a kind the table lacks (an optional kind a test watches) gets its map when first written. */
  #map(kind: KubeKind): Map<string, KubeObject> {
    let map = this.#objects.get(kind);
    if (map === undefined) {
      map = new Map();
      this.#objects.set(kind, map);
    }
    return map;
  }

  get(kind: KubeKind, namespace: string, name: string): KubeObject | undefined {
    return this.#map(kind).get(`${namespace}/${name}`);
  }

  /** Every object of `kind`; the same array while none of them changes (do not modify it). */
  list(kind: KubeKind): readonly KubeObject[] {
    let list = this.#lists.get(kind);
    if (list === undefined) {
      list = [...this.#map(kind).values()];
      this.#lists.set(kind, list);
    }
    return list;
  }

  /**
   * Every object of `kind` as builds read them: as `list`, but an object whose status alone changed (and only for
   * kinds no build reads the status of) is the copy from before that change; the same array while nothing of the kind
   * changed for builds.
   */
  buildList(kind: KubeKind): readonly KubeObject[] {
    let list = this.#buildLists.get(kind);
    if (list === undefined) {
      const seen = this.#seenByBuilds.get(kind);
      list = seen === undefined || seen.size === 0 ? this.list(kind) : this.list(kind).map((o) => seen.get(keyOf(o)) ?? o);
      this.#buildLists.set(kind, list);
    }
    return list;
  }

  /** An object of `kind` changed for builds (added, deleted, or more than its status): builds read it anew. */
  #changedForBuilds(kind: KubeKind, key: string): void {
    this.#lists.delete(kind);
    this.#buildLists.delete(kind);
    this.#seenByBuilds.get(kind)?.delete(key);
  }

  count(kind: KubeKind): number {
    return this.#map(kind).size;
  }

  /** Add or replace one object. */
  upsert(obj: KubeObject): void {
    const change = this.#upsert(obj);
    if (change) this.emit('change', [change]);
  }

  delete(kind: KubeKind, namespace: string, name: string): void {
    const map = this.#map(kind);
    const key = `${namespace}/${name}`;
    const previous = map.get(key);
    if (!previous) return;
    map.delete(key);
    this.#changedForBuilds(kind, key);
    this.emit('change', [{ kind, namespace, name, type: 'deleted', object: previous, previous }]);
  }

  /**
   * Replace every object of the given kinds with `objects` (a relist, or a re-read of a manifest directory):
   * emits one change batch with what was added, modified and deleted.
   */
  replace(replaceKinds: readonly KubeKind[], objects: readonly KubeObject[]): StoreChange[] {
    const changes: StoreChange[] = [];
    const seen = new Map<KubeKind, Set<string>>(replaceKinds.map((k) => [k, new Set()]));
    for (const obj of objects) {
      if (!seen.has(obj.kind)) continue;
      seen.get(obj.kind)!.add(keyOf(obj));
      const change = this.#upsert(obj);
      if (change) changes.push(change);
    }
    for (const kind of replaceKinds) {
      const map = this.#map(kind);
      const keep = seen.get(kind)!;
      for (const [key, previous] of map) {
        if (keep.has(key)) continue;
        map.delete(key);
        this.#changedForBuilds(kind, key);
        changes.push({
          kind,
          namespace: namespaceKeyOf(kind, previous.metadata),
          name: previous.metadata.name,
          type: 'deleted',
          object: previous,
          previous,
        });
      }
    }
    if (changes.length > 0) this.emit('change', changes);
    return changes;
  }

  /**
   * Upsert `objects` and delete `deleted` (by kind, namespace and name) as one change batch: what an edit of some
   * manifest files changed, without handing the store every other object again (replace).
   */
  update(objects: readonly KubeObject[], deleted: readonly KubeObject[]): StoreChange[] {
    const changes: StoreChange[] = [];
    for (const obj of deleted) {
      const map = this.#map(obj.kind);
      const key = keyOf(obj);
      const previous = map.get(key);
      if (previous === undefined) continue;
      map.delete(key);
      this.#changedForBuilds(obj.kind, key);
      changes.push({ kind: obj.kind, namespace: namespaceKeyOf(obj.kind, previous.metadata), name: previous.metadata.name, type: 'deleted', object: previous, previous });
    }
    for (const obj of objects) {
      const change = this.#upsert(obj);
      if (change) changes.push(change);
    }
    if (changes.length > 0) this.emit('change', changes);
    return changes;
  }

  #upsert(obj: KubeObject): StoreChange | undefined {
    const map = this.#map(obj.kind);
    const key = keyOf(obj);
    const previous = map.get(key);
    // The same object again (a re-read of an unchanged manifest file): nothing to compare.
    if (previous === obj) return undefined;
    // A new object either way (the latest resourceVersion is kept): the kind's list is made again; builds go on
    // reading the copy they saw while nothing but the status and bookkeeping changed.
    this.#lists.delete(obj.kind);
    const statusNotRead = previous !== undefined && statusNotReadKinds.has(obj.kind);
    const sameForBuilds = statusNotRead && comparable(previous, true) === comparable(obj, true);
    if (sameForBuilds) {
      let seen = this.#seenByBuilds.get(obj.kind);
      if (seen === undefined) {
        seen = new Map();
        this.#seenByBuilds.set(obj.kind, seen);
      }
      if (!seen.has(key)) seen.set(key, previous);
    } else {
      this.#changedForBuilds(obj.kind, key);
    }
    // Unchanged but for bookkeeping: kept (the latest resourceVersion), and no change to tell. (An object whose
    // spec or metadata changed, found above, is not compared again.)
    if (previous !== undefined && (sameForBuilds || !statusNotRead) && comparable(previous, false) === comparable(obj, false)) {
      map.set(key, obj);
      return undefined;
    }
    map.set(key, obj);
    const change: StoreChange = {
      kind: obj.kind,
      namespace: namespaceKeyOf(obj.kind, obj.metadata),
      name: obj.metadata.name,
      type: previous ? 'modified' : 'added',
      object: obj,
    };
    if (previous) change.previous = previous;
    if (sameForBuilds) change.statusOnly = true;
    return change;
  }

  /**
   * A consistent view for the translator. Arrays and objects are shared and must not be mutated; a kind with no
   * write since the last view has the same array.
   */
  state(): ClusterState {
    // One list per kind of the table, under its field (an optional kind's too: empty is the same as absent).
    const state: Record<string, readonly KubeObject[]> = {};
    for (const kind of kindNames) state[kindTable[kind].state] = this.list(kind);
    return state as unknown as ClusterState;
  }

  /**
   * The view builds translate (buildList per kind): as `state`, but with the copy of an object builds saw before its
   * status alone changed. Anything that reads a status, or writes with a resourceVersion, reads `state`/`get`.
   */
  buildState(): ClusterState {
    const state: Record<string, readonly KubeObject[]> = {};
    for (const kind of kindNames) state[kindTable[kind].state] = this.buildList(kind);
    return state as unknown as ClusterState;
  }
}
