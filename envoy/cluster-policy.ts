// ClusterIR upstream settings (annotations backend-protocol, backend-sni, load-balancer; ingress-nginx
// proxy-connect-timeout, limit-connections, proxy-ssl-*; the Gateway API's BackendTLSPolicy) -> Cluster fields.
import type { ClusterIR, LoadBalancerIR, TlsVersionIR, UpstreamTlsIR } from '../ir/index.js';
import { buildAdsConfigSource } from './config-source.js';
import { buildMirrorUpstreamHttpFilters } from './mirror-rewrite.js';
import type { ResourceJson } from './resource-types.js';

const httpProtocolOptionsName = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';
const httpProtocolOptionsType = `type.googleapis.com/${httpProtocolOptionsName}`;
const upstreamTlsContextType = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext';

const lbPolicies: Record<LoadBalancerIR, string> = {
  'least-request': 'LEAST_REQUEST',
  'ring-hash': 'RING_HASH',
  maglev: 'MAGLEV',
  random: 'RANDOM',
};

const tlsVersions: Record<TlsVersionIR, string> = { '1.0': 'TLSv1_0', '1.1': 'TLSv1_1', '1.2': 'TLSv1_2', '1.3': 'TLSv1_3' };

/**
 * TLS to the endpoints. Without `verify` the certificate is not verified (endpoints are Pod IPs, rarely in a
 * certificate; the same as ingress-nginx's default): this protects against passive listeners, not an active attacker
 * in the cluster network. With it, the trusted CAs come over SDS, combined with the cluster's own names and depth
 * (one CA may serve clusters that expect different names); a client certificate comes over SDS as well. ALPN
 * offers the protocol the cluster speaks.
 */
export function buildUpstreamTlsSocket(cluster: ClusterIR, tls: UpstreamTlsIR): ResourceJson {
  const common: ResourceJson = { alpn_protocols: [cluster.protocol === 'http2' ? 'h2' : 'http/1.1'] };
  if (tls.clientCertificate !== undefined) {
    common['tls_certificate_sds_secret_configs'] = [{ name: tls.clientCertificate, sds_config: buildAdsConfigSource() }];
  }
  if (tls.verify !== undefined) {
    const own: ResourceJson = {};
    if (tls.verify.subjectAltNames.length > 0) {
      own['match_typed_subject_alt_names'] = tls.verify.subjectAltNames.map((san) => ({ san_type: san.kind === 'dns' ? 'DNS' : 'URI', matcher: { exact: san.value } }));
    }
    if (tls.verify.verifyDepth !== undefined) own['max_verify_depth'] = tls.verify.verifyDepth;
    common['combined_validation_context'] = {
      default_validation_context: own,
      validation_context_sds_secret_config: { name: tls.verify.certificateAuthority, sds_config: buildAdsConfigSource() },
    };
  }
  const params: ResourceJson = {};
  if (tls.minVersion !== undefined) params['tls_minimum_protocol_version'] = tlsVersions[tls.minVersion];
  if (tls.maxVersion !== undefined) params['tls_maximum_protocol_version'] = tlsVersions[tls.maxVersion];
  if (tls.cipherSuites !== undefined) params['cipher_suites'] = [...tls.cipherSuites];
  if (Object.keys(params).length > 0) common['tls_params'] = params;
  const context: ResourceJson = { '@type': upstreamTlsContextType, common_tls_context: common };
  if (tls.sni !== undefined) context['sni'] = tls.sni;
  return { name: 'envoy.transport_sockets.tls', typed_config: context };
}

/** The cluster resource with the upstream settings of `cluster` added; unchanged when it has none. */
export function withUpstreamPolicy(cluster: ClusterIR, resource: ResourceJson): ResourceJson {
  const result: ResourceJson = { ...resource };
  if (cluster.loadBalancer !== undefined) result['lb_policy'] = lbPolicies[cluster.loadBalancer];
  if (cluster.protocol === 'http2' || cluster.mirrorRewrite !== undefined) {
    result['typed_extension_protocol_options'] = {
      [httpProtocolOptionsName]: {
        '@type': httpProtocolOptionsType,
        explicit_http_config: cluster.protocol === 'http2' ? { http2_protocol_options: {} } : { http_protocol_options: {} },
        ...(cluster.mirrorRewrite === undefined ? {} : { http_filters: buildMirrorUpstreamHttpFilters(cluster.mirrorRewrite) }),
      },
    };
  }
  if (cluster.upstreamTls !== undefined) result['transport_socket'] = buildUpstreamTlsSocket(cluster, cluster.upstreamTls);
  if (cluster.connectTimeoutMs !== undefined) result['connect_timeout'] = `${cluster.connectTimeoutMs / 1000}s`;
  if (cluster.maxRequests !== undefined) {
    // Only max_requests is lowered: the other thresholds keep Envoy's defaults (1024), so requests beyond the
    // limit overflow with 503 at once instead of queueing.
    result['circuit_breakers'] = { thresholds: [{ priority: 'DEFAULT', max_requests: cluster.maxRequests }] };
  }
  return result;
}
