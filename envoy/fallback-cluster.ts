// FallbackClusterIR -> an aggregate cluster: Envoy puts the named clusters on priority levels in order, so each
// request goes to the first one with healthy endpoints, decided per request (no rebuild when endpoints vanish).
import type { FallbackClusterIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import type { ResourceJson } from './resource-types.js';

const aggregateClusterType = 'type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig';

export function buildFallbackCluster(cluster: FallbackClusterIR): ResourceJson {
  return {
    '@type': TypeUrl.cluster,
    name: cluster.name,
    connect_timeout: '5s',
    // The aggregate cluster's load balancer picks the priority level; each level balances with its own policy.
    lb_policy: 'CLUSTER_PROVIDED',
    cluster_type: { name: 'envoy.clusters.aggregate', typed_config: { '@type': aggregateClusterType, clusters: [...cluster.clusters] } },
  };
}
