import { buildStdoutAccessLog, defaultAccessLog, type AccessLogOptions } from './access-log.js';
import { buildAdsConfigSource } from './config-source.js';
import { buildEdgeHardeningFields, defaultEdgeHardening, type EdgeHardeningOptions } from './edge-hardening.js';
import { buildNotFoundLocalReply, type NotFoundReply } from './not-found-reply.js';
import type { ResourceJson } from './resource-types.js';
import type { ListenerRouteNeeds } from './listener-route-needs.js';
import { buildAffinityUpstreamHttpFilters, luaFilterName } from './affinity-cookie.js';

const noNeeds: ListenerRouteNeeds = { keepClientRequestId: false, accessLogFilter: false };

export const httpConnectionManagerType =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const routerType = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';

/** What an HttpConnectionManager serves and how; every field but the names has Envoy's (or our) default. */
export interface HttpConnectionManagerOptions {
  /** Prefix of its statistics: the listener's name. */
  statPrefix: string;
  /** RDS name of the RouteConfiguration it fetches on the ADS stream. */
  routeConfigName: string;
  edge?: EdgeHardeningOptions;
  /** Filters that routes enable per route (see http-filters.ts); the router is always added last. */
  routeFilters?: readonly ResourceJson[];
  /** false: no access log (--access-log=false). */
  accessLog?: AccessLogOptions | false;
  /** The reply to a request no route matches (not-found-reply.ts); absent, Envoy's empty 404. */
  notFound?: NotFoundReply | undefined;
  /** What the routes of its tables need from it (listener-route-needs.ts). */
  needs?: ListenerRouteNeeds;
}

/** An HttpConnectionManager (as a typed_config) that fetches its routes over RDS on the ADS stream. */
export function buildHttpConnectionManager({
  statPrefix,
  routeConfigName,
  edge = defaultEdgeHardening,
  routeFilters = [],
  accessLog = defaultAccessLog,
  notFound,
  needs = noNeeds,
}: HttpConnectionManagerOptions): ResourceJson {
  return {
    '@type': httpConnectionManagerType,
    stat_prefix: statPrefix,
    rds: { route_config_name: routeConfigName, config_source: buildAdsConfigSource() },
    http_filters: [...routeFilters, buildRouterFilter(routeFilters)],
    // Remote address, path normalisation (`/a/../b` and `//b` must match the rules written for `/b`, not slip
    // past them), header limits and timeouts: see edge-hardening.ts.
    ...buildEdgeHardeningFields(edge),
    // A Host header with a port (`foo.example.com:8080`) must still match the virtual host `foo.example.com`: the
    // Ingress listeners strip the port (the backend gets the bare name), the Gateway API's keep it for the backend
    // and their RouteConfigurations ignore it when matching (route-configuration.ts).
    ...(edge.forwardHostPort === true ? {} : { strip_any_host_port: true }),
    // X-Forwarded-Port: the port the client connected to, as ingress-nginx sends its $server_port (a trusted
    // proxy's own X-Forwarded-Port is kept, as with its use-forwarded-headers).
    append_x_forwarded_port: true,
    // One JSON line per request on Envoy's stdout (see access-log.ts); off with --access-log=false.
    ...(accessLog !== false ? { access_log: buildStdoutAccessLog(accessLog, needs.accessLogFilter) } : {}),
    ...(notFound === undefined ? {} : { local_reply_config: buildNotFoundLocalReply(notFound) }),
    // The client's X-Request-ID reaches the backends (listener-route-needs.ts); by default Envoy replaces it.
    ...(needs.keepClientRequestId ? { preserve_external_request_id: true } : {}),
  };
}

/** The router; with the affinity script on some route, it also drops the affinity headers before the backend. */
function buildRouterFilter(routeFilters: readonly ResourceJson[]): ResourceJson {
  const router: ResourceJson = { '@type': routerType };
  if (routeFilters.some((f) => f['name'] === luaFilterName)) router['upstream_http_filters'] = buildAffinityUpstreamHttpFilters();
  return { name: 'envoy.filters.http.router', typed_config: router };
}

/** The network filter wrapping an HttpConnectionManager. */
export function buildHttpConnectionManagerFilter(options: HttpConnectionManagerOptions): ResourceJson {
  return {
    name: 'envoy.filters.network.http_connection_manager',
    typed_config: buildHttpConnectionManager(options),
  };
}
