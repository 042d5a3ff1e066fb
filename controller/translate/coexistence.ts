// Ingress and Gateway API on one port: in shared mode (no addresses of their own for Gateways), a Gateway HTTP
// listener on the Ingress HTTP port (--http-port) joins the Ingress listener instead of being refused. Its virtual
// hosts go into the Ingress route table; a host name both claim belongs to the OLDER claimant (the oldest Ingress
// routing it vs the oldest HTTPRoute served on it; creationTimestamp, then namespace/name), the other's routes for that host are
// not served there. Both are told: a diagnostic (an Event) on every Ingress routing the host, a diagnostic and a
// route condition (`envoy-ingress.io/HostSharedWithIngress`) on every HTTPRoute. The same rule as between Ingress
// namespaces (ingress/host-ownership.ts): the first to claim a host keeps it, so no tenant takes over another's
// host by creating an object. Pure; translate.ts calls it with both translators' results.
import { type ListenerIR, type RouteTableIR, type SourceRef, type VirtualHostIR, catchAllHost, compareVirtualHosts } from '../../ir/index.js';
import type { GatewayApiStatus, RouteStatusData } from './gateway-api/status-data.js';
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

/**
 * `ingressHttp`: the name of the Ingress HTTP listener; `gatewayListeners`: the Gateway API translator's listeners.
 * Returns the listeners with the Gateway listener on the Ingress HTTP port folded into the Ingress one.
 */
export function joinSharedHttpPort(
  state: ClusterState,
  ingressListeners: readonly ListenerIR[],
  ingressHttp: string,
  gatewayListeners: readonly ListenerIR[],
  status: GatewayApiStatus,
): SharedPortJoin {
  const ingress = ingressListeners.find((l) => l.name === ingressHttp);
  const shared = ingress === undefined ? undefined : gatewayListeners.find((l) => l.protocol === 'HTTP' && l.address === undefined && l.port === ingress.port);
  if (ingress === undefined || shared === undefined || ingress.routeTable === undefined) {
    return { listeners: [...ingressListeners, ...gatewayListeners], diagnostics: [], status };
  }
  const metaOf = new Map<string, { metadata: ObjectMeta }>();
  for (const o of objectsOf(state, 'Ingress')) metaOf.set(refKey({ kind: 'Ingress', namespace: namespaceOf(o.metadata), name: o.metadata.name }), o);
  for (const o of objectsOf(state, 'HTTPRoute')) metaOf.set(refKey({ kind: 'HTTPRoute', namespace: namespaceOf(o.metadata), name: o.metadata.name }), o);
  const oldest = (refs: readonly SourceRef[]): { metadata: ObjectMeta } | undefined =>
    refs.map((r) => metaOf.get(refKey(r))).filter((o): o is { metadata: ObjectMeta } => o !== undefined).sort(compareByAge)[0];

  const ingressHosts = new Map(ingress.routeTable.virtualHosts.map((v) => [v.name, v]));
  const lostByIngress = new Set<string>();
  const lostByRoutes = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  /** Per HTTPRoute key: its host lines for the route condition. */
  const routeNotes = new Map<string, string[]>();
  for (const vhost of shared.routeTable?.virtualHosts ?? []) {
    const theirs = ingressHosts.get(vhost.name);
    if (theirs === undefined) continue;
    const ingresses = sourcesOf(theirs).filter((s) => s.kind === 'Ingress');
    const routes = sourcesOf(vhost).filter((s) => s.kind === 'HTTPRoute');
    // The Ingress side's catch-all with no Ingress behind it (the 404 page) is no claim.
    if (ingresses.length === 0 && vhost.name === catchAllHost) {
      lostByIngress.add(vhost.name);
      continue;
    }
    const oldestIngress = oldest(ingresses);
    const oldestRoute = oldest(routes);
    const ingressKeeps = oldestRoute === undefined || (oldestIngress === undefined ? ingresses.length > 0 : compareByAge(oldestIngress, oldestRoute) <= 0);
    const keeper = ingressKeeps ? `Ingress ${ingresses.map((r) => `${r.namespace}/${r.name}`).join(', ')}` : `HTTPRoute ${routes.map((r) => `${r.namespace}/${r.name}`).join(', ')}`;
    const line = `host ${vhost.name} on port ${ingress.port} is claimed by Ingress and HTTPRoute alike; the older keeps it: ${keeper}`;
    if (ingressKeeps) lostByRoutes.add(vhost.name);
    else lostByIngress.add(vhost.name);
    for (const ref of ingresses) {
      diagnostics.push({
        object: { kind: 'Ingress', namespace: ref.namespace, name: ref.name },
        severity: 'Warning',
        reason: Reason.HostSharedWithHTTPRoute,
        message: `${line}${ingressKeeps ? '' : '; this Ingress\'s rules for it are not served on that port'}`,
      });
    }
    for (const ref of routes) {
      diagnostics.push({
        object: { kind: 'HTTPRoute', namespace: ref.namespace, name: ref.name },
        severity: 'Warning',
        reason: GatewayReason.HostSharedWithIngress,
        message: `${line}${ingressKeeps ? '; this route is not served for it there' : ''}`,
      });
      const key = refKey(ref);
      routeNotes.set(key, [...(routeNotes.get(key) ?? []), `${vhost.name}: ${ingressKeeps ? 'IngressOwnsHost' : 'RouteOwnsHost'}`]);
    }
  }
  const table: RouteTableIR = {
    name: ingress.routeTable.name,
    virtualHosts: [
      ...ingress.routeTable.virtualHosts.filter((v) => !lostByIngress.has(v.name)),
      ...(shared.routeTable?.virtualHosts ?? []).filter((v) => !lostByRoutes.has(v.name)),
    ].sort(compareVirtualHosts),
  };
  const joined: ListenerIR = { ...ingress, routeTable: table };
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
            message: `hosts also claimed by an Ingress on port ${ingress.port} (the older keeps a host): ${notes.join('; ')}`,
            observedGeneration: p.conditions[0]?.observedGeneration ?? 0,
          },
        ],
      })),
    };
  });
  return {
    listeners: [...ingressListeners.map((l) => (l === ingress ? joined : l)), ...gatewayListeners.filter((l) => l !== shared)],
    diagnostics,
    status: { ...status, routes },
  };
}
