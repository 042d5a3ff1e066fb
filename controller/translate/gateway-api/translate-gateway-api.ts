// The Gateway API translator: GatewayClasses of our controllerName -> their Gateways -> listeners (listeners.ts) ->
// the HTTPRoutes, TLSRoutes and TCPRoutes attached to them, as listeners of the one DataPlaneIR. Pure and
// deterministic. The Gateway HTTP listeners of one port join one IR listener (a plaintext port has one route table,
// envoy/build-resources.ts), with a virtual host per host name; so do the HTTPS and TLS listeners of one port, with
// a TLS server (filter chain) per HTTPS listener and the TLSRoutes' TCP proxies by SNI (l4-routes.ts); a TCP
// listener is an IR listener of its own.
import {
  type ClusterIR,
  type ListenerIR,
  type RouteActionIR,
  type RouteIR,
  type RoutePolicyIR,
  type SourceRef,
  type TlsSecretIR,
  compareStrings,
  compareVirtualHosts,
} from '../../../ir/index.js';
import { indexServices } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import {
  type ClusterState,
  type HTTPRoute,
  type HTTPRouteMatch,
  type ObjectRef,
  type ReferenceGrant,
  objectsOf,
  refKey,
  refOf,
} from '../shared/kube-objects.js';
import { type TranslateOptions, defaultGatewayControllerName } from '../shared/options.js';
import { compareByAge } from '../shared/ordering.js';
import { gatewayGroup, resolveRuleBackends } from './backend-refs.js';
import { translateFilters } from './route-filters.js';
import { claimedByMoreSpecific, hostnameError, intersectHostnames } from './hostname-intersection.js';
import { translateL4Routes } from './l4-routes.js';
import { type AcceptedListener, allowsRoute, selectListeners } from './listeners.js';
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
  /** Our Gateways and the routes whose parentRefs name one of them, sorted by kind/namespace/name. */
  served: ObjectRef[];
  /** `namespace/name` of every Service a served route's backendRefs name, sorted. */
  services: string[];
  /** The certificates of the terminating listeners (SDS), sorted by name. */
  secrets: TlsSecretIR[];
  /** `namespace/name` of every Secret a listener's certificateRefs name (permitted ones), sorted. */
  secretNames: string[];
}

/** IR listener name of the Gateway HTTP listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayHttpListenerName(port: number): string {
  return `gateway/http/${port}`;
}

/** IR listener name of the Gateway HTTPS and TLS listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayTlsListenerName(port: number): string {
  return `gateway/tls/${port}`;
}

/** IR listener name of the Gateway TCP listener on `port`. */
export function gatewayTcpListenerName(port: number): string {
  return `gateway/tcp/${port}`;
}

