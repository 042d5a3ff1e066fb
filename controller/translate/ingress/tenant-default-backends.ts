// spec.defaultBackend while hosts are owned by namespaces (host-ownership.ts): a tenant's default backend (the
// oldest of its namespace's Ingresses with rules that set one) answers what no path matches on the hosts its
// namespace owns, never on another tenant's host nor on hosts no rule names. Only Ingresses of --default-backend-namespace give the default backend of every host
// (default-backend.ts); a rule-less tenant Ingress's default backend is reported and ignored.
import type { ClusterIR, RouteIR } from '../../../ir/index.js';
import { type ServiceIndex, resolveBackend } from '../shared/backend.js';
import { defaultBackendRouteName } from './default-backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { type Ingress, refOf } from '../shared/kube-objects.js';
import { Reason } from '../shared/reasons.js';
import { namespaceOf } from '../shared/kinds.js';

/** The Ingress whose tenant default backend answers the hosts of `namespace`, if any. */
export function tenantDefaultOf(defaults: ReadonlyMap<Ingress, RouteIR>, namespace: string): Ingress | undefined {
  for (const ingress of defaults.keys()) if (namespaceOf(ingress.metadata) === namespace) return ingress;
  return undefined;
}

export interface TenantDefaultContext {
  services: ServiceIndex;
  clusters: Map<string, ClusterIR>;
  diagnostics: Diagnostic[];
  allowExternalName: boolean;
}

/** The default backend route of each namespace's oldest `tenant` Ingress (`ingresses` oldest first) that sets one, by Ingress. */
export function tenantDefaultBackends(ingresses: readonly Ingress[], tenant: (ingress: Ingress) => boolean, context: TenantDefaultContext): Map<Ingress, RouteIR> {
  const routes = new Map<Ingress, RouteIR>();
  const byNamespace = new Map<string, Ingress>();
  for (const ingress of ingresses) {
    const backend = ingress.spec?.defaultBackend;
    if (backend === undefined || !tenant(ingress)) continue;
    const ref = refOf(ingress);
    // Holes (rules refused by host ownership) do not count: only rules this Ingress keeps.
    if (!(ingress.spec?.rules ?? []).some(() => true)) {
      context.diagnostics.push({
        object: ref,
        severity: 'Warning',
        reason: Reason.DefaultBackendNotClusterWide,
        message:
          'default backend ignored: this Ingress routes no host of its own, and the default backend of every host comes only from ' +
          'the controller (--default-backend-namespace); a tenant default backend answers the hosts its Ingress routes',
      });
      continue;
    }
    const earlier = byNamespace.get(ref.namespace);
    if (earlier !== undefined) {
      context.diagnostics.push({
        object: ref,
        severity: 'Warning',
        reason: Reason.DefaultBackendConflict,
        message: `default backend ignored: Ingress ${ref.namespace}/${earlier.metadata.name} is older and already sets the default backend of namespace ${ref.namespace}'s hosts`,
      });
      continue;
    }
    byNamespace.set(ref.namespace, ingress);
    const resolved = resolveBackend(ingress, backend, context.services, 'default backend', context.diagnostics, context.allowExternalName);
    if (resolved.cluster !== undefined) context.clusters.set(resolved.cluster.name, resolved.cluster);
    routes.set(ingress, { name: defaultBackendRouteName(ref), match: { kind: 'prefix', path: '/' }, action: resolved.action, source: ref });
  }
  return routes;
}
