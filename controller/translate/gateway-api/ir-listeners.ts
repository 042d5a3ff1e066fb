// The final join: served Gateway listeners and the route matches placed on their hosts -> IR listeners. Every Gateway
// HTTP listener on one socket joins one IR listener (a plaintext port has one route table, envoy/build-resources.ts),
// with a virtual host per host name, its matches in the spec's precedence. The HTTPS and TLS listeners of a socket
// join one IR listener too (a TLS server, filter chain and certificate, per HTTPS listener) with the TLSRoutes' TCP
// proxy chains (tcp-chains.ts), except that several HTTPS listeners get a route table each (joinTls: 421 for
// misdirected requests). A TCP listener is an IR listener with its one TCP proxy chain. A new
// listener protocol adds its join to `listenerJoins`.
import { type ListenerIR, type ListenerSettingsIR, type RouteIR, type RouteTableIR, type SourceRef, type TlsServerIR, type VirtualHostIR, compareVirtualHosts } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import { refOf } from '../shared/kube-objects.js';
import type { PlacedMatch } from './httproute-rules.js';
import { type AcceptedListener, servedListenerName } from './listener-acceptance.js';
import type { ListenerBinding } from './listener-bindings.js';
import { claimedByMoreSpecific, listenerCovers } from './hostname-intersection.js';
import { redirectOnListener } from './route-filters.js';
import { compareMatches } from './route-precedence.js';
import type { TcpChains } from './tcp-chains.js';

/**
 * Per host name on one socket: the match lists of the routes served there, in the translator's route order. Flattened
 * (placedMatchesOf) only when the host's virtual host is made: an incremental translation reuses most virtual hosts,
 * so it should not index every route's matches.
 */
export type PortHosts = Map<string, (readonly PlacedMatch[])[]>;

/** The matches of one host, by IR route name (a route reached twice is served once, where it was first placed). */
function placedMatchesOf(lists: readonly (readonly PlacedMatch[])[]): PlacedMatch[] {
  const byName = new Map<string, PlacedMatch>();
  for (const list of lists) for (const m of list) byName.set(m.ir.name, m);
  return [...byName.values()];
}

/** IR listener name of the Gateway HTTP listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayHttpListenerName(port: number): string {
  return `gateway/http/${port}`;
}

/** IR listener name of a Gateway's own HTTP socket for its listener port `port` (its Envoy port may differ). */
export function ownGatewayHttpListenerName(gateway: { metadata: { namespace?: string; name: string } }, port: number): string {
  return `gateway/${namespaceOf(gateway.metadata)}/${gateway.metadata.name}/http/${port}`;
}

/** A route as served on a listener: a redirect takes the listener's port and scheme where it names none (the spec). */
function onListener(route: RouteIR, listener: { port: number; scheme: 'http' | 'https' }): RouteIR {
  if (route.action.kind !== 'redirect') return route;
  return { ...route, action: redirectOnListener(route.action, listener) };
}

/** IR listener name of a socket's Gateway listeners of one family (`http`, `tls`, `tcp`): shared, or a Gateway's own. */
function socketListenerName(family: string, binding: ListenerBinding, listeners: readonly AcceptedListener[]): string {
  const listenerPort = listeners[0]?.listener.port ?? binding.port;
  if (binding.owner === undefined) return `gateway/${family}/${binding.port}`;
  return `gateway/${namespaceOf(binding.owner.metadata)}/${binding.owner.metadata.name}/${family}/${listenerPort}`;
}

/**
 * The virtual hosts of the last translation to reuse (route-work.ts): per binding key and host, the virtual host
 * made then, which is what would be made again unless a changed route touches the host on that socket (its
 * matches are those of the same routes, in the same precedence; the listener's port and scheme are the context's).
 * `made` collects this translation's, for the next one. The 421 virtual hosts of several HTTPS listeners on a socket
 * (httpsListenerTable) are made every time: one route each.
 */
export interface VirtualHostReuse {
  previous: ReadonlyMap<string, ReadonlyMap<string, VirtualHostIR>> | undefined;
  /** Per binding key, the hosts to make again; undefined: make every host (a full translation). */
  touched: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  made: Map<string, Map<string, VirtualHostIR>>;
}

/** One protocol's IR listeners on one socket, from the served listeners there (oldest Gateway first). */
type ListenerJoin = (binding: ListenerBinding, listeners: readonly AcceptedListener[], hosts: PortHosts, chains: TcpChains, reuse: VirtualHostReuse) => ListenerIR[];

