// Which Services' endpoint objects changed between two cluster states, found by object identity (the store keeps
// unchanged objects as they were): a routes build recomputes the endpoints of those Services only. The endpoint
// kinds are those of the kind table that an `endpoints` build takes (EndpointSlices, Endpoints).
import { kindNames, kindTable, type KindsWithBuild } from '../translate/shared/kinds.js';
import { type EndpointObject, serviceKeyOfEndpointObject } from '../translate/shared/endpoints.js';
import { type ClusterState, objectsOf } from '../translate/shared/kube-objects.js';
import { sameObjects } from '../translate/shared/same-objects.js';

const endpointKinds = kindNames.filter((kind): kind is KindsWithBuild<'endpoints'> => kindTable[kind].build === 'endpoints');

/** `namespace/name` of the Services whose endpoint objects differ between two states (undefined: many). */
export function changedEndpointServices(before: ClusterState, after: ClusterState): Set<string> | undefined {
  const services = new Set<string>();
  for (const kind of endpointKinds) {
    const changed = changedByIdentity<EndpointObject>(objectsOf(before, kind), objectsOf(after, kind));
    if (changed === undefined) return undefined;
    for (const obj of changed) {
      const key = serviceKeyOfEndpointObject(obj);
      if (key !== undefined) services.add(key);
    }
  }
  return services;
}

/** Whether no endpoint object changed between two states. */
export function sameEndpointObjects(before: ClusterState, after: ClusterState): boolean {
  return endpointKinds.every((kind) => sameObjects(objectsOf(before, kind), objectsOf(after, kind)));
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
