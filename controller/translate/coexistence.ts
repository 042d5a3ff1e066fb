// Ingress and Gateway API on one port: in shared mode (no addresses of their own for Gateways), a Gateway HTTP
// listener on the Ingress HTTP port (--http-port) joins the Ingress HTTP listener, and Gateway HTTPS listeners with a
// hostname on the Ingress HTTPS port (--https-port) join the Ingress HTTPS listener, instead of being refused. Their
// virtual hosts go into the Ingress route tables; a host name both claim on a port belongs to the OLDER claimant (the
// oldest Ingress routing it vs the oldest HTTPRoute served on it; creationTimestamp, then namespace/name), the
// other's routes for that host are not served there, and on HTTPS the keeper's certificate (filter chain) serves
// the name. Both are told: a diagnostic (an Event) on every Ingress routing the host, a diagnostic and a route
// condition (`envoy-ingress.io/HostSharedWithIngress`) on every HTTPRoute. The same rule as between Ingress
// namespaces (ingress/host-ownership.ts): the first to claim a host keeps it, so no tenant takes over another's
// host by creating an object. A host moving from one side to the other is a route table change (RDS); a Gateway
// chain takes the Ingress chain's name (`https/HOST`), so with the same Secret the listener does not change at all
// and no connection is drained. Pure; translate.ts calls it with both translators' results.
import { type ListenerIR, type RouteTableIR, type SourceRef, type TlsServerIR, type VirtualHostIR, catchAllHost, compareStrings, compareVirtualHosts } from '../../ir/index.js';
import { misdirectedHostPrefix } from './gateway-api/ir-listeners.js';
import type { GatewayApiStatus, RouteStatusData } from './gateway-api/status-data.js';
import { ingressHttpListenerName, ingressHttpsListenerName, ingressRouteConfigurationName } from './ingress/ingress-listeners.js';
import { defaultCertificateChainName, httpsName, httpsRouteTableName } from './ingress/translate-ingresses.js';
import type { Diagnostic } from './shared/diagnostics.js';
import { namespaceOf } from './shared/kinds.js';
import { type ClusterState, type ObjectMeta, objectsOf, refKey } from './shared/kube-objects.js';
import { compareByAge } from './shared/ordering.js';
import { GatewayReason, Reason } from './shared/reasons.js';

/** The route condition type telling an HTTPRoute that a host it asks for is (also) an Ingress's on that port. */
export const hostSharedConditionType = 'envoy-ingress.io/HostSharedWithIngress';

export interface SharedPortJoin {
  listeners: ListenerIR[];
  diagnostics: Diagnostic[];
  status: GatewayApiStatus;
}

/** The distinct objects (kind/namespace/name) that routes of `vhost` come from. */
function sourcesOf(vhost: VirtualHostIR): SourceRef[] {
  const seen = new Map<string, SourceRef>();
  for (const route of vhost.routes) if (route.source !== undefined) seen.set(refKey(route.source), route.source);
  return [...seen.values()];
}

/** Who keeps which shared host of one port's route tables, and what each side is told. */
interface HostClaims {
  lostByIngress: Set<string>;
  lostByRoutes: Set<string>;
  diagnostics: Diagnostic[];
  /** Per HTTPRoute key: its host lines for the route condition. */
  routeNotes: Map<string, string[]>;
}

type Ages = (refs: readonly SourceRef[]) => { metadata: ObjectMeta } | undefined;

/**
 * The Ingresses behind each host name of the Ingress listeners, from every Ingress table: a TLS host's plain-HTTP
 * virtual host is the https redirect, whose routes name no Ingress; the host's Ingresses are those of its TLS side.
 */
function ingressesByHost(ingressListeners: readonly ListenerIR[]): Map<string, SourceRef[]> {
  const byHost = new Map<string, Map<string, SourceRef>>();
  for (const listener of ingressListeners) {
    for (const vhost of listener.routeTable?.virtualHosts ?? []) {
      const refs = byHost.get(vhost.name) ?? new Map<string, SourceRef>();
      for (const ref of sourcesOf(vhost)) if (ref.kind === 'Ingress') refs.set(refKey(ref), ref);
      byHost.set(vhost.name, refs);
    }
  }
  return new Map([...byHost].map(([host, refs]) => [host, [...refs.values()].sort((a, b) => compareStrings(refKey(a), refKey(b)))]));
}

