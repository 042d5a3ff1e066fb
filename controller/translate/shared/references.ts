// Which Services and Secrets our Ingresses name, so a reconciler can skip rebuilding for events about objects
// nothing refers to (a Service that appears later is referenced already, so its creation is not skipped).
import { compareStrings } from '../../../ir/index.js';
import type { Ingress, IngressBackend } from './kube-objects.js';
import { namespaceOf } from './kinds.js';

export interface References {
  /** `namespace/name` of every Service a backend names, existing or not, sorted. */
  services: string[];
  /** `namespace/name` of every Secret a TLS entry names, existing or not, sorted. */
  secrets: string[];
  /** `namespace/name` of every ConfigMap a BackendTLSPolicy or a Gateway's caCertificateRefs name, existing or not, sorted. */
  configMaps?: string[];
}

export function collectReferences(ingresses: readonly Ingress[]): References {
  const services = new Set<string>();
  const secrets = new Set<string>();
  for (const ingress of ingresses) {
    const namespace = namespaceOf(ingress.metadata);
    const addBackend = (backend: IngressBackend | undefined): void => {
      if (backend?.service !== undefined) services.add(`${namespace}/${backend.service.name}`);
    };
    addBackend(ingress.spec?.defaultBackend);
    // forEach: rules and entries refused by host ownership are holes (host-ownership.ts).
    (ingress.spec?.rules ?? []).forEach((rule) => {
      for (const path of rule.http?.paths ?? []) addBackend(path.backend);
    });
    (ingress.spec?.tls ?? []).forEach((tls) => {
      if (tls.secretName !== undefined && tls.secretName !== '') secrets.add(`${namespace}/${tls.secretName}`);
    });
  }
  return { services: [...services].sort(compareStrings), secrets: [...secrets].sort(compareStrings) };
}
