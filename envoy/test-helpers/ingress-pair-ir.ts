// Test IR written as the Ingress translator's two listeners used to be written (a plain-HTTP table, TLS chains each
// naming the table they serve, passed-through names, settings): made into a DataPlaneIR with the Ingress listeners
// by the translator's own ingressListeners, so hand-written cases and golden inputs stay short.
import type { DataPlaneIR, ListenerSettingsIR, RouteTableIR, TlsPassthroughIR, TlsServerIR } from '../../ir/index.js';
import { ingressHttpsListenerName, ingressListeners } from '../../controller/translate/ingress/ingress-listeners.js';
import { defaultTranslateOptions } from '../../controller/translate/shared/options.js';

export interface IngressPairParts extends Omit<DataPlaneIR, 'listeners'> {
  http: RouteTableIR;
  /** Every chain serves one table (the first's `routeTable`); a chain naming another one is refused. */
  tlsServers: (TlsServerIR & { routeTable?: RouteTableIR })[];
  tlsPassthrough?: TlsPassthroughIR[];
  listener?: ListenerSettingsIR;
}

export function ingressPairIR(parts: IngressPairParts, ports: { http: number; https: number } = { http: 8080, https: 8443 }): DataPlaneIR {
  const { http, tlsServers, tlsPassthrough, listener, ...rest } = parts;
  const https = tlsServers[0]?.routeTable ?? { name: ingressHttpsListenerName, virtualHosts: [] };
  if (tlsServers.some((server) => server.routeTable !== undefined && server.routeTable !== https)) {
    throw new Error('every TLS server of the Ingress HTTPS listener serves its one route table');
  }
  const serving = {
    http,
    https,
    tlsServers: tlsServers.map(({ routeTable: _table, ...server }) => server),
    tlsPassthrough: tlsPassthrough ?? [],
    settings: listener,
  };
  return { listeners: ingressListeners(serving, { ...defaultTranslateOptions, listenerPorts: ports }), ...rest };
}
