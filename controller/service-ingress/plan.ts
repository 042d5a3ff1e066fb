// What the Service-annotation Ingress manager should do for one Service, decided from the Service and the Ingress
// of the same name: create, update or delete the Ingress it owns, leave it alone, or warn. Pure: the manager
// (service-ingress-manager.ts) carries the plan out through the API client (ingress-api.ts).
import type { Diagnostic } from '../translate/shared/diagnostics.js';
import { parseHost } from '../translate/shared/hostname.js';
import type { Ingress, IngressRule, OwnerReference, Service } from '../translate/shared/kube-objects.js';
import { defaultServiceIngressHostTemplate } from './host-template.js';

/** The annotation that asks for an Ingress; only the exact value "true" does. */
export const serviceIngressAnnotation = 'ingress/http';

/** Stable reasons of the warnings this manager reports (Event reasons / metric labels). */
export const ServiceIngressReason = {
  IngressNameTaken: 'IngressNameTaken',
  InvalidGeneratedHost: 'InvalidGeneratedHost',
  ServiceHasNoPorts: 'ServiceHasNoPorts',
  IngressManagementFailed: 'IngressManagementFailed',
} as const;

/** An owner reference as written to the API (the store's type omits blockOwnerDeletion). */
export interface ControllerOwnerReference extends OwnerReference {
  controller: true;
  blockOwnerDeletion: true;
}

export interface ServiceIngressSettings {
  /** spec.ingressClassName of the generated Ingresses (our class). */
  ingressClassName: string;
  /** Host of the generated rule; `{name}` and `{namespace}` are replaced by the Service's. */
  hostTemplate: string;
}

/** What to do for one Service, decided from the Service and the Ingress of the same name. */
export type ServiceIngressPlan =
  | { action: 'create'; ingress: Ingress }
  | { action: 'update'; ingress: Ingress }
  | { action: 'delete'; namespace: string; name: string; uid: string; resourceVersion: string }
  | { action: 'none'; why: 'not-requested' | 'up-to-date' | 'service-absent' }
  | { action: 'conflict'; diagnostic: Diagnostic }
  | { action: 'invalid'; diagnostic: Diagnostic };

export function wantsIngress(service: Service): boolean {
  return service.metadata.annotations?.[serviceIngressAnnotation] === 'true';
}

/** Whether the Ingress's controller reference is this very Service (same uid: not an earlier namesake). */
export function isOwnedBy(ingress: Ingress, service: Service): boolean {
  const uid = service.metadata.uid;
  if (!uid) return false;
  return (ingress.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.uid === uid && ref.kind === 'Service' && ref.apiVersion === 'v1',
  );
}

export function renderHost(template: string, service: Service): string {
  return template
    .replaceAll('{name}', service.metadata.name)
    .replaceAll('{namespace}', service.metadata.namespace ?? 'default');
}

/** Throws unless the template yields valid exact host names (a wildcard would not name one Service). */
export function validateHostTemplate(template: string): void {
  const sample = renderHost(template, { kind: 'Service', metadata: { name: 'svc', namespace: 'ns' } });
  const parsed = parseHost(sample);
  if (!parsed.valid || sample.startsWith('*') || !template.includes('{name}')) {
    throw new Error(
      `Service Ingress host template ${JSON.stringify(template)} must give a DNS name and contain {name} ` +
        `(e.g. ${JSON.stringify(defaultServiceIngressHostTemplate)})`,
    );
  }
}

export function controllerReference(service: Service): ControllerOwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    name: service.metadata.name,
    uid: service.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The spec fields this manager owns; anything else on the Ingress (tls, labels, annotations) is left alone. */
interface ManagedSpec {
  ingressClassName: string;
  rules: IngressRule[];
}

function managedSpec(service: Service, host: string, settings: ServiceIngressSettings): ManagedSpec | undefined {
  const port = service.spec?.ports?.[0];
  if (!port) return undefined;
  return {
    ingressClassName: settings.ingressClassName,
    rules: [
      {
        host,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: service.metadata.name, port: port.name ? { name: port.name } : { number: port.port } } },
            },
          ],
        },
      },
    ],
  };
}

/** Decides what to do for `service` given the Ingress of the same name (if any). Pure. */
export function planServiceIngress(
  service: Service | undefined,
  existing: Ingress | undefined,
  settings: ServiceIngressSettings,
): ServiceIngressPlan {
  // No Service: nothing to create, and an owned Ingress is the garbage collector's to delete.
  if (!service) return { action: 'none', why: 'service-absent' };
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name;
  const object = { kind: 'Service' as const, namespace, name };
  const owned = existing !== undefined && isOwnedBy(existing, service);
  if (!wantsIngress(service)) {
    if (existing && owned) {
      return { action: 'delete', namespace, name, uid: existing.metadata.uid ?? '', resourceVersion: existing.metadata.resourceVersion ?? '' };
    }
    return { action: 'none', why: 'not-requested' };
  }
  if (existing && !owned) {
    return {
      action: 'conflict',
      diagnostic: {
        object,
        severity: 'Warning',
        reason: ServiceIngressReason.IngressNameTaken,
        message: `Ingress ${namespace}/${name} exists and is not controlled by this Service; it is left untouched and no Ingress is generated`,
      },
    };
  }
  const host = renderHost(settings.hostTemplate, service);
  const parsed = parseHost(host);
  if (!parsed.valid) {
    return {
      action: 'invalid',
      diagnostic: { object, severity: 'Warning', reason: ServiceIngressReason.InvalidGeneratedHost, message: parsed.error },
    };
  }
  const spec = managedSpec(service, parsed.host, settings);
  if (!spec) {
    return {
      action: 'invalid',
      diagnostic: {
        object,
        severity: 'Warning',
        reason: ServiceIngressReason.ServiceHasNoPorts,
        message: `Service ${namespace}/${name} has no ports, so no Ingress can route to it`,
      },
    };
  }
  if (!existing) {
    return {
      action: 'create',
      ingress: {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name, namespace, ownerReferences: [controllerReference(service)] },
        spec,
      },
    };
  }
  const current: ManagedSpec = { ingressClassName: existing.spec?.ingressClassName ?? '', rules: existing.spec?.rules ?? [] };
  if (stableJson(current) === stableJson(spec)) return { action: 'none', why: 'up-to-date' };
  // Replace on top of what was read: its resourceVersion makes the write fail if anyone changed it since.
  return { action: 'update', ingress: { ...existing, spec: { ...existing.spec, ...spec } } };
}

/** JSON with object keys sorted, so objects from the API and from code compare by content. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
