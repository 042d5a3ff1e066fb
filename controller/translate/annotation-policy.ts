// Annotations -> IR: each Ingress's settings go on its own routes and on the clusters those routes use, so two
// Ingresses sharing a host (or a Service) never change each other's behaviour.
import type { ClusterSettings, IngressAnnotations } from './annotations.js';
import type { ClusterIR, RouteIR, RoutePolicyIR, VirtualHostIR } from './ir.js';
import { type ObjectRef, refKey } from './kube-objects.js';
import { cloneRoute } from './virtual-host.js';

/** Parsed annotations by `refKey` of the Ingress. */
export type AnnotationsByIngress = ReadonlyMap<string, IngressAnnotations>;

/** Name of the route that answers plain-HTTP requests for an https-only route. */
export function httpsOnlyRouteName(route: RouteIR): string {
  return `${route.name}/https-only`;
}

function isEmpty(value: object): boolean {
  return Object.keys(value).length === 0;
}

/**
 * A cluster is one Service port; an Ingress that changes how that port is reached (protocol, TLS, balancer) gets
 * its own cluster, named after the base cluster and the settings (`default/web/80~h2c~ring-hash`). Ingresses with
 * the same settings share it, Ingresses with different settings never affect each other, and a Service port
 * used without settings keeps the plain name.
 */
export function clusterVariantName(base: string, settings: ClusterSettings): string {
  const parts: string[] = [];
  if (settings.upstreamTls !== undefined) {
    parts.push(settings.protocol === 'http2' ? 'h2' : 'https');
    if (settings.upstreamTls.sni !== undefined) parts.push(`sni=${settings.upstreamTls.sni}`);
  } else if (settings.protocol === 'http2') {
    parts.push('h2c');
  }
  if (settings.loadBalancer !== undefined) parts.push(settings.loadBalancer);
  return parts.length === 0 ? base : [base, ...parts].join('~');
}

function withSettings(cluster: ClusterIR, settings: ClusterSettings): ClusterIR {
  const variant: ClusterIR = { ...structuredClone(cluster), name: clusterVariantName(cluster.name, settings) };
  if (settings.protocol !== undefined) variant.protocol = settings.protocol;
  if (settings.upstreamTls !== undefined) variant.upstreamTls = { ...settings.upstreamTls };
  if (settings.loadBalancer !== undefined) variant.loadBalancer = settings.loadBalancer;
  return variant;
}

/**
 * Puts each forwarding route's Ingress settings on it: the route policy, and a cluster with the Ingress's cluster
 * settings (added to `clusters`). Routes are the translator's own fresh objects and are changed in place.
 */
export function applyAnnotationPolicies(
  routes: Iterable<RouteIR>,
  annotations: AnnotationsByIngress,
  clusters: Map<string, ClusterIR>,
): void {
  for (const route of routes) {
    if (route.source === undefined || route.action.kind !== 'forward') continue;
    const settings = annotations.get(refKey(route.source));
    if (settings === undefined) continue;
    if (!isEmpty(settings.route)) route.policy = structuredClone(settings.route) as RoutePolicyIR;
    const base = clusters.get(route.action.cluster);
    if (base !== undefined && !isEmpty(settings.cluster)) {
      const variant = withSettings(base, settings.cluster);
      clusters.set(variant.name, variant);
      route.action = { kind: 'forward', cluster: variant.name };
    }
  }
}

/** Whether the route comes from an Ingress with https-only "true". */
export function isHttpsOnlyRoute(route: RouteIR, annotations: AnnotationsByIngress): boolean {
  return route.source !== undefined && annotations.get(refKey(route.source))?.httpsOnly === true;
}

/** The route as served on plain HTTP when its Ingress is https-only: same match, 403. */
export function httpsOnlyRoute(route: RouteIR): RouteIR {
  const denied: RouteIR = {
    name: httpsOnlyRouteName(route),
    match: { ...route.match },
    action: { kind: 'direct', status: 403, body: 'HTTPS required\n', contentType: 'text/plain' },
  };
  if (route.source !== undefined) denied.source = { ...route.source } as ObjectRef;
  return denied;
}

/**
 * The plain-HTTP version of a virtual host: routes of https-only Ingresses answer 403; when `redirect` is given,
 * every other route redirects to https (the routes keep their order, so a longer path of another Ingress still
 * wins over an https-only prefix). Undefined when no route is https-only (the caller keeps its usual vhost).
 */
export function plainHttpVirtualHost(
  vhost: VirtualHostIR,
  annotations: AnnotationsByIngress,
  redirect?: RouteIR,
): VirtualHostIR | undefined {
  if (!vhost.routes.some((route) => isHttpsOnlyRoute(route, annotations))) return undefined;
  const routes = vhost.routes.map((route) => {
    if (isHttpsOnlyRoute(route, annotations)) return httpsOnlyRoute(route);
    if (redirect === undefined) return cloneRoute(route);
    return { name: `${route.name}/https-redirect`, match: { ...route.match }, action: { ...redirect.action } };
  });
  return { name: vhost.name, hostnames: [...vhost.hostnames], routes };
}
