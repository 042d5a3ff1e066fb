import type { ClusterEndpointsIR, EndpointIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import { buildSocketAddress } from './address.js';
import type { ResourceJson } from './resource-types.js';

function compareEndpoints(a: EndpointIR, b: EndpointIR): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1;
  return a.port - b.port;
}

/**
 * A ClusterLoadAssignment (EDS resource): one locality holding every endpoint, in a fixed order so that the same
 * set of endpoints always gives the same resource. No endpoints gives no locality: the cluster is active and
 * answers 503, rather than waiting for endpoints while it warms.
 */
export function buildClusterLoadAssignment(e: ClusterEndpointsIR): ResourceJson {
  const assignment: ResourceJson = { '@type': TypeUrl.clusterLoadAssignment, cluster_name: e.cluster };
  const endpoints = [...e.endpoints].sort(compareEndpoints);
  // Empty lists are left out, as in canonical proto3 JSON (what decoding the binary form gives back).
  if (endpoints.length > 0) {
    assignment['endpoints'] = [
      { lb_endpoints: endpoints.map((ep) => ({ endpoint: { address: buildSocketAddress(ep.address, ep.port) } })) },
    ];
  }
  return assignment;
}
