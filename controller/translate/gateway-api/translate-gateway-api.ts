// The Gateway API translator: GatewayClasses of our controllerName -> their Gateways -> listeners (HTTP so far) ->
// the HTTPRoutes attached to them, as listeners of the one DataPlaneIR. Pure and deterministic. Every Gateway HTTP
// listener on one port joins one IR listener (a plaintext port has one route table, envoy/build-resources.ts),
// with a virtual host per host name.
import {
  type ClusterIR,
  type ListenerIR,
  type RouteActionIR,
  type RouteIR,
  type RoutePolicyIR,
  type SourceRef,
  type VirtualHostIR,
  catchAllHost,
  compareStrings,
  compareVirtualHosts,
} from '../../../ir/index.js';
import { indexServices } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import {
  type ClusterState,
  type Gateway,
  type GatewayListener,
  type HTTPRoute,
  type HTTPRouteMatch,
  type ObjectRef,
  type ReferenceGrant,
  objectsOf,
  refKey,
  refOf,
} from '../shared/kube-objects.js';
import { type TranslateOptions, defaultGatewayControllerName, defaultListenerPorts } from '../shared/options.js';
import { compareByAge } from '../shared/ordering.js';
import { gatewayGroup, resolveBackendRef, resolveRuleBackends } from './backend-refs.js';
import { redirectOnListener, translateFilters } from './route-filters.js';
import { translateRulePolicy } from './rule-policy.js';
import { claimedByMoreSpecific, hostnameError, intersectHostnames } from './hostname-intersection.js';
import { GatewayReason } from './reasons.js';
import { type MatchIR, defaultMatch, translateMatch } from './route-matches.js';
import { type RankedMatch, compareMatches } from './route-precedence.js';

export { gatewayGroup };

export interface GatewayApiTranslation {
  listeners: ListenerIR[];
  /** Sorted by name. */
  clusters: ClusterIR[];
  /** In the order found; the orchestrator sorts them by object. */
  diagnostics: Diagnostic[];
  /** Our Gateways and the HTTPRoutes that attach to one of them, sorted by kind/namespace/name. */
  served: ObjectRef[];
  /** `namespace/name` of every Service a served route's backendRefs name, sorted. */
  services: string[];
}

/** IR listener name of the Gateway HTTP listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayHttpListenerName(port: number): string {
  return `gateway/http/${port}`;
}

/** A Gateway listener that is served: the Gateway it belongs to and its index there. */
interface AcceptedListener {
  gateway: Gateway;
  listener: GatewayListener;
  /** Lower-cased; absent: every host. */
  hostname: string | undefined;
}

/** One match of one rule of one route, ready to be ranked and placed on its hosts. */
interface PlacedMatch extends RankedMatch {
  route: HTTPRoute;
  ir: RouteIR;
}

