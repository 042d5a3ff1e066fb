// ingress-nginx default-backend and custom-http-errors.
//
// default-backend `<service>` (a Service of the Ingress's namespace, its first TCP port, as ingress-nginx uses):
// it answers for the Ingress's backends while they have no ready endpoints. Each forwarding route goes to a
// fallback cluster (its own cluster first, the default backend second) that Envoy resolves per request, so the
// switch also happens when endpoints vanish between two builds; a backend that does not resolve at all (Service
// missing) forwards to the default backend straight away.
//
// custom-http-errors "404,503": a response with one of these statuses (from the backend or from Envoy itself) is
// replaced by the default backend's answer to the same request, re-routed inside Envoy to the error-pages virtual
// host with the headers ingress-nginx sends (X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name,
// X-Service-Name, X-Service-Port, X-Request-ID). The default backend is the Ingress's default-backend annotation,
// else the controller-wide default backend (spec.defaultBackend), as ingress-nginx falls back to its global one.
import { type ClusterIR, compareStrings, compareVirtualHosts, type ErrorPagesIR, type FallbackClusterIR, forwardedHostHeader, type RouteIR, type RouteTableIR, type SourceRef, type VirtualHostIR } from '../../../../ir/index.js';
import { type ServiceIndex, isTcpServicePort, resolveBackend, serviceKey } from '../../shared/backend.js';
import { changedRoute, type RoutePass } from '../collected-routes.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import { type Ingress, type IngressBackend, type ObjectRef, refKey, refOf } from '../../shared/kube-objects.js';
import { defaultBackendRouteName } from '../default-backend.js';
import { ruleRouteName } from '../ingress-rules.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { namespaceOf } from '../../shared/kinds.js';

export const defaultBackendAnnotation = `${nginxAnnotationPrefix}default-backend`;
export const customHttpErrorsAnnotation = `${nginxAnnotationPrefix}custom-http-errors`;
export const disableProxyInterceptErrorsAnnotation = `${nginxAnnotationPrefix}disable-proxy-intercept-errors`;

/** Go's strconv.ParseBool, as ingress-nginx reads boolean annotations. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/**
 * Host of the virtual host error requests are re-routed to. `.invalid` is reserved (RFC 2606): no real host, and
 * no Ingress host, can be it. A client naming it reaches only default backends, which answer anyone anyway.
 */
export const errorPagesHost = 'custom-errors.envoy-ingress.invalid';


export function fallbackClusterName(primary: string, fallback: string): string {
  return `${primary}~default-backend=${fallback}`;
}

function errorPagesPath(cluster: string): string {
  return `/${cluster}`;
}

/** What the Ingresses' default-backend / custom-http-errors annotations settled, per Ingress. */
export interface NginxDefaultBackends {
  /** Default backend cluster by Ingress refKey (only those whose annotation resolved). */
  backends: ReadonlyMap<string, string>;
  /** Intercepted statuses by Ingress refKey (only valid annotations). */
  errorStatuses: ReadonlyMap<string, number[]>;
  /** Ingresses (refKey) with disable-proxy-intercept-errors: their backends' own errors are not replaced. */
  backendErrorsPassed: ReadonlySet<string>;
  /** `namespace/name` of every Service a default-backend annotation names, existing or not. */
  services: ReadonlySet<string>;
  /**
   * By route name, the Service (name and port as the Ingress writes them) each route of an Ingress with a default
   * backend names: what ingress-nginx tells the default backend when that Service cannot serve.
   */
  routeServices: ReadonlyMap<string, { name: string; port: string }>;
}

/** A Service name (DNS-1035 label): no namespace, cross-namespace default backends are not part of the API. */
export function isServiceName(value: string): boolean {
  return /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value.trim());
}

/**
 * Reads default-backend and custom-http-errors of the Ingresses for which `enabled` is true, resolving each default
 * backend (its cluster is added to `clusters`) and reporting bad values on the Ingress.
 */
