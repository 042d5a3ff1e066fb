// A rule's backendRefs -> its route action: one cluster, or a weighted split across Services where an invalid
// backendRef's share of the weight is answered 500 (the spec) instead of failing the whole rule, and a Service with
// no ready endpoints answers 503 (Envoy's own reply for a cluster without endpoints).
import type { BackendHeadersIR, ClusterIR, HttpWeightedClusterIR, RouteActionIR } from '../../../ir/index.js';
import { type ServiceIndex, clusterName, isTcpServicePort, serviceKey } from '../shared/backend.js';
import type { HTTPBackendRef, ReferenceGrant } from '../shared/kube-objects.js';
import { translateBackendFilters } from './backend-filters.js';
import type { BackendTlsLookup } from './backend-tls-policies.js';
import { isGranted } from './reference-grants.js';

import { GatewayReason } from './reasons.js';

/** The Gateway API's group (parentRefs, grants' `from`). */
export const gatewayGroup = 'gateway.networking.k8s.io';

/** A backendRef that cannot be served: why, for the route's diagnostics (the spec's ResolvedRefs reasons). */
export interface InvalidBackend {
  reason: string;
  message: string;
  /**
   * The ref resolves but its BackendTLSPolicy is not accepted: its share is answered 5xx (the spec: never
   * plaintext) and the policy's status says why; not a route reference problem.
   */
  policy?: true;
}

/** How a route's backends are reached over TLS: the BackendTLSPolicies, and its Gateway's client certificate. */
export interface BackendTlsContext {
  lookup: BackendTlsLookup;
  /** SDS name of the certificate presented to TLS backends (Gateway spec.tls.backend.clientCertificateRef). */
  clientCertificate?: string;
}

export interface RuleBackends {
  action: RouteActionIR;
  clusters: ClusterIR[];
  invalid: InvalidBackend[];
  /** backendRefs refused for their filters (answered 500 for their share): the rule is not served as written. */
  refused: string[];
  /** A backend requests may reach speaks WebSocket (appProtocol kubernetes.io/ws). */
  websocket: boolean;
}

/** The spec: a rule that sends nowhere (no backendRefs, every weight 0, only invalid refs) answers 500. */
const internalError: RouteActionIR = { kind: 'direct', status: 500 };

/** One backendRef: its cluster, or why it cannot be served. */
export type ResolvedBackend =
  /** `websocket`: the port says it speaks WebSocket (appProtocol kubernetes.io/ws): upgrades are let through. */
  | { valid: true; cluster: ClusterIR; websocket?: true }
  | { valid: false; problem: InvalidBackend };
type Resolved = ResolvedBackend;

/** Which kind of route refers: the ReferenceGrant `from` kind; gRPC's backends always speak HTTP/2. */
export type BackendRouteKind = 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute';

/** Service port appProtocols of the Kubernetes standard (KEP-3726) the routes act on. */
export const h2cAppProtocol = 'kubernetes.io/h2c';
export const websocketAppProtocol = 'kubernetes.io/ws';

export function resolveBackendRef(
  ref: HTTPBackendRef,
  routeNamespace: string,
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
  routeKind: BackendRouteKind = 'HTTPRoute',
  backendTls?: BackendTlsContext,
): Resolved {
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
  const plain: ClusterIR = { name: clusterName(namespace, ref.name, port.port), service: { namespace, name: ref.name, port: port.port } };
  // BackendTLSPolicy (HTTP and gRPC routes): a cluster of its own per policy (and Gateway client certificate), so
  // the Service port stays plaintext for whatever else sends to it (an Ingress, a route of another Gateway).
  const tls = routeKind === 'HTTPRoute' || routeKind === 'GRPCRoute' ? backendTls?.lookup(namespace, ref.name, port) : undefined;
  if (tls !== undefined && !tls.valid) return { valid: false, problem: { reason: GatewayReason.BackendTLSPolicyNotAccepted, message: tls.message, policy: true } };
  const cluster: ClusterIR =
    tls === undefined
      ? plain
      : backendTls?.clientCertificate === undefined
        ? { ...plain, name: `${plain.name}~tls=${tls.key}`, upstreamTls: tls.tls }
        : { ...plain, name: `${plain.name}~tls=${tls.key}~client=${backendTls.clientCertificate}`, upstreamTls: { ...tls.tls, clientCertificate: backendTls.clientCertificate } };
  // The port's appProtocol (the spec's Backend Protocol): HTTP/2 over cleartext, or WebSocket upgrades allowed.
  // gRPC is HTTP/2: a GRPCRoute's backends are spoken to over HTTP/2 (cleartext) whatever the port says.
  // TLSRoute and TCPRoute backends get the bytes as they are.
  if ((port.appProtocol === h2cAppProtocol && routeKind === 'HTTPRoute') || routeKind === 'GRPCRoute') {
    return { valid: true, cluster: { ...cluster, name: `${cluster.name}~h2c`, protocol: 'http2' } };
  }
  if (port.appProtocol === websocketAppProtocol && routeKind === 'HTTPRoute') return { valid: true, cluster, websocket: true };
  return { valid: true, cluster };
}