export function translateGatewayApi(state: ClusterState, options: TranslateOptions): GatewayApiTranslation {
  const diagnostics: Diagnostic[] = [];
  const controllerName = options.gatewayControllerName ?? defaultGatewayControllerName;
  const ourClasses = new Set(
    objectsOf(state, 'GatewayClass')
      .filter((c) => c.spec?.controllerName === controllerName)
      .map((c) => c.metadata.name),
  );
  // Oldest first: a port's hostname belongs to the first listener to claim it.
  const gateways = objectsOf(state, 'Gateway')
    .filter((g) => g.spec?.gatewayClassName !== undefined && ourClasses.has(g.spec.gatewayClassName))
    .sort(compareByAge);
  const listeners = acceptListeners(gateways, options, diagnostics);

  const services = indexServices(state.services);
  const clusters = new Map<string, ClusterIR>();
  const referenced = new Set<string>();
  const servedRoutes: HTTPRoute[] = [];
  // Per port, per host name: the matches served there, and which route/rule/match each is (a route attached
  // through two listeners to one host is served there once).
  const byPort = new Map<number, Map<string, Map<string, PlacedMatch>>>();
  const gatewayKeys = new Map(gateways.map((g) => [`${namespaceOf(g.metadata)}/${g.metadata.name}`, g]));

  for (const route of [...objectsOf(state, 'HTTPRoute')].sort(compareByAge)) {
    const routeNamespace = namespaceOf(route.metadata);
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(route), severity: 'Warning', reason, message });
    };
    const badHostnames = (route.spec?.hostnames ?? []).filter((h) => hostnameError(h) !== undefined);
    for (const h of badHostnames) report(GatewayReason.InvalidHostname, hostnameError(h) ?? '');
    const routeHostnames = (route.spec?.hostnames ?? []).filter((h) => hostnameError(h) === undefined);
    // Hosts per port this route serves, across its parentRefs.
    const hostsByPort = new Map<number, Set<string>>();
    let ours = false;
    for (const [i, parent] of (route.spec?.parentRefs ?? []).entries()) {
      if ((parent.group ?? gatewayGroup) !== gatewayGroup || (parent.kind ?? 'Gateway') !== 'Gateway') continue;
      const gateway = gatewayKeys.get(`${parent.namespace ?? routeNamespace}/${parent.name}`);
      // Not one of our Gateways: another controller's business.
      if (gateway === undefined) continue;
      ours = true;
      const where = `parentRef ${i} (Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name})`;
      const candidates = listeners.filter(
        (l) =>
          l.gateway === gateway &&
          (parent.sectionName === undefined || l.listener.name === parent.sectionName) &&
          (parent.port === undefined || l.listener.port === parent.port),
      );
      if (candidates.length === 0) {
        report(GatewayReason.NoMatchingParent, `${where}: the Gateway has no served listener${parent.sectionName === undefined ? '' : ` named ${parent.sectionName}`}${parent.port === undefined ? '' : ` on port ${parent.port}`}`);
        continue;
      }
      const allowed = candidates.filter((l) => allowsRoute(l, routeNamespace));
      if (allowed.length === 0) {
        report(GatewayReason.NotAllowedByListeners, `${where}: the listener's allowedRoutes do not admit an HTTPRoute from namespace ${routeNamespace}`);
        continue;
      }
      let attached = false;
      for (const l of allowed) {
        // Listener isolation: a name another listener on the port serves more specifically is that listener's (a
        // route on a catch-all listener, of any namespace it admits, never joins a host a named listener serves).
        const hosts = intersectHostnames(l.hostname, routeHostnames).filter(
          (host) => !listeners.some((other) => other !== l && other.listener.port === l.listener.port && claimedByMoreSpecific(host, l.hostname, other.hostname)),
        );
        if (hosts.length === 0) continue;
        attached = true;
        let set = hostsByPort.get(l.listener.port);
        if (set === undefined) hostsByPort.set(l.listener.port, (set = new Set()));
        for (const h of hosts) set.add(h);
      }
      if (!attached) report(GatewayReason.NoMatchingListenerHostname, `${where}: none of the route's hostnames meets the listener's`);
    }
    if (!ours) continue;
    servedRoutes.push(route);
    if (hostsByPort.size === 0) continue;

    const placed = translateRoute(route, services, objectsOf(state, 'ReferenceGrant'), clusters, referenced, report);
    for (const [port, hosts] of hostsByPort) {
      let portHosts = byPort.get(port);
      if (portHosts === undefined) byPort.set(port, (portHosts = new Map()));
      for (const host of hosts) {
        let matches = portHosts.get(host);
        if (matches === undefined) portHosts.set(host, (matches = new Map()));
        for (const m of placed) matches.set(m.ir.name, onListener(m, port));
      }
    }
  }

  const irListeners: ListenerIR[] = [];
  const ports = [...new Set(listeners.map((l) => l.listener.port))].sort((a, b) => a - b);
  for (const port of ports) {
    const name = gatewayHttpListenerName(port);
    const virtualHosts: VirtualHostIR[] = [...(byPort.get(port) ?? new Map<string, Map<string, PlacedMatch>>())]
      .map(([host, matches]) => ({
        name: host,
        hostnames: [host],
        routes: [...matches.values()].sort(compareMatches).map((m) => m.ir),
        wildcardLabels: 'one-or-more' as const,
      }))
      .sort(compareVirtualHosts);
    const sources: SourceRef[] = [];
    for (const l of listeners) {
      if (l.listener.port !== port) continue;
      if (!sources.some((s) => s.namespace === namespaceOf(l.gateway.metadata) && s.name === l.gateway.metadata.name)) sources.push(refOf(l.gateway));
    }
    // The CORS filter always: a route's CORS filter (a common first change) then updates the routes, not the listener.
    irListeners.push({ name, port, protocol: 'HTTP', routeTable: { name, virtualHosts, corsFilter: 'always' }, routeConfiguration: name, sources });
  }

  const served = [...gateways.map(refOf), ...servedRoutes.map(refOf)].sort((a, b) => compareStrings(refKey(a), refKey(b)));
  return {
    listeners: irListeners,
    clusters: [...clusters.values()].sort((a, b) => compareStrings(a.name, b.name)),
    diagnostics,
    served,
    services: [...referenced].sort(compareStrings),
  };
}

