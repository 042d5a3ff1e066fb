// spec.defaultBackend: the one that answers whatever no rule matches, on every virtual host.
import type { ClusterIR, RouteIR } from '../../../ir/index.js';
import { type ServiceIndex, resolveBackend } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { type Ingress, type ObjectRef, refOf } from '../shared/kube-objects.js';
import { Reason } from '../shared/reasons.js';

export function defaultBackendRouteName(ingress: ObjectRef): string {
  return `ingress/${ingress.namespace}/${ingress.name}/default-backend`;
}

/**
 * Picks the default backend of the oldest Ingress that has one (`ingresses` must be oldest first); the others get
 * DefaultBackendConflict. Returns the catch-everything route for it, or undefined when no Ingress has one.
 * `hostScoped` Ingresses take no part: their default backend serves only their own hosts
 * (nginx/nginx-host-default-backends.ts).
 */
export function selectDefaultBackend(
  ingresses: readonly Ingress[],
  services: ServiceIndex,
  clusters: Map<string, ClusterIR>,
  diagnostics: Diagnostic[],
  allowExternalName = false,
  hostScoped: (ingress: Ingress) => boolean = () => false,
): RouteIR | undefined {
  let winner: RouteIR | undefined;
  for (const ingress of ingresses) {
    const backend = ingress.spec?.defaultBackend;
    if (backend === undefined || hostScoped(ingress)) continue;
    const ref = refOf(ingress);
    if (winner?.source !== undefined) {
      diagnostics.push({
        object: ref,
        severity: 'Warning',
        reason: Reason.DefaultBackendConflict,
        message:
          `default backend ignored: Ingress ${winner.source.namespace}/${winner.source.name} is older and ` +
          'already sets one',
      });
      continue;
    }
    const resolved = resolveBackend(ingress, backend, services, 'default backend', diagnostics, allowExternalName);
    if (resolved.cluster !== undefined) clusters.set(resolved.cluster.name, resolved.cluster);
    winner = {
      name: defaultBackendRouteName(ref),
      match: { kind: 'prefix', path: '/' },
      action: resolved.action,
      source: ref,
    };
  }
  return winner;
}