/** A rule's backendRefs as clusters by weight: the valid ones (weight > 0), and the weight of the invalid ones. */
export interface WeightedBackends {
  backends: HttpWeightedClusterIR[];
  /** The invalid and refused refs' weight (answered 500 for HTTP, closed for TCP). */
  invalidWeight: number;
  clusters: ClusterIR[];
  invalid: InvalidBackend[];
  /** HTTPRoute and GRPCRoute backendRefs refused for their filters, why. */
  refused: string[];
  /** A backend requests may reach speaks WebSocket (appProtocol kubernetes.io/ws). */
  websocket: boolean;
}

export function resolveWeightedBackends(
  refs: readonly HTTPBackendRef[],
  routeNamespace: string,
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
  routeKind: BackendRouteKind,
  backendTls?: BackendTlsContext,
): WeightedBackends {
  const clusters: ClusterIR[] = [];
  const invalid: InvalidBackend[] = [];
  const refused: string[] = [];
  // Weights by cluster: two refs to the same Service port add up (Envoy refuses a cluster twice in one split), so
  // they must carry the same filters.
  const weights = new Map<string, number>();
  const headers = new Map<string, BackendHeadersIR | undefined>();
  let invalidWeight = 0;
  const websocket = new Set<string>();
  for (const [i, ref] of refs.entries()) {
    const weight = ref.weight ?? 1;
    const resolved = resolveBackendRef(ref, routeNamespace, services, grants, routeKind, backendTls);
    if (!resolved.valid) {
      invalid.push(resolved.problem);
      invalidWeight += weight;
      continue;
    }
    // HTTPRoute and GRPCRoute backendRefs may carry filters (TCPRoute and TLSRoute ones have none).
    const filters = translateBackendFilters(ref.filters ?? []);
    const name = resolved.cluster.name;
    const refusal = !filters.valid
      ? filters.error
      : weights.has(name) && JSON.stringify(headers.get(name)) !== JSON.stringify(filters.headers)
        ? `it sends to the same Service port as an earlier backendRef, with other filters`
        : undefined;
    if (refusal !== undefined) {
      refused.push(`backendRef ${i} (${ref.name}): ${refusal}; its share of the requests answers 500`);
      invalidWeight += weight;
      continue;
    }
    if (!clusters.some((c) => c.name === name)) clusters.push(resolved.cluster);
    weights.set(name, (weights.get(name) ?? 0) + weight);
    headers.set(name, filters.valid ? filters.headers : undefined);
    if (resolved.websocket === true && weight > 0) websocket.add(name);
  }
  const backends: HttpWeightedClusterIR[] = [...weights]
    .filter(([, weight]) => weight > 0)
    .map(([cluster, weight]) => {
      const own = headers.get(cluster);
      return own === undefined ? { cluster, weight } : { cluster, weight, headers: own };
    });
  // Only clusters connections may reach are served.
  return { backends, invalidWeight, clusters: clusters.filter((c) => backends.some((v) => v.cluster === c.name)), invalid, refused, websocket: websocket.size > 0 };
}

export function resolveRuleBackends(
  refs: readonly HTTPBackendRef[],
  routeNamespace: string,
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
  routeKind: 'HTTPRoute' | 'GRPCRoute' = 'HTTPRoute',
  backendTls?: BackendTlsContext,
): RuleBackends {
  const { backends: valid, invalidWeight, clusters: used, invalid, refused, websocket } = resolveWeightedBackends(refs, routeNamespace, services, grants, routeKind, backendTls);
  const [first, ...rest] = valid;
  if (first === undefined) return { action: internalError, clusters: [], invalid, refused, websocket: false };
  const own = first.headers === undefined ? {} : { clusterHeaders: first.headers };
  if (rest.length === 0 && invalidWeight === 0) return { action: { kind: 'forward', cluster: first.cluster, ...own }, clusters: used, invalid, refused, websocket };
  const totalWeight = valid.reduce((sum, v) => sum + v.weight, 0) + invalidWeight;
  const split = { backends: rest, totalWeight, ...(invalidWeight > 0 ? { errorWeight: invalidWeight } : {}) };
  return { action: { kind: 'forward', cluster: first.cluster, split, ...own }, clusters: used, invalid, refused, websocket };
}