/** The listeners served: HTTP, valid hostname, not on an Ingress port, not claiming a port's hostname twice. */
function acceptListeners(gateways: readonly Gateway[], options: TranslateOptions, diagnostics: Diagnostic[]): AcceptedListener[] {
  const ingressPorts = options.listenerPorts ?? defaultListenerPorts;
  const claimed = new Map<string, string>();
  const accepted: AcceptedListener[] = [];
  for (const gateway of gateways) {
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(gateway), severity: 'Warning', reason, message });
    };
    for (const listener of gateway.spec?.listeners ?? []) {
      const where = `listener ${listener.name} (port ${listener.port})`;
      if (listener.protocol !== 'HTTP') {
        report(GatewayReason.UnsupportedProtocol, `${where}: protocol ${listener.protocol} is not supported yet; only HTTP listeners are served`);
        continue;
      }
      // Ingress keeps its ports: one plaintext port has one route table, and sharing it is later work.
      if (listener.port === ingressPorts.http || listener.port === ingressPorts.https) {
        report(GatewayReason.PortUnavailable, `${where}: port ${listener.port} is the Ingress listeners' (--http-port, --https-port); choose another port`);
        continue;
      }
      if (listener.hostname !== undefined) {
        const error = hostnameError(listener.hostname);
        if (error !== undefined) {
          report(GatewayReason.InvalidHostname, `${where}: ${error}`);
          continue;
        }
      }
      const hostname = listener.hostname?.toLowerCase();
      const key = `${listener.port}/${hostname ?? catchAllHost}`;
      const owner = claimed.get(key);
      if (owner !== undefined) {
        report(GatewayReason.HostnameConflict, `${where}: hostname ${hostname ?? '(any)'} on port ${listener.port} is already served by ${owner}`);
        continue;
      }
      claimed.set(key, `Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name} listener ${listener.name}`);
      accepted.push({ gateway, listener, hostname });
    }
  }
  return accepted;
}

/** A match as served on a port: a redirect takes the listener's port and scheme where it names none (the spec). */
function onListener(m: PlacedMatch, port: number): PlacedMatch {
  if (m.ir.action.kind !== 'redirect') return m;
  return { ...m, ir: { ...m.ir, action: redirectOnListener(m.ir.action, { port, scheme: 'http' }) } };
}

/** Whether a listener's allowedRoutes admit an HTTPRoute from `namespace` (Same by default, as the spec says). */
function allowsRoute(l: AcceptedListener, namespace: string): boolean {
  const kinds = l.listener.allowedRoutes?.kinds;
  if (kinds !== undefined && kinds.length > 0 && !kinds.some((k) => (k.group ?? gatewayGroup) === gatewayGroup && k.kind === 'HTTPRoute')) return false;
  const from = l.listener.allowedRoutes?.namespaces?.from ?? 'Same';
  if (from === 'All') return true;
  if (from === 'Same') return namespace === namespaceOf(l.gateway.metadata);
  // Selector needs the Namespace objects' labels, which are not read yet: it admits none (safe for tenants).
  return false;
}

