import type { ClusterEndpointsIR, ClusterIR, FallbackClusterIR, GatewayIR, RouteTableIR } from '../ir/index.js';
import type { AccessLogOptions } from './access-log.js';
import { builtForSameKey, builtOnce } from './built-once.js';
import { buildRouteConfiguredHttpFilters } from './http-filters.js';
import { buildCluster } from './cluster.js';
import { buildClusterLoadAssignment } from './cluster-load-assignment.js';
import { defaultEdgeHardening, withListenerSettings } from './edge-hardening.js';
import { listenerRouteNeeds } from './listener-route-needs.js';
import { buildFallbackCluster } from './fallback-cluster.js';
import { buildHttpListener, buildHttpsListener, type HttpsListenerOptions, httpListenerName, httpsListenerName, type ListenerOptions, type ServedRoutes } from './listener.js';
import type { EnvoyOptions, EnvoyResources, NamedResource, ResourceJson } from './resource-types.js';
import { notFoundReplyOf } from './not-found-reply.js';
import { buildRouteConfiguration, routeConfigurationName } from './route-configuration.js';
import { buildSecret } from './secret.js';

/** One memo per buffer limit (a setting, so one or two values in a process's life). */
const clusterBuilders = new Map<number, (cluster: ClusterIR) => ResourceJson>();
function clusterOf(cluster: ClusterIR, bufferLimitBytes: number): ResourceJson {
  let build = clusterBuilders.get(bufferLimitBytes);
  if (build === undefined) {
    build = builtOnce((c: ClusterIR) => buildCluster(c, bufferLimitBytes));
    clusterBuilders.set(bufferLimitBytes, build);
  }
  return build(cluster);
}
const endpointsOf = builtOnce(buildClusterLoadAssignment);
const secretOf = builtOnce(buildSecret);

/** What a listener's HTTP connection managers depend on in the route tables: the filters their routes use. */
function routesKey(routes: ServedRoutes): unknown[] {
  return [routes.routeConfigName, buildRouteConfiguredHttpFilters(routes.tables), routes.notFound ?? null, listenerRouteNeeds(routes.tables)];
}

const httpListenerOf = builtForSameKey(
  ({ routes, listenAddress, port, edge, accessLog }: ListenerOptions) => JSON.stringify([routesKey(routes), listenAddress, port, edge, accessLog]),
  buildHttpListener,
);

const httpsListenerOf = builtForSameKey(
  ({ servers, routes, listenAddress, port, edge, accessLog, passthrough }: HttpsListenerOptions) =>
    JSON.stringify([servers.map((s) => [s.name, s.serverNames, s.secret]), routesKey(routes), listenAddress, port, edge, accessLog, passthrough]),
  buildHttpsListener,
);

function byName(a: NamedResource, b: NamedResource): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function named(name: string, resource: ResourceJson): NamedResource {
  return { name, resource };
}

/**
 * The table TLS connections are served from, if any is terminated. The translator gives every TLS server the
 * same one (a host is served the same whichever certificate the connection came in with).
 */
function tlsRouteTable(ir: GatewayIR): RouteTableIR | undefined {
  const table = ir.tlsServers[0]?.routeTable;
  if (ir.tlsServers.some((server) => server.routeTable !== table)) {
    throw new Error('every TLS server must serve the same route table: both listeners share one RouteConfiguration');
  }
  return table;
}

/**
 * Every Envoy resource for a GatewayIR. Each cluster gets a ClusterLoadAssignment, empty when `endpoints` has
 * none for it, so no cluster waits in warming for endpoints that may never come; endpoints of clusters the IR
 * does not have are ignored (an EDS name must always be a cluster).
 */
export function buildResources(
  ir: GatewayIR,
  endpoints: readonly ClusterEndpointsIR[],
  options: EnvoyOptions,
): EnvoyResources {
  const edge = withListenerSettings(options.edge ?? defaultEdgeHardening, ir.listener);
  const accessLog: AccessLogOptions | false = options.accessLog === false ? false : { logQuery: options.accessLogQuery ?? true };
  const tls = tlsRouteTable(ir);
  // Both listeners use one RouteConfiguration (route-configuration.ts), so the same per-route filters.
  // The 404 page is Envoy's reply when no route matches, not a route in every virtual host (not-found-reply.ts).
  const notFound = notFoundReplyOf(ir);
  const routes: ServedRoutes = { routeConfigName: routeConfigurationName, tables: tls === undefined ? [ir.http] : [ir.http, tls], notFound };
  const serving = { routes, listenAddress: options.listenAddress, edge, accessLog };
  const listeners = [named(httpListenerName, httpListenerOf({ ...serving, port: options.httpPort }))];
  const passthrough = ir.tlsPassthrough ?? [];
  if (ir.tlsServers.length > 0 || passthrough.length > 0) {
    listeners.push(named(httpsListenerName, httpsListenerOf({ ...serving, port: options.httpsPort, servers: ir.tlsServers, passthrough })));
  }
  return {
    listeners: listeners.sort(byName),
    routeConfigurations: [named(routeConfigurationName, buildRouteConfiguration(ir.http, tls, notFound))],
    ...clusterResources(ir.clusters, ir.fallbackClusters, endpoints, edge.perConnectionBufferLimitBytes),
    secrets: ir.secrets.map((secret) => named(secret.name, secretOf(secret))).sort(byName),
  };
}

interface ClusterResources {
  clusters: NamedResource[];
  clusterLoadAssignments: NamedResource[];
}

/** Per cluster list: the other inputs and the lists of the last call with it (a build with the very same gets them). */
const clusterResourcesByList = new WeakMap<
  readonly ClusterIR[],
  { fallbacks: readonly FallbackClusterIR[] | undefined; endpoints: readonly ClusterEndpointsIR[]; bufferLimitBytes: number; built: ClusterResources }
>();

/**
 * The CDS and EDS resources. When the cluster list and the endpoint list are the same arrays as in the last call with
 * that cluster list (a routes build that changed no cluster), the lists of that call are handed back without a walk,
 * so the snapshot cache sees the same lists too (see SnapshotCache.update).
 */
function clusterResources(
  clusters: readonly ClusterIR[],
  fallbacks: readonly FallbackClusterIR[] | undefined,
  endpoints: readonly ClusterEndpointsIR[],
  bufferLimitBytes: number,
): ClusterResources {
  const last = clusterResourcesByList.get(clusters);
  if (last !== undefined && last.fallbacks === fallbacks && last.endpoints === endpoints && last.bufferLimitBytes === bufferLimitBytes) return last.built;
  const endpointsByCluster = new Map(endpoints.map((e) => [e.cluster, e]));
  const built: ClusterResources = {
    clusters: [
      ...clusters.map((cluster) => named(cluster.name, clusterOf(cluster, bufferLimitBytes))),
      // Aggregate clusters (default-backend fallback) have no endpoints of their own: no ClusterLoadAssignment.
      ...(fallbacks ?? []).map((cluster) => named(cluster.name, buildFallbackCluster(cluster))),
    ].sort(byName),
    clusterLoadAssignments: clusters
      .map((cluster) => named(cluster.name, endpointsOf(endpointsByCluster.get(cluster.name) ?? { cluster: cluster.name, endpoints: [] })))
      .sort(byName),
  };
  clusterResourcesByList.set(clusters, { fallbacks, endpoints, bufferLimitBytes, built });
  return built;
}
