// TLSRoutes and TCPRoutes -> TCP proxy filter chains of the listeners they attach to (ir/tcp.ts). A TLSRoute serves
// its host names (intersected with the listener's) by SNI: passed through on a Passthrough listener, terminated with
// the listener's certificate on a Terminate one. A TCPRoute takes a TCP listener's every connection; the oldest route
// on a listener is the one served (the spec: both are accepted, the newer one is shadowed).
import type { ClusterIR, TcpChainIR } from '../../../ir/index.js';
import type { ServiceIndex } from '../shared/backend.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type Gateway, type ReferenceGrant, type TCPRoute, type TLSRoute, refOf } from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';
import { resolveWeightedBackends } from './backend-refs.js';
import { hostnameError } from './hostname-intersection.js';
import type { AcceptedListener } from './listeners.js';
import { attachRoute } from './parent-refs.js';
import { GatewayReason } from './reasons.js';

export interface L4Translation {
  /** The chains of each listener, in route age order. */
  chains: Map<AcceptedListener, TcpChainIR[]>;
  clusters: ClusterIR[];
  /** The routes whose parentRefs name one of our Gateways. */
  served: (TLSRoute | TCPRoute)[];
  /** `namespace/name` of every Service their backendRefs name. */
  services: string[];
}

/** The catch-all server name: a chain without server names (one per port at most). */
const anyName = '*';

/** A filter chain name, unique on its port: the listener's and the route's. */
function chainName(l: AcceptedListener, kind: string, route: { metadata: { name: string; namespace?: string } }): string {
  return `gateway/${namespaceOf(l.gateway.metadata)}/${l.gateway.metadata.name}/${l.listener.name}/${kind.toLowerCase()}/${namespaceOf(route.metadata)}/${route.metadata.name}`;
}

export function translateL4Routes(
  tlsRoutes: readonly TLSRoute[],
  tcpRoutes: readonly TCPRoute[],
  gateways: ReadonlyMap<string, Gateway>,
  listeners: readonly AcceptedListener[],
  services: ServiceIndex,
  grants: readonly ReferenceGrant[],
  diagnostics: Diagnostic[],
): L4Translation {
  const chains = new Map<AcceptedListener, TcpChainIR[]>();
  const clusters = new Map<string, ClusterIR>();
  const referenced = new Set<string>();
  const served: (TLSRoute | TCPRoute)[] = [];
  // SNI names per port and who serves them: Envoy refuses a listener whose filter chains match the same names. The
  // HTTPS listeners' chains are there first (the listener's hostname, or any name).
  const claimed = new Map<number, Map<string, string>>();
  const claimedOn = (port: number): Map<string, string> => {
    let names = claimed.get(port);
    if (names === undefined) claimed.set(port, (names = new Map()));
    return names;
  };
  for (const l of listeners) if (l.protocol === 'HTTPS') claimedOn(l.listener.port).set(l.hostname ?? anyName, `HTTPS listener ${l.listener.name}`);
  const addChain = (l: AcceptedListener, chain: TcpChainIR): void => {
    const list = chains.get(l);
    if (list === undefined) chains.set(l, [chain]);
    else list.push(chain);
  };

  const backendsOf = (route: TLSRoute | TCPRoute, report: (reason: string, message: string) => void): Omit<TcpChainIR, 'name' | 'serverNames'> => {
    const namespace = namespaceOf(route.metadata);
    // One rule (the spec's maximum for TLSRoute); a TCPRoute's rules have no matches to tell them apart, so their
    // backendRefs are one set.
    const refs = (route.spec?.rules ?? []).flatMap((rule) => rule.backendRefs ?? []);
    for (const ref of refs) if ((ref.kind ?? 'Service') === 'Service' && (ref.group ?? '') === '') referenced.add(`${ref.namespace ?? namespace}/${ref.name}`);
    const resolved = resolveWeightedBackends(refs, namespace, services, grants, route.kind);
    for (const problem of resolved.invalid) report(problem.reason, `${problem.message}; its share of the connections is closed`);
    for (const cluster of resolved.clusters) clusters.set(cluster.name, cluster);
    return { backends: resolved.backends, ...(resolved.invalidWeight > 0 ? { errorWeight: resolved.invalidWeight } : {}) };
  };

  for (const route of [...tlsRoutes].sort(compareByAge)) {
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(route), severity: 'Warning', reason, message });
    };
    const hostnames = (route.spec?.hostnames ?? []).filter((h) => {
      const error = hostnameError(h);
      if (error !== undefined) report(GatewayReason.InvalidHostname, error);
      return error === undefined;
    });
    const { ours, attachments } = attachRoute(route.spec?.parentRefs ?? [], { kind: 'TLSRoute', namespace: namespaceOf(route.metadata), hostnames }, gateways, listeners, report);
    if (!ours) continue;
    served.push(route);
    if (attachments.length === 0) continue;
    const destination = backendsOf(route, report);
    for (const { listener: l, hosts } of attachments) {
      const names = claimedOn(l.listener.port);
      const free = hosts.filter((host) => {
        const owner = names.get(host);
        if (owner !== undefined) report(GatewayReason.RouteShadowed, `${host === anyName ? 'connections without a more specific name' : host} on port ${l.listener.port}: already served by ${owner}`);
        return owner === undefined;
      });
      if (free.length === 0) continue;
      for (const host of free) names.set(host, `TLSRoute ${namespaceOf(route.metadata)}/${route.metadata.name}`);
      // Every free name in one chain; the catch-all is a chain of its own (no server names).
      const exact = free.filter((h) => h !== anyName);
      const base = chainName(l, 'TLSRoute', route);
      const secret = l.tlsMode === 'Terminate' ? { secret: l.certificate?.name ?? '' } : {};
      if (exact.length > 0) addChain(l, { name: base, serverNames: exact, ...secret, ...destination });
      if (free.includes(anyName)) addChain(l, { name: `${base}/any`, serverNames: [], ...secret, ...destination });
    }
  }

  for (const route of [...tcpRoutes].sort(compareByAge)) {
    const report = (reason: string, message: string): void => {
      diagnostics.push({ object: refOf(route), severity: 'Warning', reason, message });
    };
    const { ours, attachments } = attachRoute(route.spec?.parentRefs ?? [], { kind: 'TCPRoute', namespace: namespaceOf(route.metadata), hostnames: [] }, gateways, listeners, report);
    if (!ours) continue;
    served.push(route);
    if (attachments.length === 0) continue;
    const destination = backendsOf(route, report);
    for (const { listener: l } of attachments) {
      const owner = chains.get(l)?.[0];
      if (owner !== undefined) {
        report(GatewayReason.RouteShadowed, `listener ${l.listener.name} of Gateway ${namespaceOf(l.gateway.metadata)}/${l.gateway.metadata.name} already sends its connections to an older TCPRoute (${owner.name})`);
        continue;
      }
      addChain(l, { name: chainName(l, 'TCPRoute', route), serverNames: [], ...destination });
    }
  }

  return {
    chains,
    clusters: [...clusters.values()],
    served,
    services: [...referenced].sort(),
  };
}
