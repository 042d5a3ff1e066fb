import type { RouteTableIR, TlsPassthroughIR, TlsServerIR } from '../ir/index.js';
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

export const httpListenerName = 'ingress_http';
export const httpsListenerName = 'ingress_https';

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

/** A listener: where it accepts connections and what it serves there. */
export interface ListenerOptions extends ServingOptions {
  listenAddress: string;
  port: number;
}

/** The TLS listener: a terminating filter chain per TLS server, and the ssl-passthrough chains. */
export interface HttpsListenerOptions extends ListenerOptions {
  servers: readonly TlsServerIR[];
  passthrough?: readonly TlsPassthroughIR[];
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
  const { listenAddress, port, edge = defaultEdgeHardening } = options;
  return {
    '@type': TypeUrl.listener,
    name: httpListenerName,
    address: buildSocketAddress(listenAddress, port),
    ...bufferLimitField(edge.perConnectionBufferLimitBytes),
    filter_chains: [{ filters: [servingConnectionManager(httpListenerName, options)] }],
  };
}

/** One TLS filter chain, selected by SNI, terminating with the server's certificate and serving `routes`. */
export function buildTlsFilterChain(server: TlsServerIR, serving: ServingOptions): ResourceJson {
  return {
    name: server.name,
    filter_chain_match: { server_names: [...server.serverNames] },
    transport_socket: buildTlsTransportSocket(server.secret),
    filters: [servingConnectionManager(httpsListenerName, serving)],
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
  const { servers, listenAddress, port, edge = defaultEdgeHardening, passthrough = [] } = options;
  return {
    '@type': TypeUrl.listener,
    name: httpsListenerName,
    address: buildSocketAddress(listenAddress, port),
    ...bufferLimitField(edge.perConnectionBufferLimitBytes),
    listener_filters: [{ name: 'envoy.filters.listener.tls_inspector', typed_config: { '@type': tlsInspectorType } }],
    // SNI picks the chain; the translator gives a passthrough host no terminating chain, so names never overlap.
    filter_chains: [...passthrough.map(buildPassthroughFilterChain), ...servers.map((server) => buildTlsFilterChain(server, options))],
  };
}
