// The final join: served Gateway listeners and the route matches placed on their hosts -> IR listeners. Every Gateway
// HTTP listener on one port joins one IR listener (a plaintext port has one route table, envoy/build-resources.ts),
// with a virtual host per host name, its matches in the spec's precedence. A new listener protocol adds its join to
// `listenerJoins` (an HTTPS port: a TLS server per certificate; TLS/TCP: filter chains per SNI or port).
import { type ListenerIR, type SourceRef, type VirtualHostIR, compareVirtualHosts } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import { refOf } from '../shared/kube-objects.js';
import type { PlacedMatch } from './httproute-rules.js';
import type { AcceptedListener } from './listener-acceptance.js';
import { compareMatches } from './route-precedence.js';

/** Per host name on one port: the matches served there, by IR route name (a route reached twice is served once). */
export type PortHosts = Map<string, Map<string, PlacedMatch>>;

/** IR listener name of the Gateway HTTP listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayHttpListenerName(port: number): string {
  return `gateway/http/${port}`;
}

/** One protocol's IR listeners on one port, from the served listeners there (oldest Gateway first). */
type ListenerJoin = (port: number, listeners: readonly AcceptedListener[], hosts: PortHosts) => ListenerIR[];

const joinHttp: ListenerJoin = (port, listeners, hosts) => {
  const name = gatewayHttpListenerName(port);
  const virtualHosts: VirtualHostIR[] = [...hosts]
    .map(([host, matches]) => ({
      name: host,
      hostnames: [host],
      routes: [...matches.values()].sort(compareMatches).map((m) => m.ir),
      wildcardLabels: 'one-or-more' as const,
    }))
    .sort(compareVirtualHosts);
  const sources: SourceRef[] = [];
  for (const l of listeners) {
    if (!sources.some((s) => s.namespace === namespaceOf(l.gateway.metadata) && s.name === l.gateway.metadata.name)) sources.push(refOf(l.gateway));
  }
  return [{ name, port, protocol: 'HTTP', routeTable: { name, virtualHosts }, routeConfiguration: name, sources }];
};

export const listenerJoins: Readonly<Partial<Record<string, ListenerJoin>>> = { HTTP: joinHttp };

/** IR listeners for every port a served listener is on, by port. */
export function joinIrListeners(listeners: readonly AcceptedListener[], byPort: ReadonlyMap<number, PortHosts>): ListenerIR[] {
  const out: ListenerIR[] = [];
  const ports = [...new Set(listeners.map((l) => l.listener.port))].sort((a, b) => a - b);
  for (const port of ports) {
    const onPort = listeners.filter((l) => l.listener.port === port);
    // One protocol per port: listeners of another protocol on a taken port are refused as ProtocolConflict (to come).
    const protocol = onPort[0]?.listener.protocol ?? 'HTTP';
    const join = listenerJoins[protocol];
    if (join !== undefined) out.push(...join(port, onPort, byPort.get(port) ?? new Map()));
  }
  return out;
}
