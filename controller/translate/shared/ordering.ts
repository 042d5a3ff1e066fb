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