/** The older-claimant rule on one port: the Ingress table's hosts against the Gateway table's. */
function settleHosts(
  ingressTable: RouteTableIR,
  gatewayTable: RouteTableIR | undefined,
  port: number,
  ingressesOf: ReadonlyMap<string, SourceRef[]>,
  oldest: Ages,
  into: HostClaims,
  /** More names the Ingress side serves on the port outside its table (ssl-passthrough). */
  alsoIngress: readonly string[] = [],
): void {
  const ingressHosts = new Set([...ingressTable.virtualHosts.map((v) => v.name), ...alsoIngress]);
  for (const vhost of gatewayTable?.virtualHosts ?? []) {
    if (!ingressHosts.has(vhost.name)) continue;
    const ingresses = ingressesOf.get(vhost.name) ?? [];
    const routes = sourcesOf(vhost).filter((s) => s.kind === 'HTTPRoute');
    // The Ingress side's catch-all with no Ingress behind it (the 404 page) is no claim.
    if (ingresses.length === 0 && vhost.name === catchAllHost) {
      into.lostByIngress.add(vhost.name);
      continue;
    }
    // Any other name the Ingress side serves is its claim; one whose Ingresses cannot be told apart (none named)
    // stays with the Ingress side: the incumbent keeps a host unless the route is shown to be older.
    const oldestIngress = oldest(ingresses);
    const oldestRoute = oldest(routes);
    const ingressKeeps = oldestRoute === undefined || oldestIngress === undefined || compareByAge(oldestIngress, oldestRoute) <= 0;
    const keeper = ingressKeeps ? (ingresses.length === 0 ? 'the Ingress side' : `Ingress ${ingresses.map((r) => `${r.namespace}/${r.name}`).join(', ')}`) : `HTTPRoute ${routes.map((r) => `${r.namespace}/${r.name}`).join(', ')}`;
    const line = `host ${vhost.name} on port ${port} is claimed by Ingress and HTTPRoute alike; the older keeps it: ${keeper}`;
    if (ingressKeeps) into.lostByRoutes.add(vhost.name);
    else into.lostByIngress.add(vhost.name);
    for (const ref of ingresses) {
      into.diagnostics.push({
        object: { kind: 'Ingress', namespace: ref.namespace, name: ref.name },
        severity: 'Warning',
        reason: Reason.HostSharedWithHTTPRoute,
        message: `${line}${ingressKeeps ? '' : '; this Ingress\'s rules for it are not served on that port'}`,
      });
    }
    for (const ref of routes) {
      into.diagnostics.push({
        object: { kind: 'HTTPRoute', namespace: ref.namespace, name: ref.name },
        severity: 'Warning',
        reason: GatewayReason.HostSharedWithIngress,
        message: `${line}${ingressKeeps ? '; this route is not served for it there' : ''}`,
      });
      const key = refKey(ref);
      into.routeNotes.set(key, [...(into.routeNotes.get(key) ?? []), `${vhost.name} on port ${port}: ${ingressKeeps ? 'IngressOwnsHost' : 'RouteOwnsHost'}`]);
    }
  }
}

/** One port's table with each side's lost hosts left out. */
function joinedTable(name: string, ingressTable: RouteTableIR, gatewayTable: RouteTableIR | undefined, lostByIngress: ReadonlySet<string>, lostByRoutes: ReadonlySet<string>): RouteTableIR {
  return {
    name,
    virtualHosts: [
      ...ingressTable.virtualHosts.filter((v) => !lostByIngress.has(v.name)),
      ...(gatewayTable?.virtualHosts ?? []).filter((v) => !lostByRoutes.has(v.name)),
    ].sort(compareVirtualHosts),
  };
}

/**
 * The TLS chains of the joined HTTPS listener: the Ingress's, but for hosts the Gateway side took; the Gateway's for
 * names the Ingress side does not claim (by a chain, or by serving the host over TLS with any chain), renamed as the
 * Ingress names a host's chain. Unchanged (the same array) when the Gateway side adds and takes nothing.
 */