/** The IR listener an HTTP or HTTPS Gateway listener's routes are served on. */
function routeListenerName(l: AcceptedListener): string {
  return l.protocol === 'HTTP' ? gatewayHttpListenerName(l.listener.port) : gatewayTlsListenerName(l.listener.port);
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
  const grants = objectsOf(state, 'ReferenceGrant');
  const selection = selectListeners(gateways, state.secrets, grants, options);
  for (const p of selection.problems) diagnostics.push({ object: refOf(p.gateway), severity: 'Warning', reason: p.reason, message: p.message });
  // HTTPRoutes attach to HTTP and HTTPS listeners (allowsRoute); TLSRoutes and TCPRoutes to TLS and TCP ones (l4-routes.ts).
  const listeners = selection.accepted;

  const services = indexServices(state.services);
  const clusters = new Map<string, ClusterIR>();
  const referenced = new Set<string>();
  const servedRoutes: HTTPRoute[] = [];
  // Per IR listener, per host name: the matches served there, and which route/rule/match each is (a route attached
  // through two listeners to one host is served there once).
  const byPort = new Map<string, Map<string, Map<string, PlacedMatch>>>();
  const gatewayKeys = new Map(gateways.map((g) => [`${namespaceOf(g.metadata)}/${g.metadata.name}`, g]));

  for (const route of [...objectsOf(state, 'HTTPRoute')].sort(compareByAge)) {
    const routeNamespace = namespaceOf(route.metadata);
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(route), severity: 'Warning', reason, message });
    };
    const badHostnames = (route.spec?.hostnames ?? []).filter((h) => hostnameError(h) !== undefined);
    for (const h of badHostnames) report(GatewayReason.InvalidHostname, hostnameError(h) ?? '');
    const routeHostnames = (route.spec?.hostnames ?? []).filter((h) => hostnameError(h) === undefined);
    // Hosts per IR listener this route serves, across its parentRefs.
    const hostsByPort = new Map<string, Set<string>>();
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
      const allowed = candidates.filter((l) => allowsRoute(l, 'HTTPRoute', routeNamespace));
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
        let set = hostsByPort.get(routeListenerName(l));
        if (set === undefined) hostsByPort.set(routeListenerName(l), (set = new Set()));
        for (const h of hosts) set.add(h);
      }
      if (!attached) report(GatewayReason.NoMatchingListenerHostname, `${where}: none of the route's hostnames meets the listener's`);
    }
    if (!ours) continue;
    servedRoutes.push(route);
    if (hostsByPort.size === 0) continue;

    const placed = translateRoute(route, services, grants, clusters, referenced, report);
    for (const [port, hosts] of hostsByPort) {
      let portHosts = byPort.get(port);
      if (portHosts === undefined) byPort.set(port, (portHosts = new Map()));
      for (const host of hosts) {
        let matches = portHosts.get(host);
        if (matches === undefined) portHosts.set(host, (matches = new Map()));
        for (const m of placed) matches.set(m.ir.name, m);
      }
    }
  }

  const l4 = translateL4Routes(objectsOf(state, 'TLSRoute'), objectsOf(state, 'TCPRoute'), gatewayKeys, listeners, services, grants, diagnostics);
  for (const cluster of l4.clusters) clusters.set(cluster.name, cluster);
  for (const service of l4.services) referenced.add(service);

  const irListeners: ListenerIR[] = [];
  const sourcesOf = (onPort: readonly AcceptedListener[]): SourceRef[] => {
    const sources: SourceRef[] = [];
    for (const l of onPort) if (!sources.some((s) => s.namespace === namespaceOf(l.gateway.metadata) && s.name === l.gateway.metadata.name)) sources.push(refOf(l.gateway));
    return sources;
  };
  const tableOf = (name: string) => ({
    name,
    virtualHosts: [...(byPort.get(name) ?? new Map<string, Map<string, PlacedMatch>>())]
      .map(([host, matches]) => ({
        name: host,
        hostnames: [host],
        routes: [...matches.values()].sort(compareMatches).map((m) => m.ir),
        wildcardLabels: 'one-or-more' as const,
      }))
      .sort(compareVirtualHosts),
  });
  const ports = [...new Set(listeners.map((l) => l.listener.port))].sort((a, b) => a - b);
  for (const port of ports) {
    // Listeners on one port share a protocol family (listeners.ts refuses the others).
    const onPort = listeners.filter((l) => l.listener.port === port);
    const sources = sourcesOf(onPort);
    const first = onPort[0] as AcceptedListener;
    if (first.protocol === 'HTTP') {
      const name = gatewayHttpListenerName(port);
      irListeners.push({ name, port, protocol: 'HTTP', routeTable: tableOf(name), routeConfiguration: name, sources });
    } else if (first.protocol === 'TCP') {
      const tcpChains = onPort.flatMap((l) => l4.chains.get(l) ?? []);
      irListeners.push({ name: gatewayTcpListenerName(port), port, protocol: 'TCP', ...(tcpChains.length > 0 ? { tcpChains } : {}), sources });
    } else {
      const name = gatewayTlsListenerName(port);
      const https = onPort.filter((l) => l.protocol === 'HTTPS');
      const tcpChains = onPort.flatMap((l) => l4.chains.get(l) ?? []);
      irListeners.push({
        name,
        port,
        ...(https.length > 0
          ? {
              protocol: 'HTTPS' as const,
              routeTable: tableOf(name),
              routeConfiguration: name,
              tlsServers: https.map((l) => ({
                name: `gateway/${namespaceOf(l.gateway.metadata)}/${l.gateway.metadata.name}/${l.listener.name}`,
                serverNames: l.hostname === undefined ? [] : [l.hostname],
                secret: (l.certificate as TlsSecretIR).name,
              })),
            }
          : { protocol: 'TLS' as const }),
        ...(tcpChains.length > 0 ? { tcpChains } : {}),
        sources,
      });
    }
  }
  const secrets = new Map<string, TlsSecretIR>();
  for (const l of listeners) if (l.certificate !== undefined) secrets.set(l.certificate.name, l.certificate);

  const served = [...gateways.map(refOf), ...servedRoutes.map(refOf), ...l4.served.map(refOf)].sort((a, b) => compareStrings(refKey(a), refKey(b)));
  return {
    listeners: irListeners,
    clusters: [...clusters.values()].sort((a, b) => compareStrings(a.name, b.name)),
    diagnostics,
    served,
    services: [...referenced].sort(compareStrings),
    secrets: [...secrets.values()].sort((a, b) => compareStrings(a.name, b.name)),
    secretNames: selection.secrets,
  };
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
    const refs = rule.backendRefs ?? [];
    // Every Service named, also in another namespace (a grant that comes later makes it served).
    for (const ref of refs) if ((ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '') referenced.add(`${ref.namespace ?? namespace}/${ref.name}`);
    const matches: { m: number; match: HTTPRouteMatch; ir: MatchIR }[] = [];
    for (const [m, match] of (rule.matches === undefined || rule.matches.length === 0 ? [defaultMatch] : rule.matches).entries()) {
      const translated = translateMatch(match);
      if (translated.valid) matches.push({ m, match, ir: translated.match });
      else report(GatewayReason.UnsupportedValue, `rule ${r} match ${m}: ${translated.error}; this match is not served`);
    }
    const filters = translateFilters(rule.filters ?? [], matches.map((x) => x.ir.path));
    let action: RouteActionIR;
    let policy: RoutePolicyIR | undefined;
    if (!filters.valid) {
      report(GatewayReason.UnsupportedFilter, `rule ${r}: ${filters.error}; the rule answers 500`);
      action = { kind: 'direct', status: 500 };
    } else if (filters.redirect !== undefined) {
      // A redirect answers every request of the rule itself: its backendRefs are not used.
      action = filters.redirect;
    } else {
      const backends = resolveRuleBackends(refs, namespace, services, grants);
      for (const problem of backends.invalid) report(problem.reason, `rule ${r}: ${problem.message}`);
      for (const cluster of backends.clusters) clusters.set(cluster.name, cluster);
      action = backends.action;
      if (action.kind === 'forward' && Object.keys(filters.policy).length > 0) policy = filters.policy;
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
