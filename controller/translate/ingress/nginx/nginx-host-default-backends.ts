// spec.defaultBackend as ingress-nginx scopes it (controller.go createServers), for Ingresses read with the nginx
// annotations: an Ingress without rules gives the catch-all server's backend (hosts no rule names); an Ingress
// with rules gives its default backend only to the hosts it is the oldest to name (the server it creates answers
// whatever no path of that host matches with it), never to other hosts; and a host whose oldest Ingress has no
// default backend answers 404 for unmatched paths, whatever default backend another Ingress has
// (test/e2e/ingress/without_host.go, kubernetes/ingress-nginx#8823). Ingresses of classes without the nginx layer
// keep the Ingress-spec reading: the oldest default backend answers on every host (default-backend.ts).
import type { ClusterIR, RouteIR } from '../../../../ir/index.js';
import { type ServiceIndex, resolveBackend } from '../../shared/backend.js';
import { defaultBackendRouteName } from '../default-backend.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refOf } from '../../shared/kube-objects.js';

/** Whether the Ingress's default backend is scoped to its own hosts (nginx layer on, and it has rules). */
export function hasHostScopedDefaultBackend(ingress: Ingress, nginxEnabled: (ingress: Ingress) => boolean): boolean {
  return ingress.spec?.defaultBackend !== undefined && (ingress.spec.rules ?? []).length > 0 && nginxEnabled(ingress);
}

/** The default backend routes of the Ingresses whose default backend is host-scoped (resolved once each). */
export function hostScopedDefaultBackends(
  ingresses: readonly Ingress[],
  nginxEnabled: (ingress: Ingress) => boolean,
  services: ServiceIndex,
  clusters: Map<string, ClusterIR>,
  diagnostics: Diagnostic[],
  allowExternalName: boolean,
): Map<Ingress, RouteIR> {
  const routes = new Map<Ingress, RouteIR>();
  for (const ingress of ingresses) {
    const backend = ingress.spec?.defaultBackend;
    if (backend === undefined || !hasHostScopedDefaultBackend(ingress, nginxEnabled)) continue;
    const ref = refOf(ingress);
    const resolved = resolveBackend(ingress, backend, services, 'default backend', diagnostics, allowExternalName);
    if (resolved.cluster !== undefined) clusters.set(resolved.cluster.name, resolved.cluster);
    routes.set(ingress, { name: defaultBackendRouteName(ref), match: { kind: 'prefix', path: '/' }, action: resolved.action, source: ref });
  }
  return routes;
}

/**
 * The last route of a host's virtual host: for a host whose oldest Ingress (`contributors[0]`) is read with the
 * nginx annotations, that Ingress's own default backend, or none (`undefined`: the 404 page); otherwise `global`.
 */
export function hostFallback(
  contributors: readonly Ingress[] | undefined,
  nginxEnabled: (ingress: Ingress) => boolean,
  scoped: ReadonlyMap<Ingress, RouteIR>,
  global: RouteIR | undefined,
): RouteIR | undefined {
  const owner = contributors?.[0];
  if (owner === undefined || !nginxEnabled(owner)) return global;
  return scoped.get(owner);
}
