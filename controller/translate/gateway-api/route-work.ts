// What an incremental Gateway API translation starts from (translate-gateway-api.ts): the last translation's
// route-independent context and, per route object, its attachment, rules and status, plus the virtual hosts made per
// socket and host. A route's work depends on the route and the context alone (attachment reads the served
// listeners, rules the Services, ReferenceGrants and BackendTLSPolicies, status both), so while the context's inputs
// are the same objects, a route object met before needs none of it again. Kept beside the translation (weakly), so
// the translation stays plain data.
import type { ClusterIR, VirtualHostIR } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { type ServiceIndex, indexServices, serviceKey } from '../shared/backend.js';
import { kindTable, namespaceOf } from '../shared/kinds.js';
import { type ClusterState, type Gateway, type ReferenceGrant, type Service, objectsOf } from '../shared/kube-objects.js';
import type { TranslateOptions } from '../shared/options.js';
import { unchangedBesides } from '../shared/unchanged-inputs.js';
import type { resolveBackendTlsPolicies } from './backend-tls-policies.js';
import type { GatewayClientCertificate } from './gateway-client-certificate.js';
import { gatewayServiceAnnotation } from './gateway-service.js';
import type { ourGatewayClasses } from './gateway-classes.js';
import type { TranslatedRules } from './httproute-rules.js';
import type { GatewayBindings } from './listener-bindings.js';
import type { PortHosts } from './ir-listeners.js';
import type { AcceptedListener, ListenerAcceptance } from './listener-acceptance.js';
import type { listenerSetsOf } from './listener-sets.js';
import type { AttachableRoute, AttachmentContext, RouteAttachment } from './route-attachment.js';
import type { RouteStatusData } from './status-data.js';

/** Everything of a translation that does not depend on routes. */
export interface GatewayContext {
  /** Found before any route's (listener sets, bindings, listeners, client certificates), in that order. */
  diagnostics: readonly Diagnostic[];
  controllerName: string;
  classes: ReturnType<typeof ourGatewayClasses>;
  gateways: readonly Gateway[];
  gatewaysByKey: ReadonlyMap<string, Gateway>;
  listenerSets: ReturnType<typeof listenerSetsOf>;
  bindings: GatewayBindings;
  accepted: readonly AcceptedListener[];
  verdicts: ListenerAcceptance['verdicts'];
  secretNames: readonly string[];
  configMapNames: readonly string[];
  attachment: AttachmentContext;
  grants: readonly ReferenceGrant[];
  backendTlsPolicies: ReturnType<typeof resolveBackendTlsPolicies>;
  clientCertificates: ReadonlyMap<Gateway, GatewayClientCertificate>;
  clientCertificateSecrets: ReadonlySet<string>;
  servicesIndex: ServiceIndex;
}

/** One route's work: its attachment (and the problems attachment reported, in order), rules and status (as admitted by the route budget). */
export interface RouteWork {
  /** refKey of the route (attachedRoutes counts routes by it). */
  key: string;
  attachment: RouteAttachment;
  attachmentProblems: readonly (readonly [reason: string, message: string])[];
  rules: TranslatedRules;
  status: RouteStatusData;
}

export interface GatewayApiWork {
  options: TranslateOptions;
  context: GatewayContext;
  /** Per binding key and host, the match lists placed there (host-placement.ts). */
  byBinding: ReadonlyMap<string, PortHosts>;
  /** Its attachment before the namespace route budget (route-budget.ts), which is applied across routes each time. */
  routes: ReadonlyMap<AttachableRoute, RouteWork>;
  /** The routes of `routes` within their namespace's route budget. */
  admitted: ReadonlySet<AttachableRoute>;
  /** Per binding key and host name: the virtual host made for it (ir-listeners.ts). */
  virtualHosts: ReadonlyMap<string, ReadonlyMap<string, VirtualHostIR>>;
  /** The translation's clusters by name. */
  clusters: ReadonlyMap<string, ClusterIR>;
  /**
   * The last work of routes (not in `routes`) whose work is made again because a Service they name changed
   * (servicesChanged): like a replaced route's, their last placement is removed and their hosts made again.
   */
  redone?: ReadonlyMap<AttachableRoute, RouteWork>;
}

/** The rules of a route that is not ours: none (never read). */
export const noRules: TranslatedRules = { matches: [], clusters: [], services: [], problems: [] };