function routeTable(name: string, hosts: PortHosts, listener: { port: number; scheme: 'http' | 'https' }, binding: ListenerBinding, reuse: VirtualHostReuse): RouteTableIR {
  const previous = reuse.touched === undefined ? undefined : reuse.previous?.get(binding.key);
  const touched = reuse.touched?.get(binding.key);
  let made = reuse.made.get(binding.key);
  if (made === undefined) reuse.made.set(binding.key, (made = new Map()));
  const virtualHosts: VirtualHostIR[] = [];
  for (const [host, matches] of hosts) {
    const vhost: VirtualHostIR = (touched?.has(host) === true ? undefined : previous?.get(host)) ?? {
      name: host,
      hostnames: [host],
      routes: placedMatchesOf(matches).sort(compareMatches).map((m) => onListener(m.ir, listener)),
      wildcardLabels: 'one-or-more' as const,
    };
    made.set(host, vhost);
    virtualHosts.push(vhost);
  }
  return { name, virtualHosts: virtualHosts.sort(compareVirtualHosts) };
}

function sourcesOf(listeners: readonly AcceptedListener[]): SourceRef[] {
  const sources: SourceRef[] = [];
  for (const l of listeners) {
    // A ListenerSet's listener has its set as a source too.
    for (const ref of l.set === undefined ? [refOf(l.gateway)] : [refOf(l.gateway), refOf(l.set)]) {
      if (!sources.some((s) => s.kind === ref.kind && s.namespace === ref.namespace && s.name === ref.name)) sources.push(ref);
    }
  }
  return sources;
}

/** The Gateway API forwards the Host header unchanged, port included (the conformance suite checks it). */
const gatewayListenerSettings: ListenerSettingsIR = { forwardHostPort: true };

const joinHttp: ListenerJoin = (binding, listeners, hosts, _chains, reuse) => {
  const listenerPort = listeners[0]?.listener.port ?? binding.port;
  const name = binding.owner === undefined ? gatewayHttpListenerName(binding.port) : ownGatewayHttpListenerName(binding.owner, listenerPort);
  return [
    {
      name,
      port: binding.port,
      ...(binding.address === undefined ? {} : { address: binding.address }),
      protocol: 'HTTP',
      routeTable: routeTable(name, hosts, { port: listenerPort, scheme: 'http' }, binding, reuse),
      routeConfiguration: name,
      settings: gatewayListenerSettings,
      sources: sourcesOf(listeners),
    },
  ];
};

/** The listener of `listeners` (one socket's) a request for `host` belongs to: the most specific that matches it. */
function ownerOf(host: string, listeners: readonly AcceptedListener[]): AcceptedListener | undefined {
  const matching = listeners.filter((l) => listenerCovers(l.hostname, host));
  return matching.find((l) => !matching.some((other) => claimedByMoreSpecific(host, l.hostname, other.hostname)));
}

/**
 * The route table of one HTTPS listener among several on a socket: its own hosts, and 421 Misdirected Request for
 * the names the socket's other listeners serve (a connection whose TLS name chose this listener's certificate, reused
 * by the client for another listener's host: HTTP/2 connection coalescing), and for every other name when the listener
 * has a hostname of its own (the spec's GatewayHTTPSListenerDetectMisdirectedRequests).
 */
/** Prefix of the names of the virtual hosts answering 421 (httpsListenerTable). */
export const misdirectedHostPrefix = 'misdirected:';

function httpsListenerTable(name: string, own: AcceptedListener, onSocket: readonly AcceptedListener[], hosts: PortHosts, listener: { port: number; scheme: 'https' }, binding: ListenerBinding, reuse: VirtualHostReuse): RouteTableIR {
  const ownHosts: PortHosts = new Map([...hosts].filter(([host]) => ownerOf(host, onSocket) === own));
  const table = routeTable(name, ownHosts, listener, binding, reuse);
  const misdirected = (hostname: string): VirtualHostIR => ({
    name: `${misdirectedHostPrefix}${hostname}`,
    hostnames: [hostname],
    routes: [{ name: `misdirected:${hostname}`, match: { kind: 'prefix', path: '/' }, action: { kind: 'direct', status: 421 } }],
    wildcardLabels: 'one-or-more',
  });
  const others = new Set(onSocket.filter((l) => l !== own && l.hostname !== undefined && l.hostname !== own.hostname).map((l) => l.hostname as string));
  const extra = [...others].filter((h) => !ownHosts.has(h)).map(misdirected);
  if (own.hostname !== undefined && !ownHosts.has('*')) extra.push(misdirected('*'));
  return { name, virtualHosts: [...table.virtualHosts, ...extra].sort(compareVirtualHosts) };
}

