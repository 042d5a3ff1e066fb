// What changed between two states, as an incremental translation sees it: the changed Ingresses, Services and
// Secrets by key, and which Ingress versions reach beyond their own hosts (those are never spliced).
import type { Ingress, Secret, Service } from '../shared/kube-objects.js';
import { hasNginxAnnotations } from './host-index.js';

/** At most this many changed Ingresses (and a closure of at most a share of all, incremental-translate.ts) are worth splicing. */
export const maxChanged = 64;

/** Whether an Ingress (version) is served by us, under the new state's classes and options. */
export type Served = (ingress: Ingress | undefined) => ingress is Ingress;

/** Changed objects by key: [before, after], either undefined for an added or deleted one. */
export type Changed<T> = Map<string, [T | undefined, T | undefined]>;

export interface Changes {
  ingresses: Changed<Ingress>;
  services: Changed<Service>;
  secrets: Changed<Secret>;
}

/**
 * Global inputs (the default backend, the default certificate of a TLS entry without hosts) and ingress-nginx
 * features (canaries, fallbacks, passthrough, auth Secrets) reach beyond the Ingress's hosts: not spliced.
 */
export function reachesBeyondHosts(ingress: Ingress): boolean {
  if (ingress.spec?.defaultBackend !== undefined || hasNginxAnnotations(ingress)) return true;
  return (ingress.spec?.tls ?? []).some((entry) => (entry.hosts ?? []).length === 0);
}

export function keyOf(object: { metadata: { name: string; namespace?: string } }): string {
  return `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
}

/** Changed objects by key: [before, after], either undefined for an added or deleted one. */
export function changedObjects<T extends { metadata: { name: string; namespace?: string } }>(before: readonly T[], after: readonly T[]): Changed<T> | undefined {
  const changed: Changed<T> = new Map();
  // The store keeps unchanged objects and their order: walk both lists in step while they agree, from the
  // start and from the end, and compare by key only what lies between.
  let i = 0;
  while (i < before.length && i < after.length && before[i] === after[i]) i++;
  if (i === before.length && i === after.length) return changed;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > i && endAfter > i && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore -= 1;
    endAfter -= 1;
  }
  const old = new Map<string, T>();
  for (let j = i; j < endBefore; j++) old.set(keyOf(before[j]!), before[j]!);
  for (let j = i; j < endAfter; j++) {
    const object = after[j]!;
    const key = keyOf(object);
    const was = old.get(key);
    old.delete(key);
    if (was !== object) changed.set(key, [was, object]);
    if (changed.size > maxChanged) return undefined;
  }
  for (const [key, was] of old) changed.set(key, [was, undefined]);
  return changed.size > maxChanged ? undefined : changed;
}
