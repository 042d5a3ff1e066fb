// Status as data: what the translator finds about each GatewayClass, Gateway, listener and route parentRef, in the
// shapes the Gateway API's status subresources take (Envoy Gateway's RouteParentContext idea). The translator stays
// pure: it fills these next to the IR, and controller/status/ writes them (adding lastTransitionTime, and holding
// Programmed back until Envoy ACKed). Goldens render them.
import type { ObjectRef, ParentReference } from '../shared/kube-objects.js';
import type { GatewayStatusAddress } from './gateway-service.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A metav1.Condition without lastTransitionTime (the writer keeps or sets it). */
export interface StatusCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration: number;
}

export interface RouteGroupKind {
  group: string;
  kind: string;
}

export interface GatewayClassStatusData {
  ref: ObjectRef<'GatewayClass'>;
  conditions: StatusCondition[];
  /** status.supportedFeatures names, sorted (supported-features.ts). */
  supportedFeatures: string[];
}

export interface ListenerStatusData {
  name: string;
  supportedKinds: RouteGroupKind[];
  /** Routes Accepted on this listener (the spec counts only those since v1.5). */
  attachedRoutes: number;
  conditions: StatusCondition[];
}

export interface GatewayStatusData {
  ref: ObjectRef<'Gateway'>;
  /**
   * status.addresses when Gateways have addresses of their own (listener-bindings.ts: its Service's, or its pool IP;
   * empty until assigned); absent without --gateway-port-range / --gateway-address-pool.
   */
  addresses?: GatewayStatusAddress[];
  conditions: StatusCondition[];
  /** In the Gateway's listener order. */
  listeners: ListenerStatusData[];
  /** status.attachedListenerSets: the ListenerSets it takes that are Accepted; absent: none. */
  attachedListenerSets?: number;
}

export interface ListenerSetStatusData {
  ref: ObjectRef<'ListenerSet'>;
  conditions: StatusCondition[];
  /** In the set's listener order; empty when its Gateway does not take it. */
  listeners: ListenerStatusData[];
}

/** One entry of a route's status.parents: ours for one parentRef of the route. */
export interface RouteParentStatusData {
  /** The parentRef as the route's spec has it (the spec: the entry names the parentRef it is about). */
  parentRef: ParentReference;
  controllerName: string;
  conditions: StatusCondition[];
}

export interface RouteStatusData {
  ref: ObjectRef;
  /** Our entries only, in the route's parentRef order; other controllers' entries are the writer's to keep. */
  parents: RouteParentStatusData[];
}

/** One entry of a policy's status.ancestors: ours for one Gateway (GEP-713: the ancestor is the Gateway). */
export interface PolicyAncestorStatusData {
  ancestorRef: { group: string; kind: string; namespace: string; name: string };
  controllerName: string;
  conditions: StatusCondition[];
}

export interface PolicyStatusData {
  ref: ObjectRef<'BackendTLSPolicy' | 'RoutePolicy'>;
  /** Our entries only, sorted by Gateway (a RoutePolicy whose routes attach to none of ours: by HTTPRoute); other controllers' entries are the writer's to keep. */
  ancestors: PolicyAncestorStatusData[];
}

export interface GatewayApiStatus {
  /** Sorted by name. */
  gatewayClasses: GatewayClassStatusData[];
  /** Sorted by namespace/name. */
  gateways: GatewayStatusData[];
  /** Every ListenerSet whose parentRef names one of our Gateways, sorted by namespace/name; absent: none. */
  listenerSets?: ListenerSetStatusData[];
  /** Every route that names one of our Gateways (or a ListenerSet of one), sorted by kind/namespace/name. */
  routes: RouteStatusData[];
  /** Every BackendTLSPolicy, sorted by namespace/name (absent: none). */
  backendTlsPolicies?: PolicyStatusData[];
  /** Every RoutePolicy, sorted by namespace/name (absent: none). */
  routePolicies?: PolicyStatusData[];
}

export function condition(type: string, status: ConditionStatus, reason: string, message: string, observedGeneration: number): StatusCondition {
  return { type, status, reason, message, observedGeneration };
}

/** metadata.generation, 0 when the object has none (manifests): status then names generation 0. */
export function generationOf(obj: { metadata: { generation?: number } }): number {
  return obj.metadata.generation ?? 0;
}