/**
 * HTTPS and TLS listeners of a socket: a filter chain per HTTPS listener and per TLSRoute name. One HTTPS listener: one
 * IR listener. Several: an IR listener (its own route table) per HTTPS listener, so a request on a connection
 * whose TLS name chose one listener is answered 421 for another listener's host (httpsListenerTable); the first
 * carries the socket's name and its TLSRoute chains.
 */
const joinTls: ListenerJoin = (binding, listeners, hosts, chains, reuse) => {
  const name = socketListenerName('tls', binding, listeners);
  const https = listeners.filter((l) => l.listener.protocol === 'HTTPS' && l.certificate !== undefined);
  const serverOf = (l: AcceptedListener): TlsServerIR => ({
    name: servedListenerName(l),
    serverNames: l.hostname === undefined ? [] : [l.hostname],
    secret: (l.certificate as { name: string }).name,
    ...(l.clientValidation === undefined ? {} : { clientValidation: l.clientValidation }),
  });
  const tcpChains = listeners.flatMap((l) => chains.of(l));
  const where = { port: binding.port, ...(binding.address === undefined ? {} : { address: binding.address }) };
  const listenerPort = { port: listeners[0]?.listener.port ?? binding.port, scheme: 'https' as const };
  const tail = { ...(tcpChains.length > 0 ? { tcpChains } : {}), sources: sourcesOf(listeners) };
  if (https.length === 0) return [{ name, ...where, protocol: 'TLS', ...tail }];
  if (https.length === 1) {
    const routes = routeTable(name, hosts, listenerPort, binding, reuse);
    return [{ name, ...where, protocol: 'HTTPS', routeTable: routes, routeConfiguration: name, tlsServers: https.map(serverOf), settings: gatewayListenerSettings, ...tail }];
  }
  return https.map((l, index): ListenerIR => {
    const server = serverOf(l);
    const irName = index === 0 ? name : `${name}/${server.name}`;
    return {
      name: irName,
      ...where,
      protocol: 'HTTPS',
      routeTable: httpsListenerTable(irName, l, https, hosts, listenerPort, binding, reuse),
      routeConfiguration: irName,
      tlsServers: [server],
      settings: gatewayListenerSettings,
      ...(index === 0 ? tail : { sources: sourcesOf([l]) }),
    };
  });
};

/** A TCP listener: its one chain (the oldest TCPRoute's), or none yet (Envoy opens no port then). */
const joinTcp: ListenerJoin = (binding, listeners, _hosts, chains) => {
  const tcpChains = listeners.flatMap((l) => chains.of(l));
  return [
    {
      name: socketListenerName('tcp', binding, listeners),
      port: binding.port,
      ...(binding.address === undefined ? {} : { address: binding.address }),
      protocol: 'TCP',
      ...(tcpChains.length > 0 ? { tcpChains } : {}),
      sources: sourcesOf(listeners),
    },
  ];
};

export const listenerJoins: Readonly<Partial<Record<string, ListenerJoin>>> = { HTTP: joinHttp, HTTPS: joinTls, TLS: joinTls, TCP: joinTcp };

/** IR listeners for every socket a served listener is on, by binding key. */
export function joinIrListeners(
  listeners: readonly AcceptedListener[],
  byBinding: ReadonlyMap<string, PortHosts>,
  chains: TcpChains,
  reuse: VirtualHostReuse = { previous: undefined, touched: undefined, made: new Map() },
): ListenerIR[] {
  const out: ListenerIR[] = [];
  const bindings = [...new Set(listeners.map((l) => l.binding))].sort((a, b) => a.port - b.port || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const binding of bindings) {
    const onSocket = listeners.filter((l) => l.binding === binding);
    // One family per socket (listener-acceptance.ts refuses the others: ProtocolConflict).
    const protocol = onSocket[0]?.listener.protocol ?? 'HTTP';
    const join = listenerJoins[protocol];
    if (join !== undefined) out.push(...join(binding, onSocket, byBinding.get(binding.key) ?? new Map(), chains, reuse));
  }
  return out;
}
