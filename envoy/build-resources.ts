import type { ClusterEndpointsIR, GatewayIR, RouteTableIR, TlsPassthroughIR, TlsServerIR } from '../controller/translate/ir.js';
import { builtForSameKey, builtOnce } from './built-once.js';
import { buildRouteConfiguredHttpFilters } from './http-filters.js';
import { buildCluster } from './cluster.js';
import { buildClusterLoadAssignment } from './cluster-load-assignment.js';
import { defaultEdgeHardening, type EdgeHardeningOptions } from './edge-hardening.js';
import { buildFallbackCluster } from './fallback-cluster.js';
import { buildHttpListener, buildHttpsListener, httpListenerName, httpsListenerName } from './listener.js';
import type { EnvoyOptions, EnvoyResources, NamedResource, ResourceJson } from './resource-types.js';
import { buildRouteConfiguration } from './route-configuration.js';
import { buildSecret } from './secret.js';

const clusterOf = builtOnce(buildCluster);
const endpointsOf = builtOnce(buildClusterLoadAssignment);
const secretOf = builtOnce(buildSecret);

/** What a listener's HTTP connection managers depend on in a route table: its name and the filters its routes use. */
function tableKey(table: RouteTableIR): unknown[] {
  return [table.name, buildRouteConfiguredHttpFilters(table)];
}

const httpListenerOf = builtForSameKey(
  (table: RouteTableIR, address: string, port: number, edge: EdgeHardeningOptions, accessLog: boolean) =>
    JSON.stringify([tableKey(table), address, port, edge, accessLog]),
  buildHttpListener,
);

const httpsListenerOf = builtForSameKey(
  (servers: readonly TlsServerIR[], address: string, port: number, edge: EdgeHardeningOptions, accessLog: boolean, passthrough: readonly TlsPassthroughIR[]) => {
    const tables = new Map<RouteTableIR, number>();
    const chains = servers.map((s) => {
      if (!tables.has(s.routeTable)) tables.set(s.routeTable, tables.size);
      return [s.name, s.serverNames, s.secret, tables.get(s.routeTable)];
    });
    return JSON.stringify([chains, [...tables.keys()].map(tableKey), address, port, edge, accessLog, passthrough]);
  },
  buildHttpsListener,
);

function byName(a: NamedResource, b: NamedResource): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function named(name: string, resource: ResourceJson): NamedResource {
  return { name, resource };
}

/** Route tables by RDS name; TLS servers may share one, and an RDS name can carry only one table. */
function distinctRouteTables(ir: GatewayIR): RouteTableIR[] {
  const tables = new Map<string, RouteTableIR>();
  for (const table of [ir.http, ...ir.tlsServers.map((server) => server.routeTable)]) {
    if (!tables.has(table.name)) tables.set(table.name, table);
  }
  return [...tables.values()];
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
  const edge = options.edge ?? defaultEdgeHardening;
  const accessLog = options.accessLog ?? true;
  const listeners = [named(httpListenerName, httpListenerOf(ir.http, options.listenAddress, options.httpPort, edge, accessLog))];
  const passthrough = ir.tlsPassthrough ?? [];
  if (ir.tlsServers.length > 0 || passthrough.length > 0) {
    listeners.push(named(httpsListenerName, httpsListenerOf(ir.tlsServers, options.listenAddress, options.httpsPort, edge, accessLog, passthrough)));
  }
  const endpointsByCluster = new Map(endpoints.map((e) => [e.cluster, e]));
  return {
    listeners: listeners.sort(byName),
    routeConfigurations: distinctRouteTables(ir)
      .map((table) => named(table.name, buildRouteConfiguration(table)))
      .sort(byName),
    clusters: [
      ...ir.clusters.map((cluster) => named(cluster.name, clusterOf(cluster))),
      // Aggregate clusters (default-backend fallback) have no endpoints of their own: no ClusterLoadAssignment.
      ...(ir.fallbackClusters ?? []).map((cluster) => named(cluster.name, buildFallbackCluster(cluster))),
    ].sort(byName),
    clusterLoadAssignments: ir.clusters
      .map((cluster) =>
        named(
          cluster.name,
          endpointsOf(endpointsByCluster.get(cluster.name) ?? { cluster: cluster.name, endpoints: [] }),
        ),
      )
      .sort(byName),
    secrets: ir.secrets.map((secret) => named(secret.name, secretOf(secret))).sort(byName),
  };
}
