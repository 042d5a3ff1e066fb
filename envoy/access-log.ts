// Envoy's access log: one JSON object per request on Envoy's stdout (where a container's logs are collected).
import type { ResourceJson } from './resource-types.js';

export const stdoutAccessLogType = 'type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog';
const celFilterType = 'type.googleapis.com/envoy.extensions.access_loggers.filters.cel.v3.ExpressionFilter';

/**
 * The fields of each line (Envoy command operators). A value that is a single operator keeps its type, so
 * `status`, `bytes_*` and `duration_ms` are numbers; `-` stands for "not set" in the string fields.
 */
export const accessLogJsonFormat: Readonly<Record<string, string>> = {
  start_time: '%START_TIME%',
  method: '%REQ(:METHOD)%',
  authority: '%REQ(:AUTHORITY)%',
  path: '%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%',
  protocol: '%PROTOCOL%',
  status: '%RESPONSE_CODE%',
  response_flags: '%RESPONSE_FLAGS%',
  response_code_details: '%RESPONSE_CODE_DETAILS%',
  bytes_received: '%BYTES_RECEIVED%',
  bytes_sent: '%BYTES_SENT%',
  duration_ms: '%DURATION%',
  upstream_service_time_ms: '%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%',
  route_name: '%ROUTE_NAME%',
  upstream_cluster: '%UPSTREAM_CLUSTER%',
  upstream_host: '%UPSTREAM_HOST%',
  downstream_remote_address: '%DOWNSTREAM_REMOTE_ADDRESS%',
  x_forwarded_for: '%REQ(X-FORWARDED-FOR)%',
  user_agent: '%REQ(USER-AGENT)%',
  request_id: '%REQ(X-REQUEST-ID)%',
  tls_sni: '%REQUESTED_SERVER_NAME%',
};

export interface AccessLogOptions {
  /**
   * Log the query string with the path. Off for clusters whose clients put tokens in URLs (`?access_token=`):
   * the `path` field then stops at `?`.
   */
  logQuery: boolean;
}

export const defaultAccessLog: AccessLogOptions = { logQuery: true };

/** The path without its query: Envoy's PATH operator, NQ (no query), original path if rewritten. */
const pathWithoutQuery = '%PATH(NQ:ORIG_OR_PATH)%';

/** Route metadata namespace of a route whose requests are not logged (ingress-nginx enable-access-log "false"). */
export const accessLogOffMetadata = 'envoy-ingress.io/access-log-off';

/**
 * The HttpConnectionManager `access_log` list: JSON lines on stdout. `routeFilter`: some route writes no line, so
 * a CEL filter skips the requests whose route carries `accessLogOffMetadata` (evaluated only while such a route exists).
 */
export function buildStdoutAccessLog(options: AccessLogOptions = defaultAccessLog, routeFilter = false): ResourceJson[] {
  return [
    {
      name: 'envoy.access_loggers.stdout',
      ...(routeFilter
        ? {
            filter: {
              extension_filter: {
                name: 'envoy.access_loggers.extension_filters.cel',
                typed_config: { '@type': celFilterType, expression: `!('${accessLogOffMetadata}' in xds.route_metadata.filter_metadata)` },
              },
            },
          }
        : {}),
      typed_config: {
        '@type': stdoutAccessLogType,
        log_format: { json_format: { ...accessLogJsonFormat, ...(options.logQuery ? {} : { path: pathWithoutQuery }) } },
      },
    },
  ];
}