function joinedChains(ingress: readonly TlsServerIR[], gateway: readonly TlsServerIR[], passedThrough: readonly string[], ingressVhosts: readonly VirtualHostIR[], lostByIngress: ReadonlySet<string>): readonly TlsServerIR[] {
  const keptIngress = ingress.filter((chain) => !chain.serverNames.some((n) => lostByIngress.has(n)));
  const ingressClaims = new Set([
    ...keptIngress.flatMap((chain) => chain.serverNames),
    // A name the Ingress passes through unterminated (ssl-passthrough) has a chain of its own: no second one.
    ...passedThrough,
    ...ingressVhosts.filter((v) => v.name !== catchAllHost && !lostByIngress.has(v.name)).map((v) => v.name),
  ]);
  const keptGateway = gateway
    .filter((chain) => chain.serverNames.length === 1 && !ingressClaims.has(chain.serverNames[0] as string))
    .map((chain) => ({ ...chain, name: httpsName(chain.serverNames[0] as string) }));
  if (keptGateway.length === 0 && keptIngress.length === ingress.length) return ingress;
  // By name, the default certificate's chain last (as the Ingress translator orders them).
  const isDefault = (chain: TlsServerIR): number => (chain.name === defaultCertificateChainName ? 1 : 0);
  return [...keptIngress, ...keptGateway].sort((a, b) => isDefault(a) - isDefault(b) || compareStrings(a.name, b.name));
}

/**
 * `ingressListeners`: the Ingress translator's listeners; `gatewayListeners`: the Gateway API translator's;
 * `ports`: the Ingress listener ports. Returns the listeners with the Gateway HTTP listener on the Ingress HTTP port
 * folded into the Ingress HTTP listener, and the Gateway HTTPS listener on the Ingress HTTPS port into the Ingress
 * HTTPS listener (made when only Gateways terminate TLS there).
 */
