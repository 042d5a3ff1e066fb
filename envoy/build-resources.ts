import type { ClusterEndpointsIR, ClusterIR, DataPlaneIR, FallbackClusterIR, ListenerIR, RouteTableIR } from '../ir/index.js';
import type { AccessLogOptions } from './access-log.js';
import { builtForSameKey, builtOnce } from './built-once.js';
import { buildRouteConfiguredHttpFilters, routeConfiguredFilterConfigs } from './http-filters.js';
import { buildCluster } from './cluster.js';
import { buildClusterLoadAssignment } from './cluster-load-assignment.js';
import { defaultEdgeHardening, withListenerSettings } from './edge-hardening.js';
import { listenerRouteNeeds } from './listener-route-needs.js';
import { buildFallbackCluster } from './fallback-cluster.js';
import {
  buildHttpListener,
  buildHttpsListener,
  buildTcpListener,
  type HttpsListenerOptions,
  type ListenerOptions,
  type ServedRoutes,
  type TcpListenerOptions,
} from './listener.js';
import type { EnvoyOptions, EnvoyResources, NamedResource, ResourceJson } from './resource-types.js';
import { notFoundReplyOf } from './not-found-reply.js';
import { buildRouteConfiguration } from './route-configuration.js';
import { buildCertificateAuthoritySecret, buildSecret } from './secret.js';

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
const certificateAuthorityOf = builtOnce(buildCertificateAuthoritySecret);

/** What a listener's HTTP connection managers depend on in the route tables: the filters their routes use. */
function routesKey(routes: ServedRoutes): unknown[] {
  return [routes.routeConfigName, buildRouteConfiguredHttpFilters(routes.tables), routes.notFound ?? null, listenerRouteNeeds(routes.tables)];
}

const httpListenerOf = builtForSameKey(
  ({ name, routes, listenAddress, port, edge, accessLog }: ListenerOptions) => JSON.stringify([name, routesKey(routes), listenAddress, port, edge, accessLog]),
  buildHttpListener,
);

const httpsListenerOf = builtForSameKey(
  ({ name, chains, listenAddress, port, edge, accessLog, passthrough, tcpChains }: HttpsListenerOptions) =>
    JSON.stringify([
      name,
      chains.map(({ servers, routes }) => [servers.map((s) => [s.name, s.serverNames, s.secret, s.clientValidation ?? null]), routesKey(routes)]),
      listenAddress,
      port,
      edge,
      accessLog,
      passthrough,
      tcpChains,
    ]),
  buildHttpsListener,
);

const tcpListenerOf = builtForSameKey(
  ({ name, listenAddress, port, edge, tcpChains }: TcpListenerOptions) => JSON.stringify([name, listenAddress, port, edge, tcpChains]),
  buildTcpListener,
);

function byName(a: NamedResource, b: NamedResource): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function named(name: string, resource: ResourceJson): NamedResource {
  return { name, resource };
}

/**
 * A RouteConfiguration and the tables it is made from: the plain-HTTP listener's and the TLS listener's of the
 * listeners naming it (ir/listener.ts `routeConfiguration`), or one table; and the 404 reply its connection managers
 * give when no route matches.
 */
interface ServedConfiguration {
  name: string;
  plain: RouteTableIR | undefined;
  tls: RouteTableIR | undefined;
  routes: ServedRoutes;
}

/** The RouteConfigurations the listeners use, by name. A name is served one plain and one TLS table at most. */
function servedConfigurations(listeners: readonly ListenerIR[]): Map<string, ServedConfiguration> {
  const tables = new Map<string, { plain: RouteTableIR | undefined; tls: RouteTableIR | undefined }>();
  for (const listener of listeners) {
    const table = listener.routeTable;
    if (table === undefined) continue;
    const name = listener.routeConfiguration ?? table.name;
    const entry = tables.get(name) ?? { plain: undefined, tls: undefined };
    const side = listener.protocol === 'HTTP' ? 'plain' : 'tls';
    const other = entry[side];
    if (other !== undefined && other !== table) throw new Error(`RouteConfiguration ${name} is given two ${side === 'plain' ? 'plain-HTTP' : 'TLS'} route tables`);
    entry[side] = table;
    tables.set(name, entry);
  }
  const configurations = new Map<string, ServedConfiguration>();
  for (const [name, { plain, tls }] of tables) {
    const main = (plain ?? tls) as RouteTableIR;
    // The 404 page is Envoy's reply when no route matches, not a route in every virtual host (not-found-reply.ts).
    const notFound = notFoundReplyOf(main);
    const both = plain !== undefined && tls !== undefined && tls !== plain ? [plain, tls] : [main];
    configurations.set(name, { name, plain: plain ?? tls, tls: plain === undefined ? undefined : tls, routes: { routeConfigName: name, tables: both, notFound } });
  }
  return configurations;
}

