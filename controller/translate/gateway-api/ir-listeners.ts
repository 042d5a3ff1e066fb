// The final join: served Gateway listeners and the route matches placed on their hosts -> IR listeners. Every Gateway
// HTTP listener on one port joins one IR listener (a plaintext port has one route table, envoy/build-resources.ts),
// with a virtual host per host name, its matches in the spec's precedence. A new listener protocol adds its join to
// `listenerJoins` (an HTTPS port: a TLS server per certificate; TLS/TCP: filter chains per SNI or port).
import { type ListenerIR, type SourceRef, type VirtualHostIR, compareVirtualHosts } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import { refOf } from '../shared/kube-objects.js';
import type { PlacedMatch } from './httproute-rules.js';
import type { AcceptedListener } from './listener-acceptance.js';
import type { ListenerBinding } from './listener-bindings.js';
import { compareMatches } from './route-precedence.js';

/** Per host name on one socket: the matches served there, by IR route name (a route reached twice is served once). */
export type PortHosts = Map<string, Map<string, PlacedMatch>>;

/** IR listener name of the Gateway HTTP listeners on `port` (one per port, whichever Gateways share it). */
export function gatewayHttpListenerName(port: number): string {
  return `gateway/http/${port}`;
}

/** IR listener name of a Gateway's own HTTP socket for its listener port `port` (its Envoy port may differ). */
export function ownGatewayHttpListenerName(gateway: { metadata: { namespace?: string; name: string } }, port: number): string {
  return `gateway/${namespaceOf(gateway.metadata)}/${gateway.metadata.name}/http/${port}`;
}

/** One protocol's IR listeners on one socket, from the served listeners there (oldest Gateway first). */
type ListenerJoin = (binding: ListenerBinding, listeners: readonly AcceptedListener[], hosts: PortHosts) => ListenerIR[];

const joinHttp: ListenerJoin = (binding, listeners, hosts) => {
  const listenerPort = listeners[0]?.listener.port ?? binding.port;
  const name = binding.owner === undefined ? gatewayHttpListenerName(binding.port) : ownGatewayHttpListenerName(binding.owner, listenerPort);
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
  return [
    {
      name,
      port: binding.port,
      ...(binding.address === undefined ? {} : { address: binding.address }),
      protocol: 'HTTP',
      routeTable: { name, virtualHosts },
      routeConfiguration: name,
      sources,
    },
  ];
};

export const listenerJoins: Readonly<Partial<Record<string, ListenerJoin>>> = { HTTP: joinHttp };

/** IR listeners for every socket a served listener is on, by binding key. */
export function joinIrListeners(listeners: readonly AcceptedListener[], byBinding: ReadonlyMap<string, PortHosts>): ListenerIR[] {
  const out: ListenerIR[] = [];
  const bindings = [...new Set(listeners.map((l) => l.binding))].sort((a, b) => a.port - b.port || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const binding of bindings) {
    const onSocket = listeners.filter((l) => l.binding === binding);
    // One protocol per socket: listeners of another protocol on a taken port are refused as ProtocolConflict (to come).
    const protocol = onSocket[0]?.listener.protocol ?? 'HTTP';
    const join = listenerJoins[protocol];
    if (join !== undefined) out.push(...join(binding, onSocket, byBinding.get(binding.key) ?? new Map()));
  }
  return out;
}
