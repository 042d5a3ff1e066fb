// Which Services and Secrets the served Ingresses reference: changes to anything else cannot change the
// config, so they do not trigger a build. Pure.
import type { ClusterState, Ingress, IngressBackend, ObjectRef } from './translate/kube-objects.js';
import { refKey, refOf } from './translate/kube-objects.js';

export interface References {
  /** `namespace/name` of every Service a served Ingress points at (present or not). */
  services: Set<string>;
  /** `namespace/name` of every Secret a served Ingress's tls section names (present or not). */
  secrets: Set<string>;
}

function addBackend(into: Set<string>, namespace: string, backend: IngressBackend | undefined): void {
  if (backend?.service?.name) into.add(`${namespace}/${backend.service.name}`);
}

export function referencesOf(state: ClusterState, served: readonly ObjectRef[]): References {
  const servedKeys = new Set(served.map(refKey));
  const refs: References = { services: new Set(), secrets: new Set() };
  for (const ingress of state.ingresses) {
    if (!servedKeys.has(refKey(refOf(ingress)))) continue;
    collect(ingress, refs);
  }
  return refs;
}

function collect(ingress: Ingress, refs: References): void {
  const ns = ingress.metadata.namespace ?? 'default';
  addBackend(refs.services, ns, ingress.spec?.defaultBackend);
  for (const rule of ingress.spec?.rules ?? []) for (const p of rule.http?.paths ?? []) addBackend(refs.services, ns, p.backend);
  for (const tls of ingress.spec?.tls ?? []) if (tls.secretName) refs.secrets.add(`${ns}/${tls.secretName}`);
}
