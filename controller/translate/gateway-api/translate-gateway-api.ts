// The Gateway API translator: GatewayClasses of our controllerName -> their Gateways -> served listeners -> the
// routes attached to them, as listeners of the one DataPlaneIR, with status as data next to it. Pure and
// deterministic. Each concern has its file (README.md lists them and the extension points).
import { type BasicAuthUsersIR, type CertificateAuthorityIR, type ClusterIR, type ListenerIR, type TlsSecretIR, compareStrings } from '../../../ir/index.js';
import { indexServices } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type ClusterState, type Gateway, type ObjectRef, objectsOf, refKey, refOf } from '../shared/kube-objects.js';
import { GatewayReason } from './reasons.js';
import { type TranslateOptions, defaultGatewayControllerName, defaultNamespaceRouteBudget } from '../shared/options.js';
import { Reason } from '../shared/reasons.js';
import { compareByAge, sortedByAge, sortedKeyed } from '../shared/ordering.js';
import { gatewayGroup } from './backend-refs.js';
import { resolveBackendTlsPolicies } from './backend-tls-policies.js';
import { type GatewayClientCertificate, resolveGatewayClientCertificate } from './gateway-client-certificate.js';
import { indexSecrets } from './listener-certificates.js';
import { ourGatewayClasses } from './gateway-classes.js';
import { gatewayStatus, listenerSetStatus } from './gateway-status.js';
import { type VirtualHostReuse, joinIrListeners } from './ir-listeners.js';
import { HostPlacement } from './host-placement.js';
import { gatewayBindings } from './listener-bindings.js';
import { type AcceptedListener, acceptListeners } from './listener-acceptance.js';
import { listenerSetsOf } from './listener-sets.js';
import { namespaceAdmission } from './namespace-selection.js';
import { type AttachableRoute, type AttachmentContext, attachRoute } from './route-attachment.js';
import { type GatewayApiWork, type GatewayContext, type RouteWork, noRules, onlyRoutesChanged, recordWork, servicesChanged, touch, workOf } from './route-work.js';
import { type RouteKind, type RouteTranslationContext, routeKinds } from './route-kinds.js';
import { routeBudget } from './route-budget.js';
import { type RoutePolicyLookup, resolveRoutePolicies, routeKey as policyRouteKey } from './route-policies.js';
import { routeStatus } from './route-status.js';
import { tcpChains } from './tcp-chains.js';
import { type GatewayApiStatus, type RouteStatusData, generationOf } from './status-data.js';

export { gatewayGroup };
export { gatewayHttpListenerName } from './ir-listeners.js';

export interface GatewayApiTranslation {
  listeners: ListenerIR[];
  /** Sorted by name. */
  clusters: ClusterIR[];
  /** In the order found; the orchestrator sorts them by object. */
  diagnostics: Diagnostic[];
  /** Our Gateways and the routes that attach to one of them, sorted by kind/namespace/name. */
  served: ObjectRef[];
  /** `namespace/name` of every Service a served route's backendRefs name, sorted. */
  services: string[];
  /** The certificates of the terminating listeners (SDS), sorted by name. */
  secrets: TlsSecretIR[];
  /** `namespace/name` of every Secret a listener's certificateRefs name (permitted ones), sorted. */
  secretNames: string[];
  /** The trusted CAs of the accepted BackendTLSPolicies and of HTTPS listeners' client-certificate validation (SDS), sorted by name. */
  certificateAuthorities: CertificateAuthorityIR[];
  /** `namespace/name` of every ConfigMap a BackendTLSPolicy or a Gateway's caCertificateRefs (permitted ones) name, sorted. */
  configMapNames: string[];
  /** The users of the RoutePolicies' basic-auth Secrets (DataPlaneIR.basicAuthUsers), sorted by id. */
  basicAuthUsers: BasicAuthUsersIR[];
  /** What the status subresources of our GatewayClasses, Gateways and routes say (controller/status/ writes it). */
  status: GatewayApiStatus;
}

export function translateGatewayApi(state: ClusterState, options: TranslateOptions): GatewayApiTranslation {
  return translateWith(state, options, undefined);
}

/**
 * The translation of `state` from `previous` (the translation of `before`), when only HTTPRoutes (and Services no
 * route-independent input reads: route-work.ts servicesChanged, which remakes the routes naming them) changed among
 * the inputs it reads (route-work.ts): everything that does not depend on routes (classes, Gateways, ListenerSets,
 * listeners, bindings, certificates, ReferenceGrants, BackendTLSPolicies) is reused, as are the attachment, rules and
 * status of every route object met before; virtual hosts no changed route touches (before or after the change) are
 * the very objects of `previous`. Undefined when another input changed: the caller translates in full. Equal to
 * translateGatewayApi(state, options) by construction (the same code runs, with memoised steps whose inputs are the
 * same objects), which incremental-translate.test.ts checks against random edits.
 */
