// ingress-nginx service-upstream: the Ingress's backends are reached through their Service's ClusterIP and port
// (kube-proxy balances) instead of its endpoints. Here a cluster variant whose one address is the ClusterIP, which
// Envoy connects to like an ExternalName target (envoy/cluster.ts). A Service without a ClusterIP (headless) keeps
// its endpoints, reported, as ingress-nginx falls back to them.
import type { ClusterIR } from '../../../../ir/index.js';
import { type ServiceIndex, serviceKey } from '../../shared/backend.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, refKey, refOf } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { parseGoBool } from './nginx-canary-values.js';

/** Names (after the prefix) this module reads. */
export const nginxServiceUpstreamAnnotations = ['service-upstream'] as const;

const annotation = `${nginxAnnotationPrefix}service-upstream`;

/** Parsed annotations of an Ingress whose backends are reached through their ClusterIP. */
export interface WithNginxServiceUpstream {
  nginxServiceUpstream?: boolean;
}

/** Whether the Ingress asks for service-upstream ("true" as Go's ParseBool reads it); a bad value is reported. */
export function readNginxServiceUpstream(ingress: Ingress, diagnostics: Diagnostic[]): boolean {
  const value = ingress.metadata.annotations?.[annotation];
  if (value === undefined) return false;
  const parsed = parseGoBool(value);
  if (parsed === undefined) {
    diagnostics.push({ object: refOf(ingress), severity: 'Warning', reason: Reason.InvalidAnnotation, message: `annotation ${annotation} has invalid value ${JSON.stringify(value.slice(0, 100))}; accepted values: "true", "false"; using "false"` });
  }
  return parsed === true;
}

/**
 * Points each forwarding route of a service-upstream Ingress at a cluster variant `<cluster>~service-upstream` whose
 * address is the Service's ClusterIP (added to `clusters`); such a route comes back as a new route.
 */
export function nginxServiceUpstreamPass(
  annotations: ReadonlyMap<string, unknown>,
  clusters: Map<string, ClusterIR>,
  services: ServiceIndex,
  diagnostics: Diagnostic[],
): RoutePass {
  const reported = new Set<string>();
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward' || route.action.split !== undefined) return route;
    if ((annotations.get(refKey(route.source)) as WithNginxServiceUpstream | undefined)?.nginxServiceUpstream !== true) return route;
    const cluster = clusters.get(route.action.cluster);
    // An ExternalName Service is reached by its name already.
    if (cluster === undefined || cluster.externalName !== undefined) return route;
    const service = services.get(serviceKey(cluster.service.namespace, cluster.service.name));
    const clusterIP = service?.spec?.clusterIP;
    if (clusterIP === undefined || clusterIP === '' || clusterIP === 'None') {
      const key = `${refKey(route.source)} ${cluster.service.namespace}/${cluster.service.name}`;
      if (!reported.has(key)) {
        reported.add(key);
        diagnostics.push({
          object: route.source,
          severity: 'Warning',
          reason: Reason.InvalidAnnotation,
          message: `annotation ${annotation}: service ${cluster.service.namespace}/${cluster.service.name} has no ClusterIP; its endpoints are used (as ingress-nginx falls back to them)`,
        });
      }
      return route;
    }
    const variant: ClusterIR = { ...structuredClone(cluster), name: `${cluster.name}~service-upstream`, externalName: clusterIP };
    clusters.set(variant.name, variant);
    return changedRoute(route, { action: { kind: 'forward', cluster: variant.name } });
  };
}
