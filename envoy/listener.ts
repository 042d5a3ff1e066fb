import type { RouteTableIR, TcpChainIR, TlsPassthroughIR, TlsServerIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import { defaultAccessLog, type AccessLogOptions } from './access-log.js';
import { buildSocketAddress } from './address.js';
import { buildTlsTransportSocket } from './downstream-tls-context.js';
import { bufferLimitField, defaultEdgeHardening, type EdgeHardeningOptions } from './edge-hardening.js';
import { buildHttpConnectionManagerFilter } from './http-connection-manager.js';
import { listenerRouteNeeds } from './listener-route-needs.js';
import { buildRouteConfiguredHttpFilters } from './http-filters.js';
import type { NotFoundReply } from './not-found-reply.js';
import type { ResourceJson } from './resource-types.js';
import { buildTcpFilterChain } from './tcp-proxy.js';

const tlsInspectorType = 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector';
const tcpProxyType = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';

/**
 * What a connection manager serves: the RDS name of its RouteConfiguration and the IR tables it was built from
 * (their routes decide which per-route HTTP filters the connection manager carries).
 */
export interface ServedRoutes {
  routeConfigName: string;
  tables: readonly RouteTableIR[];
  /** The reply to a request no route matches (the 404 page the table leaves out); absent: Envoy's empty 404. */
  notFound?: NotFoundReply | undefined;
}

/** What the connection managers of a listener serve, and how. */
export interface ServingOptions {
  routes: ServedRoutes;
  edge?: EdgeHardeningOptions;
  /** false: no access log (--access-log=false). */
  accessLog?: AccessLogOptions | false;
}

/** A listener: its name (also the connection managers' stat prefix), where it accepts connections and what it serves there. */
export interface ListenerOptions extends ServingOptions {
  name: string;
  listenAddress: string;
  port: number;
}

/** TLS servers whose chains serve the same routes (those of one IR listener). */
export interface TlsChains {
  servers: readonly TlsServerIR[];
  routes: ServedRoutes;
}

/** The TLS listener: a terminating filter chain per TLS server, the ssl-passthrough chains, and TCP proxies by SNI. */
export interface HttpsListenerOptions extends Omit<ListenerOptions, 'routes'> {
  chains: readonly TlsChains[];
  passthrough?: readonly TlsPassthroughIR[];
  tcpChains?: readonly TcpChainIR[];
}

/** A TCP listener: its TCP proxy chain (ir/tcp.ts), nothing read before it (a server may speak first). */
export interface TcpListenerOptions extends Omit<ListenerOptions, 'routes' | 'accessLog'> {
  tcpChains: readonly TcpChainIR[];
}

/** The HTTP connection manager of listener `statPrefix` serving `routes` (with the filters their routes need). */
function servingConnectionManager(statPrefix: string, { routes, edge = defaultEdgeHardening, accessLog = defaultAccessLog }: ServingOptions): ResourceJson {
  return buildHttpConnectionManagerFilter({
    statPrefix,
    routeConfigName: routes.routeConfigName,
    edge,
    routeFilters: buildRouteConfiguredHttpFilters(routes.tables),
    accessLog,
    notFound: routes.notFound,
    needs: listenerRouteNeeds(routes.tables),
  });
}

/** The plaintext listener: one filter chain serving `routes`. */
export function buildHttpListener(options: ListenerOptions): ResourceJson {
  const { name, listenAddress, port, edge = defaultEdgeHardening } = options;
  return {
    '@type': TypeUrl.listener,
    name,
    address: buildSocketAddress(listenAddress, port),
    ...bufferLimitField(edge.perConnectionBufferLimitBytes),
    filter_chains: [{ filters: [servingConnectionManager(name, options)] }],
  };
}

/** One TLS filter chain of listener `statPrefix`, selected by SNI, terminating with the server's certificate and serving `routes`. */
export function buildTlsFilterChain(server: TlsServerIR, statPrefix: string, serving: ServingOptions): ResourceJson {
  return {
    name: server.name,
    filter_chain_match: { server_names: [...server.serverNames] },
    transport_socket: buildTlsTransportSocket(server.secret, server.clientValidation),
    filters: [servingConnectionManager(statPrefix, serving)],
  };
}

/**
 * A filter chain that passes the TLS connections of its SNI names, unterminated, to a cluster (ingress-nginx
 * ssl-passthrough). No transport socket: the bytes go through as they are, the backend does the handshake.
 */
export function buildPassthroughFilterChain(server: TlsPassthroughIR): ResourceJson {
  return {
    name: server.name,
    filter_chain_match: { server_names: [...server.serverNames] },
    filters: [{ name: 'envoy.filters.network.tcp_proxy', typed_config: { '@type': tcpProxyType, stat_prefix: server.name, cluster: server.cluster } }],
  };
}

/** The TLS listener; the TLS inspector reads the SNI that selects the filter chain. */
export function buildHttpsListener(options: HttpsListenerOptions): ResourceJson {
  const { name, chains, listenAddress, port, edge = defaultEdgeHardening, accessLog, passthrough = [], tcpChains = [] } = options;
  const serving = (routes: ServedRoutes): ServingOptions => ({ routes, edge, ...(accessLog === undefined ? {} : { accessLog }) });
  return {
    '@type': TypeUrl.listener,
    name,
    address: buildSocketAddress(listenAddress, port),
    ...bufferLimitField(edge.perConnectionBufferLimitBytes),
    listener_filters: [{ name: 'envoy.filters.listener.tls_inspector', typed_config: { '@type': tlsInspectorType } }],
    // SNI picks the chain; the translator gives a passthrough host no terminating chain, so names never overlap.
    filter_chains: [
      ...passthrough.map(buildPassthroughFilterChain),
      ...chains.flatMap(({ servers, routes }) => servers.map((server) => buildTlsFilterChain(server, name, serving(routes)))),
      ...tcpChains.map(buildTcpFilterChain),
    ],
  };
}

/** The TCP listener: no listener filter (a TLS inspector would wait for a client that may never speak first). */
export function buildTcpListener(options: TcpListenerOptions): ResourceJson {
  const { name, listenAddress, port, edge = defaultEdgeHardening, tcpChains } = options;
  return {
    '@type': TypeUrl.listener,
    name,
    address: buildSocketAddress(listenAddress, port),
    ...bufferLimitField(edge.perConnectionBufferLimitBytes),
    filter_chains: tcpChains.map(buildTcpFilterChain),
  };
}