/** The route's matches as IR routes, one per rule and match, with what the precedence reads. */
function translateRoute(
  route: HTTPRoute,
  services: ReturnType<typeof indexServices>,
  grants: readonly ReferenceGrant[],
  clusters: Map<string, ClusterIR>,
  referenced: Set<string>,
  report: (reason: string, message: string) => void,
): PlacedMatch[] {
  const namespace = namespaceOf(route.metadata);
  const placed: PlacedMatch[] = [];
  for (const [r, rule] of (route.spec?.rules ?? []).entries()) {
    // A named rule (rules[].name) is called by its name too in what is reported.
    const ruleName = rule.name === undefined ? `rule ${r}` : `rule ${r} (${rule.name})`;
    const refs = rule.backendRefs ?? [];
    // Every Service named, also in another namespace (a grant that comes later makes it served).
    const mirrorRefs = (rule.filters ?? []).flatMap((f) => (f.type === 'RequestMirror' && f.requestMirror !== undefined ? [f.requestMirror.backendRef] : []));
    for (const ref of [...refs, ...mirrorRefs]) if ((ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '') referenced.add(`${ref.namespace ?? namespace}/${ref.name}`);
    const matches: { m: number; match: HTTPRouteMatch; ir: MatchIR }[] = [];
    for (const [m, match] of (rule.matches === undefined || rule.matches.length === 0 ? [defaultMatch] : rule.matches).entries()) {
      const translated = translateMatch(match);
      if (translated.valid) matches.push({ m, match, ir: translated.match });
      else report(GatewayReason.UnsupportedValue, `${ruleName} match ${m}: ${translated.error}; this match is not served`);
    }
    const filters = translateFilters(rule.filters ?? [], matches.map((x) => x.ir.path), {
      resolveBackend: (ref) => resolveBackendRef(ref, namespace, services, grants),
    });
    const rulePolicy = translateRulePolicy(rule);
    let action: RouteActionIR;
    let policy: RoutePolicyIR | undefined;
    if (!filters.valid) {
      report(GatewayReason.UnsupportedFilter, `${ruleName}: ${filters.error}; the rule answers 500`);
      action = { kind: 'direct', status: 500 };
    } else if (!rulePolicy.valid) {
      report(GatewayReason.UnsupportedValue, `${ruleName}: ${rulePolicy.error}; the rule answers 500`);
      action = { kind: 'direct', status: 500 };
    } else if (filters.redirect !== undefined) {
      // A redirect answers every request of the rule itself: its backendRefs are not used.
      action = filters.redirect;
    } else {
      const backends = resolveRuleBackends(refs, namespace, services, grants);
      for (const problem of backends.invalid) report(problem.reason, `${ruleName}: ${problem.message}`);
      for (const problem of filters.invalid) report(problem.reason, `${ruleName}: ${problem.message}`);
      for (const cluster of backends.clusters) clusters.set(cluster.name, cluster);
      action = backends.action;
      const combined: RoutePolicyIR = { ...filters.policy, ...rulePolicy.policy, ...(backends.websocket ? { websocket: true as const } : {}) };
      if (action.kind === 'forward') {
        for (const cluster of filters.clusters) clusters.set(cluster.name, cluster);
        if (Object.keys(combined).length > 0) policy = combined;
      }
    }
    for (const { m, match, ir: translated } of matches) {
      const { path, headers, queryParams, rankedPath } = translated;
      const ir: RouteIR = {
        name: `httproute/${namespace}/${route.metadata.name}/rule/${r}/match/${m}`,
        match: path,
        ...(headers.length > 0 ? { headers } : {}),
        ...(queryParams.length > 0 ? { queryParams } : {}),
        action,
        source: refOf(route),
        rulePath: { rule: r, path: m },
        ...(policy === undefined ? {} : { policy }),
      };
      placed.push({
        path: rankedPath,
        method: match.method !== undefined,
        headers: headers.length - (match.method !== undefined ? 1 : 0),
        queryParams: queryParams.length,
        route,
        rule: r,
        match: m,
        ir,
      });
    }
  }
  return placed;
}
