import type { ClusterEndpointsIR, GatewayIR, RouteTableIR } from '../controller/translate/ir.js';
import { builtOnce } from './built-once.js';
import { buildCluster } from './cluster.js';
import { buildClusterLoadAssignment } from './cluster-load-assignment.js';
import { buildFallbackCluster } from './fallback-cluster.js';
import { buildHttpListener, buildHttpsListener, httpListenerName, httpsListenerName } from './listener.js';
import type { EnvoyOptions, EnvoyResources, NamedResource, ResourceJson } from './resource-types.js';
import { buildRouteConfiguration } from './route-configuration.js';
import { buildSecret } from './secret.js';

const clusterOf = builtOnce(buildCluster);
const endpointsOf = builtOnce(buildClusterLoadAssignment);
const secretOf = builtOnce(buildSecret);

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
  const listeners = [named(httpListenerName, buildHttpListener(ir.http, options.listenAddress, options.httpPort, options.edge, options.accessLog ?? true))];
  const passthrough = ir.tlsPassthrough ?? [];
  if (ir.tlsServers.length > 0 || passthrough.length > 0) {
    listeners.push(
      named(httpsListenerName, buildHttpsListener(ir.tlsServers, options.listenAddress, options.httpsPort, options.edge, options.accessLog ?? true, passthrough)),
    );
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