export function translateGatewayApiIncrementally(previous: GatewayApiTranslation, before: ClusterState, state: ClusterState, options: TranslateOptions): GatewayApiTranslation | undefined {
  const work = workOf(previous);
  if (work === undefined || work.options !== options) return undefined;
  if (onlyRoutesChanged(before, state)) return translateWith(state, options, work);
  const afterServices = servicesChanged(work, before, state);
  return afterServices === undefined ? undefined : translateWith(state, options, afterServices);
}

/** What does not depend on routes: our classes, Gateways, ListenerSets, served listeners and what they read. */
function gatewayContextOf(state: ClusterState, options: TranslateOptions): GatewayContext {
  const diagnostics: Diagnostic[] = [];
  const controllerName = options.gatewayControllerName ?? defaultGatewayControllerName;
  const classes = ourGatewayClasses(state, controllerName, options.gatewayAddressing);
  // Oldest first: a port's hostname belongs to the first listener to claim it.
  const gateways = objectsOf(state, 'Gateway')
    .filter((g) => g.spec?.gatewayClassName !== undefined && classes.names.has(g.spec.gatewayClassName))
    .sort(compareByAge);
  const gatewaysByKey = new Map(gateways.map((g) => [`${namespaceOf(g.metadata)}/${g.metadata.name}`, g]));
  const listenerSets = listenerSetsOf(state, gatewaysByKey);
  for (const { set, notAllowed } of listenerSets.all) {
    if (notAllowed !== undefined) diagnostics.push({ object: refOf(set), severity: 'Warning', reason: GatewayReason.NotAllowed, message: `${notAllowed}; its listeners are not served` });
  }
  const bindings = gatewayBindings(gateways, state, options, diagnostics, listenerSets.taken);
  const { accepted, attachableOnly, verdicts, secrets: secretNames, configMaps: configMapNames } = acceptListeners(gateways, state, options, bindings, diagnostics, listenerSets.taken);

  const attachment: AttachmentContext = {
    gateways: gatewaysByKey,
    listenerSets: listenerSets.byKey,
    listeners: accepted,
    attachableOnly: new Set(attachableOnly),
    admitsNamespace: namespaceAdmission(objectsOf(state, 'Namespace')),
  };
  const grants = objectsOf(state, 'ReferenceGrant');
  const secretIndex = indexSecrets(state.secrets);
  const backendTlsPolicies = resolveBackendTlsPolicies(state, secretIndex);
  // Each Gateway's backend client certificate (spec.tls.backend), presented to the backends reached over TLS.
  const clientCertificates = new Map<Gateway, GatewayClientCertificate>();
  const clientCertificateSecrets = new Set<string>();
  for (const gateway of gateways) {
    const resolved = resolveGatewayClientCertificate(gateway, { secrets: secretIndex, grants, referenced: clientCertificateSecrets });
    if (resolved === undefined) continue;
    clientCertificates.set(gateway, resolved);
    if ('problem' in resolved) diagnostics.push({ object: refOf(gateway), severity: 'Warning', reason: resolved.problem.reason === 'RefNotPermitted' ? GatewayReason.RefNotPermitted : GatewayReason.InvalidClientCertificateRef, message: resolved.problem.message });
  }
  return {
    diagnostics,
    controllerName,
    classes,
    gateways,
    gatewaysByKey,
    listenerSets,
    bindings,
    accepted,
    verdicts,
    secretNames,
    configMapNames,
    attachment,
    grants,
    backendTlsPolicies,
    clientCertificates,
    clientCertificateSecrets,
    servicesIndex: indexServices(state.services),
  };
}