const works = new WeakMap<object, GatewayApiWork>();

export function recordWork(translation: object, work: GatewayApiWork): void {
  works.set(translation, work);
}

export function workOf(translation: object): GatewayApiWork | undefined {
  return works.get(translation);
}

/**
 * The inputs a route's work may differ in: HTTPRoutes only. Ingresses and endpoint objects are not read by the
 * Gateway API translator. Services: see servicesChanged. Any other change (a GatewayClass, Gateway, ListenerSet,
 * ReferenceGrant, Namespace, BackendTLSPolicy, Secret, ConfigMap, another route kind) may change the context or any
 * route's work: a full translation.
 */
const routeInputs: ReadonlySet<string> = new Set([
  kindTable.HTTPRoute.state,
  kindTable.Ingress.state,
  kindTable.EndpointSlice.state,
  kindTable.Endpoints.state,
]);

export function onlyRoutesChanged(before: ClusterState, after: ClusterState): boolean {
  return unchangedBesides(routeInputs, before, after);
}

/** The inputs besides routes whose changes servicesChanged may take: Services. */
const routeAndServiceInputs: ReadonlySet<string> = new Set([...routeInputs, kindTable.Service.state]);

/**
 * The work to translate `after` from when, besides HTTPRoutes, only Services changed and none of them is read by
 * the route-independent context: not a managed Gateway Service (its bindings read those for addresses, the port
 * record, name collisions), not a BackendTLSPolicy's target nor a RoutePolicy's externalAuth backend (their lookups
 * are in every route's rules). The context gets the new Services index; the routes whose backendRefs (mirrors
 * included, `rules.services`, missing Services too) name a changed Service are made again (`redone`). Undefined
 * otherwise (a full translation).
 */
export function servicesChanged(work: GatewayApiWork, before: ClusterState, after: ClusterState): GatewayApiWork | undefined {
  if (!unchangedBesides(routeAndServiceInputs, before, after)) return undefined;
  const changed = changedServices(before.services, after.services);
  if (changed.size === 0) return undefined;
  const managed = new Set(work.context.bindings.services);
  for (const [key, services] of changed) {
    if (managed.has(key) || services.some((s) => s?.metadata.annotations?.[gatewayServiceAnnotation] !== undefined)) return undefined;
  }
  for (const policy of objectsOf(after, 'BackendTLSPolicy')) {
    for (const target of policy.spec?.targetRefs ?? []) if (changed.has(serviceKey(namespaceOf(policy.metadata), target.name))) return undefined;
  }
  for (const policy of objectsOf(after, 'RoutePolicy')) {
    const name = policy.spec?.externalAuth?.backendRef?.name;
    if (name !== undefined && changed.has(serviceKey(namespaceOf(policy.metadata), name))) return undefined;
  }
  const routes = new Map<AttachableRoute, RouteWork>();
  const redone = new Map<AttachableRoute, RouteWork>();
  for (const [route, routeWork] of work.routes) (routeWork.rules.services.some((s) => changed.has(s)) ? redone : routes).set(route, routeWork);
  return { ...work, context: { ...work.context, servicesIndex: indexServices(after.services) }, routes, redone };
}

/** Per `namespace/name` whose Service object is not the same one, the Service before and after (undefined: none). */
function changedServices(before: readonly Service[], after: readonly Service[]): Map<string, (Service | undefined)[]> {
  const keyOf = (s: Service): string => serviceKey(namespaceOf(s.metadata), s.metadata.name);
  const was = new Map(before.map((s) => [keyOf(s), s]));
  const is = new Map(after.map((s) => [keyOf(s), s]));
  const changed = new Map<string, (Service | undefined)[]>();
  for (const key of new Set([...was.keys(), ...is.keys()])) if (was.get(key) !== is.get(key)) changed.set(key, [was.get(key), is.get(key)]);
  return changed;
}

/** Marks the hosts a route serves (per binding key) as touched: their virtual hosts are made again. */
export function touch(touched: Map<string, Set<string>>, attachment: RouteAttachment): void {
  for (const [binding, hosts] of attachment.hostsByBinding) {
    let set = touched.get(binding);
    if (set === undefined) touched.set(binding, (set = new Set()));
    for (const host of hosts) set.add(host);
  }
}
