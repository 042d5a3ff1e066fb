// TLSRoutes and TCPRoutes on their listeners -> TCP proxy filter chains (ir/tcp.ts). A TLSRoute serves its host names
// (already intersected with the listener's, listener isolation applied) by SNI: passed through on a Passthrough
// listener, terminated with the listener's certificate on a Terminate one. No two chains of a socket may match one
// name (Envoy refuses such a listener, and every later update of it): a name an HTTPS listener or an older route
// serves there stays theirs. A TCPRoute takes its TCP listener's every connection; the oldest route on a listener is
// the one served (the spec: both are accepted, the newer is shadowed).
import type { TcpChainIR } from '../../../ir/index.js';
import { namespaceOf } from '../shared/kinds.js';
import type { TCPRoute, TLSRoute } from '../shared/kube-objects.js';
import type { TranslatedRules } from './httproute-rules.js';
import { type AcceptedListener, servedListenerName } from './listener-acceptance.js';
import { GatewayReason } from './reasons.js';

/** A name that matches any SNI: a chain without server names. */
const anyName = '*';

export interface TcpChains {
  /** Places a route's connections on the listeners it is attached to (routes oldest first). */
  place(route: TLSRoute | TCPRoute, on: readonly { listener: AcceptedListener; hosts: readonly string[] }[], stream: NonNullable<TranslatedRules['stream']>, report: (reason: string, message: string) => void): void;
  /** The chains of a listener, in route age order. */
  of(listener: AcceptedListener): TcpChainIR[];
}

/** `listeners`: every served listener (the HTTPS ones hold their names on their socket first). */
export function tcpChains(listeners: readonly AcceptedListener[]): TcpChains {
  const chains = new Map<AcceptedListener, TcpChainIR[]>();
  // SNI names per socket and who serves them.
  const claimed = new Map<string, Map<string, string>>();
  const claimedOn = (socket: string): Map<string, string> => {
    let names = claimed.get(socket);
    if (names === undefined) claimed.set(socket, (names = new Map()));
    return names;
  };
  for (const l of listeners) if (l.listener.protocol === 'HTTPS') claimedOn(l.binding.key).set(l.hostname ?? anyName, `HTTPS listener ${l.listener.name}`);
  const add = (l: AcceptedListener, chain: TcpChainIR): void => {
    const list = chains.get(l);
    if (list === undefined) chains.set(l, [chain]);
    else list.push(chain);
  };
  const nameOf = (l: AcceptedListener, route: TLSRoute | TCPRoute): string =>
    `${servedListenerName(l)}/${route.kind.toLowerCase()}/${namespaceOf(route.metadata)}/${route.metadata.name}`;

  return {
    place(route, on, stream, report) {
      const routeName = `${route.kind} ${namespaceOf(route.metadata)}/${route.metadata.name}`;
      for (const { listener: l, hosts } of on) {
        if (route.kind === 'TCPRoute') {
          const older = chains.get(l)?.[0];
          if (older !== undefined) {
            report(GatewayReason.RouteShadowed, `listener ${l.listener.name} of Gateway ${namespaceOf(l.gateway.metadata)}/${l.gateway.metadata.name} already sends its connections to an older TCPRoute (${older.name})`);
            continue;
          }
          add(l, { name: nameOf(l, route), serverNames: [], ...stream });
          continue;
        }
        const names = claimedOn(l.binding.key);
        const free = hosts.filter((host) => {
          const owner = names.get(host);
          if (owner !== undefined) report(GatewayReason.RouteShadowed, `${host === anyName ? 'connections without a more specific name' : host} on port ${l.listener.port}: already served by ${owner}`);
          return owner === undefined;
        });
        for (const host of free) names.set(host, routeName);
        const secret = l.listener.tls?.mode === 'Terminate' && l.certificate !== undefined ? { secret: l.certificate.name } : {};
        const exact = free.filter((h) => h !== anyName);
        // The exact and wildcard names in one chain; any name is a chain of its own (no server names).
        if (exact.length > 0) add(l, { name: nameOf(l, route), serverNames: exact, ...secret, ...stream });
        if (free.includes(anyName)) add(l, { name: `${nameOf(l, route)}/any`, serverNames: [], ...secret, ...stream });
      }
    },
    of: (l) => chains.get(l) ?? [],
  };
}