function translateWith(state: ClusterState, options: TranslateOptions, last: GatewayApiWork | undefined): GatewayApiTranslation {
  const context = last?.context ?? gatewayContextOf(state, options);
  const { controllerName, classes, gateways, listenerSets, bindings, accepted, verdicts, secretNames, configMapNames, attachment, grants, backendTlsPolicies, clientCertificates, clientCertificateSecrets, servicesIndex } = context;
  const diagnostics: Diagnostic[] = [...context.diagnostics];
  /** Each route's attachment, rules and status, for the next incremental translation. */
  const routeWork = new Map<AttachableRoute, RouteWork>();
  /** Routes within their namespace's route budget (route-budget.ts). */
  const admittedRoutes = new Set<AttachableRoute>();
  /** Per binding key, the hosts whose virtual hosts a route that changed touches (before or after the change). */
  const touched = new Map<string, Set<string>>();
  // Resolved on every translation, not kept with the route-independent context: which rules a policy reaches
  // depends on the routes that exist (a route created later must get its policy, never be served without it).
  const policyDiagnostics: Diagnostic[] = [];
  // The Secret index only when there are policies: this runs on every HTTPRoute change too.
  const secretsByKey = objectsOf(state, 'RoutePolicy').length === 0 ? new Map() : new Map(state.secrets.map((s) => [`${namespaceOf(s.metadata)}/${s.metadata.name}`, s]));
  const routePolicies = resolveRoutePolicies(state, secretsByKey, servicesIndex, policyDiagnostics);
  // Without a GatewayClass of ours no route is ours and nothing of the Gateway API is ours to report on.
  if (classes.names.size > 0) diagnostics.push(...policyDiagnostics);
  /** Per HTTPRoute and GRPCRoute (`kind/namespace/name`) the Gateways (`namespace/name`) it attaches to: RoutePolicy ancestors. */
  const gatewaysByRoute = new Map<string, Set<string>>();
  /** Per Service (`namespace/name`) the Gateways (`namespace/name`) of the routes that send to it: policy ancestors. */
  const gatewaysByService = new Map<string, Set<string>>();
  const clusters = new Map<string, ClusterIR>();
  const referenced = new Set<string>();
  const servedRoutes: { key: string; value: ObjectRef }[] = [];
  const routeStatuses: { key: string; value: RouteStatusData }[] = [];
  const attached = new Map<AcceptedListener, Set<string>>();
  const placement = new HostPlacement(last?.byBinding);
  const chains = tcpChains(accepted);

  // Only BackendTLSPolicies' ancestors read it: not gathered per route when there are none.
  const withPolicies = objectsOf(state, 'BackendTLSPolicy').length > 0;
  const withRoutePolicies = objectsOf(state, 'RoutePolicy').length > 0;
  const budget = routeBudget(options.namespaceRouteBudget ?? defaultNamespaceRouteBudget);
  const routes = routeKinds.flatMap((kind) => kind.routes(state).map((route) => ({ kind, route: route as AttachableRoute })));
  for (const { kind, route } of sortedByAge(routes, (r) => r.route.metadata)) {
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(route), severity: 'Warning', reason, message });
    };
    const known = last?.routes.get(route);
    const work = known ?? translateRoute(route, kind, context, routePolicies.lookup);
    routeWork.set(route, work);
    if (known === undefined && last !== undefined) touch(touched, work.attachment);
    for (const [reason, message] of work.attachmentProblems) report(reason, message);
    const { attachment: asAttached, rules } = work;
    // A route object met before has the same work: not ours then either (never placed).
    if (!asAttached.ours) continue;
    servedRoutes.push({ key: work.key, value: work.status.ref });
    // The budget counts routes across a namespace: a route met before whose admission changed (an older route of its
    // namespace grew or shrank) has its hosts made again.
    const attachmentResult = budget.admit(route, asAttached, rules.matches.length);
    const admitted = attachmentResult === asAttached;
    if (admitted) admittedRoutes.add(route);
    // A route met before stays where it was placed unless the budget now admits or refuses it.
    if (known === undefined) {
      if (placesMatches(route, work, admitted)) placement.add(work.attachment.hostsByBinding, rules.matches);
    } else if (last!.admitted.has(route) !== admitted) {
      if (placesMatches(route, work, admitted)) placement.add(work.attachment.hostsByBinding, rules.matches);
      else if (placesMatches(route, known, true)) placement.remove(known.attachment.hostsByBinding, known.rules.matches);
    }
    if (known !== undefined && last !== undefined && last.admitted.has(route) !== admitted) touch(touched, asAttached);
    if (!admitted) report(Reason.NamespaceRouteBudgetExceeded, attachmentResult.parents[0]?.refusal?.message ?? '');
    if (withRoutePolicies && (route.kind === 'HTTPRoute' || route.kind === 'GRPCRoute')) {
      const gatewayKeys = new Set(attachmentResult.parents.map((p) => `${namespaceOf(p.gateway.metadata)}/${p.gateway.metadata.name}`));
      if (gatewayKeys.size > 0) gatewaysByRoute.set(policyRouteKey(route.kind, namespaceOf(route.metadata), route.metadata.name), gatewayKeys);
    }
    if (withPolicies) for (const service of rules.services) {
      let set = gatewaysByService.get(service);
      if (set === undefined) gatewaysByService.set(service, (set = new Set()));
      for (const parent of attachmentResult.parents) set.add(`${namespaceOf(parent.gateway.metadata)}/${parent.gateway.metadata.name}`);
    }
    const routeKey = work.key;
    for (const parent of attachmentResult.parents) {
      for (const { listener } of parent.listeners) countAttached(attached, listener, routeKey);
      for (const listener of parent.attachedUnserved) countAttached(attached, listener, routeKey);
    }
    routeStatuses.push({ key: work.key, value: admitted ? work.status : routeStatus(refOf(route), generationOf(route), attachmentResult, rules.problems, controllerName) });
    // A route served nowhere adds nothing to the data plane (nor diagnostics about its rules).
    if (attachmentResult.hostsByBinding.size === 0) continue;
    for (const problem of rules.problems) report(problem.reason, problem.message);
    for (const cluster of rules.clusters) clusters.set(cluster.name, cluster);
    for (const service of rules.services) referenced.add(service);
    if (rules.stream !== undefined && (route.kind === 'TLSRoute' || route.kind === 'TCPRoute')) {
      // TLSRoute, TCPRoute: TCP proxy chains on their listeners, not HTTP matches.
      chains.place(route, attachmentResult.parents.flatMap((p) => p.listeners), rules.stream, report);
      continue;
    }
  }

  // Routes gone or replaced since the last translation: their hosts' virtual hosts are made again too.
  if (last !== undefined) {
    for (const [route, work] of last.routes) {
      if (routeWork.has(route)) continue;
      touch(touched, work.attachment);
      if (placesMatches(route, work, last.admitted.has(route))) placement.remove(work.attachment.hostsByBinding, work.rules.matches);
    }
    // Routes made again for a changed Service: their last placement goes, as a replaced route's.
    for (const [route, work] of last.redone ?? []) {
      touch(touched, work.attachment);
      if (placesMatches(route, work, last.admitted.has(route))) placement.remove(work.attachment.hostsByBinding, work.rules.matches);
    }
  }
  const virtualHosts: VirtualHostReuse = { previous: last?.virtualHosts, touched: last === undefined ? undefined : touched, made: new Map() };
  const byKey = (a: { ref: ObjectRef }, b: { ref: ObjectRef }): number => compareStrings(refKey(a.ref), refKey(b.ref));
  const keyed = (ref: ObjectRef): { key: string; value: ObjectRef } => ({ key: refKey(ref), value: ref });
  const served = sortedKeyed([...gateways.map((g) => keyed(refOf(g))), ...listenerSets.all.map((p) => keyed(refOf(p.set))), ...servedRoutes]);
  const gatewayStatuses = new Map(
    gateways.map((g) => {
      const sets = (listenerSets.taken.get(g) ?? []).map((set) => ({ set, verdicts: verdicts.get(set) ?? [] }));
      // Attached: taken and with a listener served (Accepted), as listenerSetStatus says.
      const attachedSets = sets.filter((s) => s.verdicts.some((v) => v.accepted !== undefined)).length;
      return [g, gatewayStatus(g, verdicts.get(g) ?? [], attached, { addresses: bindings.addresses(g), problem: bindings.addressProblem(g) }, clientCertificates.get(g), attachedSets)];
    }),
  );
  const translation: GatewayApiTranslation = {
    listeners: joinIrListeners(accepted, placement.byBinding, chains, virtualHosts),
    clusters: [...clusters.values()].map((c) => sameCluster(c, last)).sort((a, b) => compareStrings(a.name, b.name)),
    diagnostics,
    served,
    services: [...new Set([...referenced, ...bindings.services, ...routePolicies.services])].sort(compareStrings),
    secrets: [
      ...new Map([
        ...accepted.flatMap((l) => (l.certificate === undefined ? [] : [[l.certificate.name, l.certificate] as const])),
        // Client certificates only where a TLS cluster presents them.
        ...[...clusters.values()].flatMap((c) => {
          const name = c.upstreamTls?.clientCertificate;
          const found = name === undefined ? undefined : [...clientCertificates.values()].find((r) => 'certificate' in r && r.certificate.name === name);
          return found !== undefined && 'certificate' in found ? [[found.certificate.name, found.certificate] as const] : [];
        }),
      ]).values(),
    ].sort((a, b) => compareStrings(a.name, b.name)),
    secretNames: [...new Set([...secretNames, ...clientCertificateSecrets, ...backendTlsPolicies.secrets, ...routePolicies.secrets])].sort(compareStrings),
    basicAuthUsers: routePolicies.basicAuthUsers,
    certificateAuthorities: [
      ...new Map([
        // Only the CAs a served cluster verifies with.
        ...backendTlsPolicies.certificateAuthorities.filter((ca) => [...clusters.values()].some((c) => c.upstreamTls?.verify?.certificateAuthority === ca.name)).map((ca) => [ca.name, ca] as const),
        ...accepted.flatMap((l) => (l.certificateAuthority === undefined ? [] : [[l.certificateAuthority.name, l.certificateAuthority] as const])),
      ]).values(),
    ].sort((a, b) => compareStrings(a.name, b.name)),
    configMapNames: [...new Set([...backendTlsPolicies.configMaps, ...configMapNames, ...bindings.configMaps])].sort(compareStrings),
    status: {
      gatewayClasses: classes.status,
      gateways: [...gatewayStatuses.values()].sort(byKey),
      ...(listenerSets.all.length === 0
        ? {}
        : { listenerSets: listenerSets.all.map(({ set, gateway, notAllowed }) => listenerSetStatus(set, verdicts.get(set) ?? [], attached, notAllowed, gatewayStatuses.get(gateway))).sort(byKey) }),
      routes: sortedKeyed(routeStatuses),
      ...(!withPolicies ? {} : { backendTlsPolicies: backendTlsPolicies.status(gatewaysByService, controllerName) }),
      ...(!withRoutePolicies ? {} : { routePolicies: routePolicies.status(gatewaysByRoute, controllerName) }),
    },
  };
  recordWork(translation, { options, context, byBinding: placement.byBinding, routes: routeWork, admitted: admittedRoutes, virtualHosts: virtualHosts.made, clusters: new Map(translation.clusters.map((c) => [c.name, c])) });
  return translation;
}

