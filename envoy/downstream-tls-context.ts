import { buildAdsConfigSource } from './config-source.js';
import type { ResourceJson } from './resource-types.js';

export const downstreamTlsContextType =
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext';

/** ALPN offered to clients: HTTP/2 and HTTP/1.1 where HTTP is served; none where the stream goes on as TCP. */
export type ServedAlpn = 'http' | 'none';

/** A DownstreamTlsContext (as a typed_config) whose certificate comes over SDS, never inline. */
export function buildDownstreamTlsContext(secretName: string, alpn: ServedAlpn = 'http'): ResourceJson {
  return {
    '@type': downstreamTlsContextType,
    common_tls_context: {
      tls_certificate_sds_secret_configs: [{ name: secretName, sds_config: buildAdsConfigSource() }],
      ...(alpn === 'http' ? { alpn_protocols: ['h2', 'http/1.1'] } : {}),
    },
  };
}

/** The TLS transport socket of a filter chain. */
export function buildTlsTransportSocket(secretName: string, alpn: ServedAlpn = 'http'): ResourceJson {
  return { name: 'envoy.transport_sockets.tls', typed_config: buildDownstreamTlsContext(secretName, alpn) };
}