export function joinSharedPorts(
  state: ClusterState,
  ingressListeners: readonly ListenerIR[],
  gatewayListeners: readonly ListenerIR[],
  status: GatewayApiStatus,
  ports: { http: number; https: number },
): SharedPortJoin {
  const ingressHttp = ingressListeners.find((l) => l.name === ingressHttpListenerName);
  const ingressHttps = ingressListeners.find((l) => l.name === ingressHttpsListenerName);
  const sharedHttp = ingressHttp?.routeTable === undefined ? undefined : gatewayListeners.find((l) => l.protocol === 'HTTP' && l.address === undefined && l.port === ingressHttp.port);
  // The Gateway HTTPS listeners on the Ingress HTTPS port: one IR listener per HTTPS listener when there are several
  // (each its own table, answering 421 for the others' names); joined, they serve as the Ingress does, one table for
  // every chain (the Host header picks the route, whatever the SNI), so their 421 virtual hosts are left out.
  const sharedHttpsListeners = gatewayListeners.filter((l) => l.protocol === 'HTTPS' && l.address === undefined && l.port === ports.https && (l.tcpChains?.length ?? 0) === 0);
  const sharedHttps =
    sharedHttpsListeners.length === 0
      ? undefined
      : {
          routeTable: { name: httpsRouteTableName, virtualHosts: sharedHttpsListeners.flatMap((l) => (l.routeTable?.virtualHosts ?? []).filter((v) => !v.name.startsWith(misdirectedHostPrefix))) },
          tlsServers: sharedHttpsListeners.flatMap((l) => l.tlsServers ?? []),
        };
  if (ingressHttp === undefined || (sharedHttp === undefined && sharedHttps === undefined)) {
    return { listeners: [...ingressListeners, ...gatewayListeners], diagnostics: [], status };
  }
  const metaOf = new Map<string, { metadata: ObjectMeta }>();
  for (const o of objectsOf(state, 'Ingress')) metaOf.set(refKey({ kind: 'Ingress', namespace: namespaceOf(o.metadata), name: o.metadata.name }), o);
  for (const o of objectsOf(state, 'HTTPRoute')) metaOf.set(refKey({ kind: 'HTTPRoute', namespace: namespaceOf(o.metadata), name: o.metadata.name }), o);
  const oldest: Ages = (refs) => refs.map((r) => metaOf.get(refKey(r))).filter((o): o is { metadata: ObjectMeta } => o !== undefined).sort(compareByAge)[0];
  const ingressesOf = ingressesByHost(ingressListeners);
  const diagnostics: Diagnostic[] = [];
  const routeNotes = new Map<string, string[]>();
  const replaced = new Map<ListenerIR, ListenerIR | undefined>();
  const folded = new Set<ListenerIR>();

  if (sharedHttp !== undefined && ingressHttp.routeTable !== undefined) {
    const claims: HostClaims = { lostByIngress: new Set(), lostByRoutes: new Set(), diagnostics, routeNotes };
    settleHosts(ingressHttp.routeTable, sharedHttp.routeTable, ingressHttp.port, ingressesOf, oldest, claims);
    replaced.set(ingressHttp, { ...ingressHttp, routeTable: joinedTable(ingressHttp.routeTable.name, ingressHttp.routeTable, sharedHttp.routeTable, claims.lostByIngress, claims.lostByRoutes) });
    folded.add(sharedHttp);
  }
  let madeHttps: ListenerIR | undefined;
  if (sharedHttps !== undefined) {
    const ingressTable: RouteTableIR = ingressHttps?.routeTable ?? { name: httpsRouteTableName, virtualHosts: [] };
    const claims: HostClaims = { lostByIngress: new Set(), lostByRoutes: new Set(), diagnostics, routeNotes };
    const passthrough = ingressHttps?.tlsPassthrough ?? [];
    settleHosts(ingressTable, sharedHttps.routeTable, ports.https, ingressesOf, oldest, claims, passthrough.flatMap((p) => p.serverNames));
    const table = joinedTable(ingressTable.name, ingressTable, sharedHttps.routeTable, claims.lostByIngress, claims.lostByRoutes);
    const keptPassthrough = passthrough.filter((p) => !p.serverNames.some((n) => claims.lostByIngress.has(n)));
    const tlsServers = joinedChains(ingressHttps?.tlsServers ?? [], sharedHttps.tlsServers ?? [], keptPassthrough.flatMap((p) => p.serverNames), ingressTable.virtualHosts, claims.lostByIngress);
    const joined: ListenerIR | undefined =
      ingressHttps !== undefined
        ? {
            ...ingressHttps,
            routeTable: table,
            routeConfiguration: ingressRouteConfigurationName,
            tlsServers: [...tlsServers],
            ...(keptPassthrough.length === passthrough.length ? {} : { tlsPassthrough: keptPassthrough }),
          }
        : tlsServers.length === 0
          ? undefined
          : {
              name: ingressHttpsListenerName,
              port: ports.https,
              protocol: 'HTTPS',
              routeTable: table,
              routeConfiguration: ingressRouteConfigurationName,
              tlsServers: [...tlsServers],
              ...(ingressHttp.settings === undefined ? {} : { settings: ingressHttp.settings }),
            };
    if (ingressHttps !== undefined) replaced.set(ingressHttps, joined);
    else madeHttps = joined;
    for (const l of sharedHttpsListeners) folded.add(l);
  }

  const routes: RouteStatusData[] = status.routes.map((r) => {
    const notes = routeNotes.get(refKey(r.ref));
    if (notes === undefined) return r;
    const allOurs = notes.every((n) => n.endsWith('RouteOwnsHost'));
    return {
      ...r,
      parents: r.parents.map((p) => ({
        ...p,
        conditions: [
          ...p.conditions,
          {
            type: hostSharedConditionType,
            status: 'True' as const,
            reason: allOurs ? 'RouteOwnsHost' : 'IngressOwnsHost',
            message: `hosts also claimed by an Ingress (the older keeps a host): ${notes.join('; ')}`,
            observedGeneration: p.conditions[0]?.observedGeneration ?? 0,
          },
        ],
      })),
    };
  });
  return {
    listeners: [
      ...ingressListeners.flatMap((l) => {
        const joined = replaced.has(l) ? replaced.get(l) : l;
        return joined === undefined ? [] : [joined];
      }),
      ...(madeHttps === undefined ? [] : [madeHttps]),
      ...gatewayListeners.filter((l) => !folded.has(l)),
    ],
    diagnostics,
    status: { ...status, routes },
  };
}
