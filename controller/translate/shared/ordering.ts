// The "oldest object wins" order Kubernetes controllers use to settle conflicts.
import { compareStrings } from '../../../ir/index.js';
import type { ObjectMeta } from './kube-objects.js';
import { namespaceOf } from './kinds.js';


/** Milliseconds since the epoch, or +Infinity when absent or unparsable (such objects count as newest). */
function creationTime(meta: ObjectMeta): number {
  if (meta.creationTimestamp === undefined) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(meta.creationTimestamp);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

/** Oldest first (metadata.creationTimestamp ascending), then namespace/name so equal timestamps stay stable. */
export function compareByAge(a: { metadata: ObjectMeta }, b: { metadata: ObjectMeta }): number {
  const ta = creationTime(a.metadata);
  const tb = creationTime(b.metadata);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (
    compareStrings(namespaceOf(a.metadata), namespaceOf(b.metadata)) ||
    compareStrings(a.metadata.name, b.metadata.name)
  );
}

/**
 * `items` sorted as by compareByAge on `metaOf(item)` (stably), each item's creation time parsed once: at thousands of
 * objects, parsing timestamps in every comparison costs more than the translation's own work.
 */
export function sortedByAge<T>(items: readonly T[], metaOf: (item: T) => ObjectMeta): T[] {
  const keyed = items.map((item, index) => {
    const meta = metaOf(item);
    return { item, index, time: creationTime(meta), namespace: namespaceOf(meta), name: meta.name };
  });
  keyed.sort((a, b) => (a.time !== b.time ? (a.time < b.time ? -1 : 1) : compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name) || a.index - b.index));
  return keyed.map((k) => k.item);
}

/** `items` sorted (stably) by compareStrings on `keyOf(item)`, each key made once. */
export function sortedByKey<T>(items: readonly T[], keyOf: (item: T) => string): T[] {
  return sortedKeyed(items.map((value) => ({ key: keyOf(value), value })));
}

/** The values of `entries` sorted (stably) by compareStrings on their keys. */
export function sortedKeyed<T>(entries: { key: string; value: T }[]): T[] {
  return entries.sort((a, b) => compareStrings(a.key, b.key)).map((e) => e.value);
}
