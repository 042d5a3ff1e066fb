import type { ClusterIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import { buildSocketAddress } from './address.js';
import { buildAdsConfigSource } from './config-source.js';
import { withUpstreamPolicy } from './cluster-policy.js';
import { bufferLimitField } from './edge-hardening.js';
import type { ResourceJson } from './resource-types.js';

/**
 * A Cluster for one Service port whose endpoints come over EDS under the cluster's own name. No active health
 * checking is configured, so `ignore_health_on_host_removal` would change nothing and is left out: a host
 * removed from EDS is dropped at once.
 */
export function buildCluster(cluster: ClusterIR, bufferLimitBytes = 0): ResourceJson {
  if (cluster.externalName !== undefined) {
    return withUpstreamPolicy(cluster, { ...buildExternalNameCluster(cluster, cluster.externalName), ...bufferLimitField(bufferLimitBytes) });
  }
  return withUpstreamPolicy(cluster, {
    '@type': TypeUrl.cluster,
    name: cluster.name,
    type: 'EDS',
    eds_cluster_config: { eds_config: buildAdsConfigSource(), service_name: cluster.name },
    connect_timeout: '5s',
    lb_policy: 'ROUND_ROBIN',
    // A slow backend connection holds at most this much of Envoy's memory (edge-hardening.ts).
    ...bufferLimitField(bufferLimitBytes),
  });
}

/**
 * A cluster for an ExternalName Service: Envoy resolves the name itself (STRICT_DNS: every address it resolves
 * to is an endpoint, re-resolved periodically) and connects on the Service port. No EDS.
 */
export function buildExternalNameCluster(cluster: ClusterIR, externalName: string): ResourceJson {
  return {
    '@type': TypeUrl.cluster,
    name: cluster.name,
    type: 'STRICT_DNS',
    load_assignment: {
      cluster_name: cluster.name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: buildSocketAddress(externalName, cluster.service.port) } }] }],
    },
    connect_timeout: '5s',
    lb_policy: 'ROUND_ROBIN',
  };
}
