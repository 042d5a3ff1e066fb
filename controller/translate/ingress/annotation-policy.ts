// Annotations -> IR: each Ingress's settings go on its own routes and on the clusters those routes use, so two
// Ingresses sharing a host (or a Service) never change each other's behaviour.
import type { ClusterIR, RouteIR, RoutePolicyIR, VirtualHostIR } from '../../../ir/index.js';
import type { ClusterSettings, IngressAnnotations } from './annotations.js';
import { changedRoute, type RoutePass } from './collected-routes.js';
import { refKey } from '../shared/kube-objects.js';
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
  if (settings.connectTimeoutMs !== undefined) parts.push(`connect=${settings.connectTimeoutMs}ms`);
  if (settings.maxRequests !== undefined) parts.push(`max-requests=${settings.maxRequests}`);
  return parts.length === 0 ? base : [base, ...parts].join('~');
}

/** A copy of the cluster with the settings, under its variant name. */
export function withSettings(cluster: ClusterIR, settings: ClusterSettings): ClusterIR {
  const variant: ClusterIR = { ...structuredClone(cluster), name: clusterVariantName(cluster.name, settings) };
  if (settings.protocol !== undefined) variant.protocol = settings.protocol;
  if (settings.upstreamTls !== undefined) variant.upstreamTls = { ...settings.upstreamTls };
  if (settings.loadBalancer !== undefined) variant.loadBalancer = settings.loadBalancer;
  if (settings.connectTimeoutMs !== undefined) variant.connectTimeoutMs = settings.connectTimeoutMs;
  if (settings.maxRequests !== undefined) variant.maxRequests = settings.maxRequests;
  return variant;
}

/**
 * Puts each forwarding route's Ingress settings on it: the route policy, and a cluster with the Ingress's cluster
 * settings (added to `clusters`). A route with settings comes back as a new route.
 */
export function annotationPolicyPass(annotations: AnnotationsByIngress, clusters: Map<string, ClusterIR>): RoutePass {
  return (route) => {
    if (route.source === undefined || route.action.kind !== 'forward') return route;
    const settings = annotations.get(refKey(route.source));
    if (settings === undefined) return route;
    let next = route;
    if (!isEmpty(settings.route)) next = changedRoute(next, { policy: structuredClone(settings.route) as RoutePolicyIR });
    const base = clusters.get(route.action.cluster);
    if (base !== undefined && !isEmpty(settings.cluster)) {
      const variant = withSettings(base, settings.cluster);
      clusters.set(variant.name, variant);
      next = changedRoute(next, { action: { kind: 'forward', cluster: variant.name } });
    }
    return next;
  };
}

/** How plain HTTP treats a route: served, redirected to https, or refused (https-only). */
export type PlainHttpTreatment = 'serve' | 'redirect' | 'deny';

function plainHttpTreatment(route: RouteIR, annotations: AnnotationsByIngress, hostRedirects: boolean): PlainHttpTreatment {
  const settings = route.source === undefined ? undefined : annotations.get(refKey(route.source));
  if (settings?.httpsOnly === true) return 'deny';
  if (hostRedirects || settings?.forceSslRedirect === true) return 'redirect';
  return 'serve';
}

/** The route as served on plain HTTP when its Ingress is https-only: same match, 403. */
export function httpsOnlyRoute(route: RouteIR): RouteIR {
  const denied: RouteIR = {
    name: httpsOnlyRouteName(route),
    match: { ...route.match },
    action: { kind: 'direct', status: 403, body: 'HTTPS required\n', contentType: 'text/plain' },
  };
  if (route.source !== undefined) denied.source = { ...route.source };
  return denied;
}

/**
 * The plain-HTTP version of a virtual host when an Ingress on it sets https-only or force-ssl-redirect: routes of
 * https-only Ingresses answer 403; routes of force-ssl-redirect Ingresses, and every route when the host redirects
 * anyway (`hostRedirects`: TLS host with ssl-redirect), redirect with `redirect`'s action; the rest are served.
 * Routes keep their order, so a longer path of another Ingress still wins over a shorter one. Undefined when no
 * route needs it (the caller keeps its usual virtual host).
 */
export function plainHttpVirtualHost(
  vhost: VirtualHostIR,
  annotations: AnnotationsByIngress,
  redirect: RouteIR,
  hostRedirects: boolean,
): VirtualHostIR | undefined {
  const special = (route: RouteIR): boolean => {
    const settings = route.source === undefined ? undefined : annotations.get(refKey(route.source));
    // ingress-nginx CORS answers before the https redirect: such a route needs a redirect of its own.
    return settings?.httpsOnly === true || settings?.forceSslRedirect === true || (hostRedirects && route.policy?.corsResponse !== undefined);
  };
  if (!vhost.routes.some(special)) return undefined;
  const routes = vhost.routes.map((route): RouteIR => {
    switch (plainHttpTreatment(route, annotations, hostRedirects)) {
      case 'deny':
        return httpsOnlyRoute(route);
      case 'redirect': {
        const redirected: RouteIR = { name: `${route.name}/https-redirect`, match: { ...route.match }, action: { ...redirect.action } };
        if (route.headers !== undefined) redirected.headers = route.headers.map((header) => ({ ...header }));
        // nginx's CORS block runs before its https redirect (rewrite phase, before rewrite_by_lua): OPTIONS gets
        // its 204 and the redirect carries the CORS headers.
        const cors = route.policy?.corsResponse;
        if (cors !== undefined) redirected.policy = { corsResponse: structuredClone(cors) };
        return redirected;
      }
      case 'serve':
        return cloneRoute(route);
    }
  });
  return { name: vhost.name, hostnames: [...vhost.hostnames], routes };
}
