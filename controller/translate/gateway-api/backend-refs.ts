// A rule's backendRefs -> its route action: one cluster, or a weighted split across Services where an invalid
// backendRef's share of the weight is answered 500 (the spec) instead of failing the whole rule, and a Service with
// no ready endpoints answers 503 (Envoy's own reply for a cluster without endpoints).
import type { ClusterIR, RouteActionIR, WeightedClusterIR } from '../../../ir/index.js';
import { type ServiceIndex, clusterName, isTcpServicePort, serviceKey } from '../shared/backend.js';
import type { HTTPBackendRef, ReferenceGrant } from '../shared/kube-objects.js';
import { isGranted } from './reference-grants.js';

/** The Gateway API's group (parentRefs, grants' `from`). */
export const gatewayGroup = 'gateway.networking.k8s.io';
import { GatewayReason } from './reasons.js';

/** A backendRef that cannot be served: why, for the route's diagnostics (the spec's ResolvedRefs reasons). */
export interface InvalidBackend {
  reason: string;
  message: string;
}

export interface RuleBackends {
  action: RouteActionIR;
  clusters: ClusterIR[];
  invalid: InvalidBackend[];
}

/** The spec: a rule that sends nowhere (no backendRefs, every weight 0, only invalid refs) answers 500. */
const internalError: RouteActionIR = { kind: 'direct', status: 500 };

type Resolved = { valid: true; cluster: ClusterIR } | { valid: false; problem: InvalidBackend };

function resolve(ref: HTTPBackendRef, routeNamespace: string, services: ServiceIndex, grants: readonly ReferenceGrant[], routeKind: string): Resolved {
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Service';
  const namespace = ref.namespace ?? routeNamespace;
  const invalid = (reason: string, message: string): Resolved => ({ valid: false, problem: { reason, message } });
  if (group !== '' || kind !== 'Service') return invalid(GatewayReason.InvalidKind, `backendRef kind ${kind}${group === '' ? '' : `.${group}`} is not supported; use a Service`);
  // Another namespace's Service only with a ReferenceGrant there for HTTPRoutes of this namespace (the spec).
  if (namespace !== routeNamespace && !isGranted(grants, { from: { group: gatewayGroup, kind: routeKind, namespace: routeNamespace }, to: { group: '', kind: 'Service', namespace, name: ref.name } })) {
    return invalid(GatewayReason.RefNotPermitted, `backendRef to service ${namespace}/${ref.name} is not permitted: no ReferenceGrant in ${namespace} lets ${routeKind}s of ${routeNamespace} refer to it`);
  }
  const service = services.get(serviceKey(namespace, ref.name));
  if (service === undefined) return invalid(GatewayReason.BackendNotFound, `service ${namespace}/${ref.name} not found`);
  if (service.spec?.type === 'ExternalName') return invalid(GatewayReason.UnsupportedBackendRef, `service ${namespace}/${ref.name} is of type ExternalName, not served for routes yet`);
  if (ref.port === undefined) return invalid(GatewayReason.BackendNotFound, `backendRef to service ${namespace}/${ref.name} names no port`);
  const port = (service.spec?.ports ?? []).filter(isTcpServicePort).find((p) => p.port === ref.port);
  if (port === undefined) return invalid(GatewayReason.BackendNotFound, `service ${namespace}/${ref.name} has no TCP port ${ref.port}`);
  return { valid: true, cluster: { name: clusterName(namespace, ref.name, port.port), service: { namespace, name: ref.name, port: port.port } } };
}

/** A rule's backendRefs as clusters by weight: the valid ones (weight > 0), and the weight of the invalid ones. */
export interface WeightedBackends {
  backends: WeightedClusterIR[];
  /** The invalid refs' weight (answered 500 for HTTP, closed for TCP). */
  invalidWeight: number;
  clusters: ClusterIR[];
  invalid: InvalidBackend[];
}

export function resolveWeightedBackends(
  refs: readonly HTTPBackendRef[],
  routeNamespace: string,
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
  routeKind: string,
): WeightedBackends {
  const clusters: ClusterIR[] = [];
  const invalid: InvalidBackend[] = [];
  // Weights by cluster: two refs to the same Service port add up (Envoy refuses a cluster twice in one split).
  const weights = new Map<string, number>();
  let invalidWeight = 0;
  for (const ref of refs) {
    const weight = ref.weight ?? 1;
    const resolved = resolve(ref, routeNamespace, services, grants, routeKind);
    if (!resolved.valid) {
      invalid.push(resolved.problem);
      invalidWeight += weight;
      continue;
    }
    if (!clusters.some((c) => c.name === resolved.cluster.name)) clusters.push(resolved.cluster);
    weights.set(resolved.cluster.name, (weights.get(resolved.cluster.name) ?? 0) + weight);
  }
  const backends: WeightedClusterIR[] = [...weights].filter(([, weight]) => weight > 0).map(([cluster, weight]) => ({ cluster, weight }));
  // Only clusters connections may reach are served.
  return { backends, invalidWeight, clusters: clusters.filter((c) => backends.some((v) => v.cluster === c.name)), invalid };
}

export function resolveRuleBackends(
  refs: readonly HTTPBackendRef[],
  routeNamespace: string,
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
): RuleBackends {
  const { backends: valid, invalidWeight, clusters: used, invalid } = resolveWeightedBackends(refs, routeNamespace, services, grants, 'HTTPRoute');
  const [first, ...rest] = valid;
  if (first === undefined) return { action: internalError, clusters: [], invalid };
  if (rest.length === 0 && invalidWeight === 0) return { action: { kind: 'forward', cluster: first.cluster }, clusters: used, invalid };
  const totalWeight = valid.reduce((sum, v) => sum + v.weight, 0) + invalidWeight;
  const split = { backends: rest, totalWeight, ...(invalidWeight > 0 ? { errorWeight: invalidWeight } : {}) };
  return { action: { kind: 'forward', cluster: first.cluster, split }, clusters: used, invalid };
}
