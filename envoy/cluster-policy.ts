// ClusterIR upstream settings (annotations backend-protocol, backend-sni, load-balancer; ingress-nginx
// proxy-connect-timeout, limit-connections) -> Cluster fields.
import type { ClusterIR, LoadBalancerIR } from '../ir/index.js';
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

/**
 * TLS to the endpoints. The certificate is not verified (endpoints are Pod IPs, rarely in a certificate; the
 * same as ingress-nginx's default): this protects against passive listeners, not an active attacker in the
 * cluster network. ALPN offers the protocol the cluster speaks.
 */
function buildUpstreamTlsSocket(cluster: ClusterIR, sni: string | undefined): ResourceJson {
  const tls: ResourceJson = {
    '@type': upstreamTlsContextType,
    common_tls_context: { alpn_protocols: [cluster.protocol === 'http2' ? 'h2' : 'http/1.1'] },
  };
  if (sni !== undefined) tls['sni'] = sni;
  return { name: 'envoy.transport_sockets.tls', typed_config: tls };
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
  if (cluster.upstreamTls !== undefined) result['transport_socket'] = buildUpstreamTlsSocket(cluster, cluster.upstreamTls.sni);
  if (cluster.connectTimeoutMs !== undefined) result['connect_timeout'] = `${cluster.connectTimeoutMs / 1000}s`;
  if (cluster.maxRequests !== undefined) {
    // Only max_requests is lowered: the other thresholds keep Envoy's defaults (1024), so requests beyond the
    // limit overflow with 503 at once instead of queueing.
    result['circuit_breakers'] = { thresholds: [{ priority: 'DEFAULT', max_requests: cluster.maxRequests }] };
  }
  return result;
}
