// Envoy's edge-proxy best practices for the connection managers we generate, each one switchable (see the
// README's "Security defaults"). Values here are defaults; the CLI maps a flag to every field.
import type { ResourceJson } from './resource-types.js';

/** What Envoy does with `%2F` / `%5C` in a path (HttpConnectionManager.path_with_escaped_slashes_action). */
export type EscapedSlashesAction = 'KEEP_UNCHANGED' | 'REJECT_REQUEST' | 'UNESCAPE_AND_REDIRECT' | 'UNESCAPE_AND_FORWARD';
export const escapedSlashesActions: readonly EscapedSlashesAction[] = [
  'KEEP_UNCHANGED',
  'REJECT_REQUEST',
  'UNESCAPE_AND_REDIRECT',
  'UNESCAPE_AND_FORWARD',
];

export interface EdgeHardeningOptions {
  /** RFC 3986 normalisation: `/a/../b` is matched (and forwarded) as `/b`. */
  normalizePath: boolean;
  /** `//b` is matched (and forwarded) as `/b`. */
  mergeSlashes: boolean;
  escapedSlashesAction: EscapedSlashesAction;
  /** 400 for a request with a header name containing `_` (it could alias a `-` header behind a CGI-like app). */
  rejectHeadersWithUnderscores: boolean;
  /** Use the peer address as the client address (and append it to X-Forwarded-For). */
  useRemoteAddress: boolean;
  /** Proxies in front of Envoy whose X-Forwarded-For entries are trusted (0: none). */
  xffNumTrustedHops: number;
  /** Total size of request headers before Envoy answers 431. */
  maxRequestHeadersKb: number;
  /** Number of request headers before Envoy answers 431. */
  maxHeadersCount: number;
  /** A downstream connection with no active request is closed after this many seconds. */
  idleTimeoutSeconds: number;
  /** A client has this many seconds to send all request headers (slowloris). */
  requestHeadersTimeoutSeconds: number;
}

export const defaultEdgeHardening: EdgeHardeningOptions = {
  normalizePath: true,
  mergeSlashes: true,
  escapedSlashesAction: 'UNESCAPE_AND_REDIRECT',
  rejectHeadersWithUnderscores: true,
  useRemoteAddress: true,
  xffNumTrustedHops: 0,
  maxRequestHeadersKb: 60,
  maxHeadersCount: 100,
  idleTimeoutSeconds: 3600,
  requestHeadersTimeoutSeconds: 10,
};

/** The HttpConnectionManager fields that carry `edge`. */
export function buildEdgeHardeningFields(edge: EdgeHardeningOptions): ResourceJson {
  return {
    use_remote_address: edge.useRemoteAddress,
    xff_num_trusted_hops: edge.xffNumTrustedHops,
    normalize_path: edge.normalizePath,
    merge_slashes: edge.mergeSlashes,
    path_with_escaped_slashes_action: edge.escapedSlashesAction,
    max_request_headers_kb: edge.maxRequestHeadersKb,
    request_headers_timeout: `${edge.requestHeadersTimeoutSeconds}s`,
    common_http_protocol_options: {
      idle_timeout: `${edge.idleTimeoutSeconds}s`,
      max_headers_count: edge.maxHeadersCount,
      headers_with_underscores_action: edge.rejectHeadersWithUnderscores ? 'REJECT_REQUEST' : 'ALLOW',
    },
  };
}
