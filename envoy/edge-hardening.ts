// Envoy's edge-proxy best practices for the connection managers we generate, each one switchable (see the
// docs/guides/security.md). Values here are defaults; the CLI maps a flag to every field.
import type { ResourceJson } from './resource-json.js';

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
  /**
   * Bytes Envoy buffers per connection (listeners and clusters) before it stops reading from the other side: a
   * slow reader holds at most this much of Envoy's memory. 0 leaves Envoy's default (1 MiB).
   */
  perConnectionBufferLimitBytes: number;
  /** HTTP/2 streams one client connection may have open at once (Envoy's default: 2^31 - 1). */
  http2MaxConcurrentStreams: number;
  /** HTTP/2 flow-control windows a client gets: per stream and per connection. */
  http2InitialStreamWindowSize: number;
  http2InitialConnectionWindowSize: number;
  /** Envoy writes no Server header of its own (ingress-nginx server-tokens "false": set by the translation). */
  serverHeaderPassThrough?: boolean;
  /** The Host header's port is kept for the backend (ListenerSettingsIR.forwardHostPort: the Gateway API's). */
  forwardHostPort?: boolean;
}

/** `edge` with what the translation decides for the listeners (DataPlaneIR.listener); the same object when nothing. */
export function withListenerSettings(
  edge: EdgeHardeningOptions,
  settings: { serverHeaderPassThrough?: boolean; trustForwardedHeaders?: boolean; forwardHostPort?: boolean } | undefined,
): EdgeHardeningOptions {
  if (settings === undefined) return edge;
  const derived = { ...edge };
  if (settings.serverHeaderPassThrough === true) derived.serverHeaderPassThrough = true;
  if (settings.forwardHostPort === true) derived.forwardHostPort = true;
  // At least the one proxy ingress-nginx trusts with use-forwarded-headers (more if --xff-num-trusted-hops says so).
  if (settings.trustForwardedHeaders === true) derived.xffNumTrustedHops = Math.max(edge.xffNumTrustedHops, 1);
  return derived;
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
  // Envoy's edge-proxy guidance (docs: "Configuring Envoy as an edge proxy").
  perConnectionBufferLimitBytes: 32_768,
  http2MaxConcurrentStreams: 100,
  http2InitialStreamWindowSize: 65_536,
  http2InitialConnectionWindowSize: 1_048_576,
};

/** The listener / cluster field for the per-connection buffer limit (none: Envoy's default). */
export function bufferLimitField(limitBytes: number): ResourceJson {
  return limitBytes > 0 ? { per_connection_buffer_limit_bytes: limitBytes } : {};
}

/** The HttpConnectionManager fields that carry `edge`. */
export function buildEdgeHardeningFields(edge: EdgeHardeningOptions): ResourceJson {
  return {
    ...(edge.serverHeaderPassThrough === true ? { server_header_transformation: 'PASS_THROUGH' } : {}),
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
    http2_protocol_options: {
      max_concurrent_streams: edge.http2MaxConcurrentStreams,
      initial_stream_window_size: edge.http2InitialStreamWindowSize,
      initial_connection_window_size: edge.http2InitialConnectionWindowSize,
    },
  };
}