export function readNginxDefaultBackends(
  ingresses: readonly Ingress[],
  enabled: (ingress: Ingress) => boolean,
  services: ServiceIndex,
  clusters: Map<string, ClusterIR>,
  diagnostics: Diagnostic[],
  allowExternalName = false,
): NginxDefaultBackends {
  const backends = new Map<string, string>();
  const errorStatuses = new Map<string, number[]>();
  const referenced = new Set<string>();
  const routeServices = new Map<string, { name: string; port: string }>();
  const backendErrorsPassed = new Set<string>();
  for (const ingress of ingresses) {
    if (!enabled(ingress)) continue;
    const ref = refOf(ingress);
    const warn = (reason: string, message: string): void => {
      diagnostics.push({ object: ref, severity: 'Warning', reason, message });
    };
    const name = ingress.metadata.annotations?.[defaultBackendAnnotation]?.trim();
    if (name !== undefined) {
      // Referenced even when missing: its creation must trigger a rebuild (references.ts).
      if (isServiceName(name)) referenced.add(serviceKey(ref.namespace, name));
      const cluster = resolveDefaultBackend(ingress, name, services, warn, diagnostics, allowExternalName);
      if (cluster !== undefined) {
        clusters.set(cluster.name, cluster);
        backends.set(refKey(ref), cluster.name);
        for (const [route, service] of servicesByRoute(ingress)) routeServices.set(route, service);
      }
    }
    const codes = ingress.metadata.annotations?.[customHttpErrorsAnnotation];
    if (codes !== undefined) {
      // An unreadable value was reported by the nginx layer (checkNginxEdgeValues).
      const statuses = parseStatuses(codes);
      if (statuses !== undefined) errorStatuses.set(refKey(ref), statuses);
    }
    const intercept = ingress.metadata.annotations?.[disableProxyInterceptErrorsAnnotation];
    if (intercept !== undefined && parseGoBool(intercept) === true) backendErrorsPassed.add(refKey(ref));
  }
  return { backends, errorStatuses, services: referenced, routeServices, backendErrorsPassed };
}

/** The Service each route of the Ingress names (rules and spec.defaultBackend), by route name. */
function servicesByRoute(ingress: Ingress): [string, { name: string; port: string }][] {
  const ref = refOf(ingress);
  const of = (backend: IngressBackend | undefined): { name: string; port: string } | undefined => {
    const service = backend?.service;
    if (service === undefined) return undefined;
    return { name: service.name, port: service.port?.number !== undefined ? String(service.port.number) : (service.port?.name ?? '') };
  };
  const entries: [string, { name: string; port: string }][] = [];
  (ingress.spec?.rules ?? []).forEach((rule, r) => {
    (rule.http?.paths ?? []).forEach((path, p) => {
      const service = of(path.backend);
      if (service !== undefined) entries.push([ruleRouteName(ref, r, p), service]);
    });
  });
  const fallback = of(ingress.spec?.defaultBackend);
  if (fallback !== undefined) entries.push([defaultBackendRouteName(ref), fallback]);
  return entries;
}

function resolveDefaultBackend(
  ingress: Ingress,
  name: string,
  services: ServiceIndex,
  warn: (reason: string, message: string) => void,
  diagnostics: Diagnostic[],
  allowExternalName: boolean,
): ClusterIR | undefined {
  if (!isServiceName(name)) return undefined; // reported by the nginx layer (checkNginxEdgeValues)
  const namespace = namespaceOf(ingress.metadata);
  const where = `annotation ${defaultBackendAnnotation}`;
  const service = services.get(serviceKey(namespace, name));
  // ingress-nginx uses the Service's first port.
  const port = service?.spec?.ports?.find(isTcpServicePort)?.port;
  if (service !== undefined && port === undefined) {
    warn(Reason.ServicePortNotFound, `${where}: service ${namespace}/${name} has no TCP port; it is ignored`);
    return undefined;
  }
  const resolved = resolveBackend(ingress, { service: { name, port: { number: port ?? 0 } } }, services, where, diagnostics, allowExternalName);
  return resolved.cluster;
}

