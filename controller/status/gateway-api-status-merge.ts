// What a Gateway API object's status subresource should hold, from the translator's status data (pure): conditions
// keep their lastTransitionTime while their status stays the same; Programmed=True waits until Envoy ACKed a
// configuration containing the Gateway at that generation; a route's parent entries of other controllers are kept
// as they are, ours replaced (and dropped when the route no longer names our Gateway).
import type {
  PolicyStatusData,
  GatewayClassStatusData,
  GatewayStatusData,
  ListenerSetStatusData,
  ListenerStatusData,
  RouteParentStatusData,
  RouteStatusData,
  StatusCondition,
} from '../translate/gateway-api/status-data.js';
import type { GatewayStatusAddress } from '../translate/gateway-api/gateway-service.js';
import type { BackendTLSPolicy, RoutePolicy, GatewayClass, Gateway, GRPCRoute, HTTPRoute, ListenerSet, ParentReference, TCPRoute, TLSRoute } from '../translate/shared/kube-objects.js';

/** A metav1.Condition as written. */
export interface WrittenCondition extends StatusCondition {
  lastTransitionTime: string;
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function conditionsOf(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

/**
 * Condition types we write only while they hold, and remove when they no longer do (the spec says so of
 * InsecureFrontendValidationMode); a condition of another type we do not write is someone else's, and kept.
 */
const removedWhenAbsent: ReadonlySet<string> = new Set(['InsecureFrontendValidationMode']);

/** Our conditions, each keeping the existing lastTransitionTime when its status did not change; other types kept. */
export function mergeConditions(existing: unknown, wanted: readonly StatusCondition[], now: string, keepOthers = true): Json[] {
  const current = conditionsOf(existing);
  const ours = wanted.map((c): WrittenCondition => {
    const previous = current.find((p) => p['type'] === c.type);
    const since = previous !== undefined && previous['status'] === c.status && typeof previous['lastTransitionTime'] === 'string' ? previous['lastTransitionTime'] : now;
    return { ...c, lastTransitionTime: since };
  });
  const others = keepOthers ? current.filter((p) => !wanted.some((c) => c.type === p['type']) && !removedWhenAbsent.has(String(p['type']))) : [];
  return [...others, ...ours] as unknown as Json[];
}

/**
 * Whether the applied status (from the newest generation Envoy ACKed) had a Gateway (or ListenerSet: keys name the
 * kind) programmed at its generation.
 */
export interface AppliedGateways {
  gatewayProgrammed(key: string, generation: number): boolean;
  listenerProgrammed(key: string, generation: number, listener: string): boolean;
}

const pendingMessage = 'Waiting for Envoy to acknowledge the configuration';

/** Programmed=True held back (False, Pending) until `applied` says so. */
function gateProgrammed(conditions: readonly StatusCondition[], applied: boolean): StatusCondition[] {
  return conditions.map((c) => (c.type === 'Programmed' && c.status === 'True' && !applied ? { ...c, status: 'False', reason: 'Pending', message: pendingMessage } : c));
}

export function desiredGatewayClassStatus(obj: GatewayClass, data: GatewayClassStatusData, now: string): Json {
  return {
    ...obj.status,
    conditions: mergeConditions(obj.status?.['conditions'], data.conditions, now),
    supportedFeatures: data.supportedFeatures.map((name) => ({ name })),
  };
}

/**
 * `sharedAddresses`: where a Gateway without addresses of its own (data.addresses) is reached: the addresses the
 * controller publishes for Ingress (--publish-service, --publish-address), on the listeners' ports.
 */
export function desiredGatewayStatus(
  obj: Gateway,
  key: string,
  data: GatewayStatusData,
  applied: AppliedGateways,
  now: string,
  sharedAddresses: readonly GatewayStatusAddress[] = [],
): Json {
  const generation = obj.metadata.generation ?? 0;
  const gatewayApplied = applied.gatewayProgrammed(key, generation);
  const { addresses: _previous, attachedListenerSets: _count, ...rest } = obj.status ?? {};
  const addresses = data.addresses ?? sharedAddresses;
  return {
    ...rest,
    ...(addresses.length > 0 ? { addresses: addresses.map((a) => ({ type: a.type, value: a.value })) } : {}),
    conditions: mergeConditions(obj.status?.['conditions'], gateProgrammed(data.conditions, gatewayApplied), now),
    listeners: listenerEntries(obj.status?.['listeners'], data.listeners, key, generation, gatewayApplied, applied, now),
    // Absent when none (the API reads absent as 0).
    ...(data.attachedListenerSets === undefined ? {} : { attachedListenerSets: data.attachedListenerSets }),
  };
}

/** status.listeners of a Gateway or a ListenerSet: Programmed=True per listener once Envoy ACKed it too. */
function listenerEntries(
  existing: unknown,
  listeners: readonly ListenerStatusData[],
  key: string,
  generation: number,
  holderApplied: boolean,
  applied: AppliedGateways,
  now: string,
): Json[] {
  const existingListeners = Array.isArray(existing) ? existing.filter(isRecord) : [];
  return listeners.map((l) => ({
    name: l.name,
    supportedKinds: l.supportedKinds.map((k) => ({ group: k.group, kind: k.kind })),
    attachedRoutes: l.attachedRoutes,
    conditions: mergeConditions(
      existingListeners.find((e) => e['name'] === l.name)?.['conditions'],
      gateProgrammed(l.conditions, holderApplied && applied.listenerProgrammed(key, generation, l.name)),
      now,
      false,
    ),
  }));
}

/** A ListenerSet's status: its conditions and listeners, Programmed=True held back as a Gateway's is. */
export function desiredListenerSetStatus(obj: ListenerSet, key: string, data: ListenerSetStatusData, applied: AppliedGateways, now: string): Json {
  const generation = obj.metadata.generation ?? 0;
  const setApplied = applied.gatewayProgrammed(key, generation);
  return {
    ...obj.status,
    conditions: mergeConditions(obj.status?.['conditions'], gateProgrammed(data.conditions, setApplied), now),
    listeners: listenerEntries(obj.status?.['listeners'], data.listeners, key, generation, setApplied, applied, now),
  };
}

/** The spec's parentRef identity: group, kind, namespace, name, sectionName, port (defaults filled). */
function sameParent(a: unknown, b: ParentReference, routeNamespace: string): boolean {
  if (!isRecord(a)) return false;
  const norm = (r: Json | ParentReference): string =>
    JSON.stringify([
      (r as Json)['group'] ?? 'gateway.networking.k8s.io',
      (r as Json)['kind'] ?? 'Gateway',
      (r as Json)['namespace'] ?? routeNamespace,
      (r as Json)['name'],
      (r as Json)['sectionName'] ?? null,
      (r as Json)['port'] ?? null,
    ]);
  return norm(a) === norm(b);
}

/**
 * status.parents: other controllers' entries untouched and in place, ours as `data` says (none when `data` is
 * undefined: the route no longer names our Gateway).
 */
export function desiredRouteStatus(obj: HTTPRoute | GRPCRoute | TLSRoute | TCPRoute, controllerName: string, data: RouteStatusData | undefined, now: string): Json {
  const routeNamespace = obj.metadata.namespace ?? 'default';
  const existing = (obj.status?.parents ?? []).filter(isRecord);
  const others = existing.filter((p) => p['controllerName'] !== controllerName);
  const ours = (data?.parents ?? []).map((p: RouteParentStatusData) => {
    const previous = existing.find((e) => e['controllerName'] === controllerName && sameParent(e['parentRef'], p.parentRef, routeNamespace));
    return { parentRef: { ...p.parentRef }, controllerName, conditions: mergeConditions(previous?.['conditions'], p.conditions, now, false) };
  });
  return { ...obj.status, parents: [...others, ...ours] };
}

/**
 * A policy's status.ancestors (BackendTLSPolicy, RoutePolicy): other controllers' entries untouched and in place, ours as `data`
 * says (none when `data` is undefined or names no Gateway).
 */
export function desiredPolicyStatus(obj: BackendTLSPolicy | RoutePolicy, controllerName: string, data: PolicyStatusData | undefined, now: string): Json {
  const existing = (obj.status?.ancestors ?? []).filter(isRecord);
  const others = existing.filter((a) => a['controllerName'] !== controllerName);
  const ours = (data?.ancestors ?? []).map((a) => {
    const previous = existing.find((e) => e['controllerName'] === controllerName && sameParent(e['ancestorRef'], a.ancestorRef, a.ancestorRef.namespace));
    return { ancestorRef: { ...a.ancestorRef }, controllerName, conditions: mergeConditions(previous?.['conditions'], a.conditions, now, false) };
  });
  return { ...obj.status, ancestors: [...others, ...ours] };
}

/** Structural equality of JSON values, key order ignored (the API server may reorder fields). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]));
  }
  return false;
}
