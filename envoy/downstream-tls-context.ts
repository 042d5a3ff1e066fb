import type { ClientValidationIR } from '../ir/index.js';
import { buildAdsConfigSource } from './config-source.js';
import type { ResourceJson } from './resource-types.js';

export const downstreamTlsContextType =
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext';

/** ALPN offered to clients: HTTP/2 and HTTP/1.1 where HTTP is served; none where the stream goes on as TCP. */
export type ServedAlpn = 'http' | 'none';

/**
 * A DownstreamTlsContext (as a typed_config) whose certificate comes over SDS, never inline; with client
 * validation, the trusted CAs come over SDS too, combined with the chain's own settings (one CA Secret may serve
 * hosts with different modes and depths).
 */
export function buildDownstreamTlsContext(secretName: string, clientValidation?: ClientValidationIR, alpn: ServedAlpn = 'http'): ResourceJson {
  const common: ResourceJson = {
    tls_certificate_sds_secret_configs: [{ name: secretName, sds_config: buildAdsConfigSource() }],
    ...(alpn === 'http' ? { alpn_protocols: ['h2', 'http/1.1'] } : {}),
  };
  if (clientValidation === undefined) return { '@type': downstreamTlsContextType, common_tls_context: common };
  return {
    '@type': downstreamTlsContextType,
    common_tls_context: { ...common, combined_validation_context: buildCombinedValidationContext(clientValidation) },
    require_client_certificate: clientValidation.mode === 'require',
  };
}

function buildCombinedValidationContext(validation: ClientValidationIR): ResourceJson {
  const own: ResourceJson = {};
  // `request`: the handshake completes with a certificate that does not verify; Envoy records that it did not
  // (the routes read it: client-certificate-check.ts).
  if (validation.mode === 'request') own['trust_chain_verification'] = 'ACCEPT_UNTRUSTED';
  if (validation.verifyDepth !== undefined) own['max_verify_depth'] = validation.verifyDepth;
  return {
    default_validation_context: own,
    validation_context_sds_secret_config: { name: validation.certificateAuthority, sds_config: buildAdsConfigSource() },
  };
}

/** The TLS transport socket of a filter chain. */
export function buildTlsTransportSocket(secretName: string, clientValidation?: ClientValidationIR, alpn: ServedAlpn = 'http'): ResourceJson {
  return { name: 'envoy.transport_sockets.tls', typed_config: buildDownstreamTlsContext(secretName, clientValidation, alpn) };
}