/**
 * Every Envoy resource for a DataPlaneIR. The IR's listeners become one Envoy listener per address and port (named
 * after the first listener on it; the address is the listener's own or --listen-address): a plaintext one for an HTTP listener, or one with a filter chain per TLS server and per
 * passed-through name for HTTPS and TLS listeners; each route table a RouteConfiguration (two listeners may share one).
 * Each cluster gets a ClusterLoadAssignment, empty when `endpoints` has none for it, so no cluster waits in warming
 * for endpoints that may never come; endpoints of clusters the IR does not have are ignored (an EDS name must always
 * be a cluster).
 */
export function buildResources(
  ir: DataPlaneIR,
  endpoints: readonly ClusterEndpointsIR[],
  options: EnvoyOptions,
): EnvoyResources {
  const baseEdge = options.edge ?? defaultEdgeHardening;
  const accessLog: AccessLogOptions | false = options.accessLog === false ? false : { logQuery: options.accessLogQuery ?? true };
  const configurations = servedConfigurations(ir.listeners);
  const routesOf = (listener: ListenerIR): ServedRoutes => {
    const table = listener.routeTable;
    if (table === undefined) throw new Error(`listener ${listener.name} (${listener.protocol}) has no route table`);
    return (configurations.get(listener.routeConfiguration ?? table.name) as ServedConfiguration).routes;
  };
  const listeners: NamedResource[] = [];
  // Some listener has an HTTP connection manager, whose filters name the ECDS resources.
  let connectionManagers = false;
  for (const onPort of listenersByPort(ir.listeners)) {
    const first = onPort[0] as ListenerIR;
    const edge = withListenerSettings(baseEdge, first.settings);
    const where = { name: first.name, listenAddress: first.address ?? options.listenAddress, port: first.port, edge, accessLog };
    const plain = onPort.filter((listener) => listener.protocol === 'HTTP');
    if (plain.length > 0) {
      // One connection manager per plaintext port: the translators give each port one HTTP listener.
      if (onPort.length > 1) throw new Error(`port ${first.port}: listener ${first.name} is plaintext HTTP, and others share its port: ${onPort.map((l) => l.name).join(', ')}`);
      listeners.push(named(first.name, httpListenerOf({ ...where, routes: routesOf(first) })));
      connectionManagers = true;
      continue;
    }
    const tcpChains = onPort.flatMap((listener) => listener.tcpChains ?? []);
    if (onPort.some((listener) => listener.protocol === 'TCP')) {
      // TCP has no SNI to tell chains apart: the translator gives a TCP port one TCP listener.
      if (onPort.length > 1) throw new Error(`port ${first.port}: listener ${first.name} is TCP, and others share its port: ${onPort.map((l) => l.name).join(', ')}`);
      if (tcpChains.length > 0) listeners.push(named(first.name, tcpListenerOf({ ...where, tcpChains })));
      continue;
    }
    const chains = onPort.filter((listener) => (listener.tlsServers?.length ?? 0) > 0).map((listener) => ({ servers: listener.tlsServers ?? [], routes: routesOf(listener) }));
    const passthrough = onPort.flatMap((listener) => listener.tlsPassthrough ?? []);
    // A TLS port with nothing to serve yet (no route attached) is not opened: Envoy refuses a listener without a chain.
    if (chains.length === 0 && passthrough.length === 0 && tcpChains.length === 0 && onPort.every((l) => l.protocol === 'TLS')) continue;
    listeners.push(named(first.name, httpsListenerOf({ ...where, chains, passthrough, tcpChains })));
    if (chains.some((chain) => chain.servers.length > 0)) connectionManagers = true;
  }
  return {
    listeners: listeners.sort(byName),
    routeConfigurations: [...configurations.values()]
      .map(({ name, plain, tls, routes }) => named(name, buildRouteConfiguration(name, plain as RouteTableIR, tls, routes.notFound)))
      .sort(byName),
    ...clusterResources(ir.clusters, ir.fallbackClusters, endpoints, baseEdge.perConnectionBufferLimitBytes),
    secrets: [
      ...ir.secrets.map((secret) => named(secret.name, secretOf(secret))),
      ...(ir.certificateAuthorities ?? []).map((ca) => named(ca.name, certificateAuthorityOf(ca))),
    ].sort(byName),
    // Only what some listener names: Envoy asks for no other, and the status waits for every served resource to be ACKed.
    extensionConfigs: connectionManagers ? routeConfiguredFilterConfigs : noExtensionConfigs,
  };
}

const noExtensionConfigs: readonly NamedResource[] = [];

/**
 * The IR's listeners grouped by address and port, each group in the IR's order (by name), the groups by their first listener.
 * Port 0 (any free port, in tests) is a port of its own for each listener.
 */
function listenersByPort(listeners: readonly ListenerIR[]): ListenerIR[][] {
  const byPort = new Map<string | ListenerIR, ListenerIR[]>();
  for (const listener of listeners) {
    // A listener with an address of its own (a Gateway's) is a socket of its own even on a shared port number.
    const key = listener.port === 0 ? listener : `${listener.address ?? ''}|${listener.port}`;
    const group = byPort.get(key);
    if (group === undefined) byPort.set(key, [listener]);
    else group.push(listener);
  }
  return [...byPort.values()];
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
