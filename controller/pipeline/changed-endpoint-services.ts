// Which Services' endpoint objects changed between two cluster states, found by object identity (the store keeps
// unchanged objects as they were): a routes build recomputes the endpoints of those Services only.
import { serviceKeyOfSlice } from '../translate/shared/endpoints.js';
import type { ClusterState } from '../translate/shared/kube-objects.js';
import { sameObjects } from '../translate/shared/same-objects.js';

/** `namespace/name` of the Services whose EndpointSlices or Endpoints differ between two states (undefined: many). */
export function changedEndpointServices(before: ClusterState, after: ClusterState): Set<string> | undefined {
  const services = new Set<string>();
  const slices = changedByIdentity(before.endpointSlices, after.endpointSlices);
  const legacy = changedByIdentity(before.endpoints, after.endpoints);
  if (slices === undefined || legacy === undefined) return undefined;
  for (const slice of slices) {
    const key = serviceKeyOfSlice(slice);
    if (key !== undefined) services.add(key);
  }
  for (const e of legacy) services.add(`${e.metadata.namespace ?? 'default'}/${e.metadata.name}`);
  return services;
}

/** Objects in one list and not the other (both versions of a changed one), or undefined when there are many. */
function changedByIdentity<T extends object>(before: readonly T[], after: readonly T[]): T[] | undefined {
  if (sameObjects(before, after)) return [];
  const old = new Set(before);
  const out: T[] = [];
  for (const object of after) if (!old.delete(object)) out.push(object);
  out.push(...old);
  return out.length > 256 ? undefined : out;
}