/** Whether a route's matches are on its hosts (ir-listeners.ts): ours, within its namespace's budget, served somewhere, HTTP. */
function placesMatches(route: AttachableRoute, work: RouteWork, admitted: boolean): boolean {
  return work.attachment.ours && admitted && work.attachment.hostsByBinding.size > 0 && !(work.rules.stream !== undefined && (route.kind === 'TLSRoute' || route.kind === 'TCPRoute'));
}

function countAttached(attached: Map<AcceptedListener, Set<string>>, listener: AcceptedListener, routeKey: string): void {
  let set = attached.get(listener);
  if (set === undefined) attached.set(listener, (set = new Set()));
  set.add(routeKey);
}

/**
 * The last translation's cluster of that name when it is the same data (a changed route's rules make their clusters
 * anew): the same object is not built or encoded again (CDS, EDS), and the cluster list stays the same list.
 */
function sameCluster(cluster: ClusterIR, last: GatewayApiWork | undefined): ClusterIR {
  const previous = last?.clusters.get(cluster.name);
  return previous === undefined || previous === cluster || JSON.stringify(previous) !== JSON.stringify(cluster) ? cluster : previous;
}

/** One route's attachment (with the problems it reported), rules and status: what depends on the route alone. */
function translateRoute(route: AttachableRoute, kind: RouteKind, context: GatewayContext, routePolicies: RoutePolicyLookup): RouteWork {
  const attachmentProblems: [string, string][] = [];
  const attachment = attachRoute(route, context.attachment, (reason, message) => attachmentProblems.push([reason, message]));
  // A route's backends present the client certificate of its first Gateway (parentRef order) that has one: its
  // rules are translated once for all its parents.
  const clientCertificate = attachment.parents
    .map((p) => context.clientCertificates.get(p.gateway))
    .find((c): c is { certificate: TlsSecretIR } => c !== undefined && 'certificate' in c)?.certificate;
  const routeContext: RouteTranslationContext = {
    services: context.servicesIndex,
    grants: context.grants,
    backendTls: { lookup: context.backendTlsPolicies.lookup, ...(clientCertificate === undefined ? {} : { clientCertificate: clientCertificate.name }) },
    routePolicies,
  };
  // Not ours: neither rules nor status (the loop skips it).
  const key = refKey(refOf(route));
  if (!attachment.ours) return { key, attachment, attachmentProblems, rules: noRules, status: { ref: refOf(route), parents: [] } };
  const rules = kind.translate(route, routeContext);
  return { key, attachment, attachmentProblems, rules, status: routeStatus(refOf(route), generationOf(route), attachment, rules.problems, context.controllerName) };
}
