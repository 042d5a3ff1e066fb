// Whether a connected Envoy has the current config: for every type, each resource of the snapshot ACKed at
// the snapshot's version (what AppliedTracker waits for, computed on demand for debugging and metrics).
import { resourceKinds, type ResourceKind } from '../proto/type-urls.js';
import type { Snapshot } from './snapshot.js';

export interface KindSync {
  /** Resources of the current snapshot. */
  current: number;
  /** Of those, the ones the Envoy has not ACKed at their current version (first few names). */
  behind: number;
  behindNames: string[];
}

export interface ClientSync {
  inSync: boolean;
  kinds: Record<ResourceKind, KindSync>;
}

export function clientSync(acked: Readonly<Record<ResourceKind, ReadonlyMap<string, string>>>, snapshot: Snapshot): ClientSync {
  const kinds = {} as Record<ResourceKind, KindSync>;
  let inSync = true;
  for (const kind of resourceKinds) {
    const wanted = snapshot.resources[kind];
    const behindNames: string[] = [];
    let behind = 0;
    for (const [name, resource] of wanted) {
      if (acked[kind].get(name) === resource.version) continue;
      behind += 1;
      if (behindNames.length < 5) behindNames.push(name);
    }
    if (behind > 0) inSync = false;
    kinds[kind] = { current: wanted.size, behind, behindNames };
  }
  return { inSync, kinds };
}