/** "404, 503" -> [404, 503]: sorted, without duplicates; undefined when anything is not a status 300-599. */
export function parseStatuses(text: string): number[] | undefined {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.length > 64) return undefined;
  const statuses = new Set<number>();
  for (const part of parts) {
    if (!/^\d{3}$/.test(part)) return undefined;
    const status = Number(part);
    if (status < 300 || status > 599) return undefined;
    statuses.add(status);
  }
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The Ingresses' routes with their default backends (new routes, before they are assembled into virtual hosts):
 * forwarding routes of an Ingress with a default backend go to a fallback cluster (added to `fallbacks`), routes
 * whose backend did not resolve (503) go to the default backend, and forwarding routes of an Ingress with
 * custom-http-errors get error pages. `globalDefaultBackend` is the cluster of spec.defaultBackend, if any.
 */
export function nginxDefaultBackendPass(
  settings: NginxDefaultBackends,
  clusters: ReadonlyMap<string, ClusterIR>,
  globalDefaultBackend: string | undefined,
  diagnostics: Diagnostic[],
  fallbacks: Map<string, FallbackClusterIR>,
): RoutePass | undefined {
  if (settings.backends.size === 0 && settings.errorStatuses.size === 0) return undefined;
  const reported = new Set<string>();
  return (route) => {
    if (route.source === undefined) return route;
    const key = refKey(route.source);
    const backend = settings.backends.get(key);
    const statuses = settings.errorStatuses.get(key);
    if (backend === undefined && statuses === undefined) return route;
    if (route.action.kind === 'direct' && route.action.status === 503 && backend !== undefined) {
      // ingress-nginx proxies such a location to the custom default backend with X-Code 503 and what it was for.
      const service = settings.routeServices.get(route.name);
      const headers = [
        { name: 'X-Namespace', value: route.source.namespace },
        { name: 'X-Ingress-Name', value: route.source.name },
        ...(service === undefined ? [] : [{ name: 'X-Service-Name', value: service.name }, { name: 'X-Service-Port', value: service.port }]),
      ];
      return changedRoute(route, { action: { kind: 'forward', cluster: backend }, policy: { ...route.policy, defaultBackendHeaders: headers, keepClientRequestId: true } });
    }
    if (route.action.kind !== 'forward') return route;
    const primary = route.action.cluster;
    const service = clusters.get(primary)?.service;
    let next = route;
    if (backend !== undefined && primary !== backend) {
      const fallback: FallbackClusterIR = { name: fallbackClusterName(primary, backend), clusters: [primary, backend] };
      fallbacks.set(fallback.name, fallback);
      next = changedRoute(next, { action: { ...route.action, cluster: fallback.name } });
    }
    if (statuses === undefined) return next;
    const pages = backend ?? globalDefaultBackend;
    if (pages === undefined) {
      if (!reported.has(key)) {
        reported.add(key);
        diagnostics.push({
          object: route.source,
          severity: 'Warning',
          reason: Reason.CustomHttpErrorsWithoutBackend,
          message: `annotation ${customHttpErrorsAnnotation} needs a default backend (annotation ${defaultBackendAnnotation} or an Ingress spec.defaultBackend); it is ignored`,
        });
      }
      return next;
    }
    const errorPages = errorPagesFor(route.source, statuses, pages, service);
    // nginx without proxy_intercept_errors: error_page still applies to the errors nginx makes itself.
    if (settings.backendErrorsPassed.has(key)) errorPages.proxyErrorsOnly = true;
    return changedRoute(next, { policy: { ...next.policy, errorPages } });
  };
}

function errorPagesFor(source: SourceRef, statuses: number[], cluster: string, service: ClusterIR['service'] | undefined): ErrorPagesIR {
  const headers = [
    { name: 'X-Namespace', value: source.namespace },
    { name: 'X-Ingress-Name', value: source.name },
  ];
  if (service !== undefined) {
    headers.push({ name: 'X-Service-Name', value: service.name }, { name: 'X-Service-Port', value: String(service.port) });
  }
  return { statuses: [...statuses], host: errorPagesHost, path: errorPagesPath(cluster), headers };
}

/**
 * What the rewritten routes of `tables` need besides DataPlaneIR.clusters: the fallback clusters they forward to,
 * and the error-pages virtual host with one route per default backend used (`tables`: each table -> a new one
 * with it, when there are error pages). Returns the fallback clusters and every cluster they or the error pages
 * name (to be added to the IR's).
 */
export function finishNginxDefaultBackends(
  tables: readonly RouteTableIR[],
  clusters: ReadonlyMap<string, ClusterIR>,
  created: ReadonlyMap<string, FallbackClusterIR>,
): { fallbackClusters: FallbackClusterIR[]; clusters: ClusterIR[]; tables: Map<RouteTableIR, RouteTableIR> } {
  const fallbacks = new Map<string, FallbackClusterIR>();
  const pages = new Set<string>();
  const used = new Map<string, ClusterIR>();
  const use = (name: string): void => {
    const cluster = clusters.get(name);
    if (cluster !== undefined) used.set(name, cluster);
  };
  for (const table of tables) {
    for (const vhost of table.virtualHosts) {
      for (const route of vhost.routes) {
        if (route.policy?.errorPages !== undefined && route.action.kind === 'forward') pages.add(route.policy.errorPages.path.slice(1));
        if (route.action.kind !== 'forward' || fallbacks.has(route.action.cluster)) continue;
        const fallback = created.get(route.action.cluster);
        if (fallback === undefined) continue;
        fallbacks.set(fallback.name, { name: fallback.name, clusters: [...fallback.clusters] });
        fallback.clusters.forEach(use);
      }
    }
  }
  for (const cluster of pages) use(cluster);
  const withPages = new Map<RouteTableIR, RouteTableIR>();
  if (pages.size > 0) {
    const vhost = errorPagesVirtualHost([...pages].sort(compareStrings));
    for (const table of tables) {
      if (table.virtualHosts.some((v) => v.name === vhost.name)) continue;
      withPages.set(table, { ...table, virtualHosts: [...table.virtualHosts, structuredClone(vhost)].sort(compareVirtualHosts) });
    }
  }
  return {
    fallbackClusters: [...fallbacks.values()].sort((a, b) => compareStrings(a.name, b.name)),
    clusters: [...used.values()],
    tables: withPages,
  };
}

/** Error requests arrive with the default backend's cluster as path; the backend gets `/` and the original Host. */
function errorPagesVirtualHost(clusterNames: readonly string[]): VirtualHostIR {
  const routes: RouteIR[] = clusterNames.map((cluster) => ({
    name: `custom-http-errors/${cluster}`,
    match: { kind: 'exact', path: errorPagesPath(cluster) },
    action: { kind: 'forward', cluster },
    // ingress-nginx's error location does `rewrite (.*) / break` and proxies with the client's Host.
    policy: { rewrite: { kind: 'regex', pattern: '^.*$', substitution: '/' }, hostRewriteFromHeader: forwardedHostHeader },
  }));
  routes.push({ name: 'custom-http-errors/not-found', match: { kind: 'prefix', path: '/' }, action: { kind: 'direct', status: 404 } });
  return { name: errorPagesHost, hostnames: [errorPagesHost], routes };
}

/**
 * The cluster a route's requests go to right now: for a default-backend fallback cluster, the first of its
 * clusters with endpoints (what Envoy picks), else the first; any other cluster is itself. For explain and status.
 */
export function clusterServing(
  fallbacks: readonly FallbackClusterIR[] | undefined,
  endpoints: readonly { cluster: string; endpoints: readonly unknown[] }[],
  name: string,
): string {
  const fallback = fallbacks?.find((f) => f.name === name);
  if (fallback === undefined) return name;
  const withEndpoints = fallback.clusters.find((c) => (endpoints.find((e) => e.cluster === c)?.endpoints.length ?? 0) > 0);
  return withEndpoints ?? fallback.clusters[0] ?? name;
}
