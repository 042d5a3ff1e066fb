// The Ingress API's listeners: plaintext HTTP and HTTPS on the flag ports (--http-port, --https-port), serving one
// RouteConfiguration between them. The HTTPS listener exists only while some host terminates or passes TLS.
import { compareStrings, type DataPlaneIR, type ListenerIR, type ListenerSettingsIR, type RouteTableIR, type TlsPassthroughIR, type TlsServerIR } from '../../../ir/index.js';
import { type TranslateOptions, defaultListenerPorts } from '../shared/options.js';

export const ingressHttpListenerName = 'ingress_http';
export const ingressHttpsListenerName = 'ingress_https';
/** The RouteConfiguration both Ingress listeners share (ir/listener.ts `routeConfiguration`). */
export const ingressRouteConfigurationName = 'ingress';

/** What the Ingress translation serves, before it becomes listeners. */
export interface IngressServing {
  http: RouteTableIR;
  /** The TLS chains' table; in the IR only while there is an HTTPS listener. */
  https: RouteTableIR;
  tlsServers: readonly TlsServerIR[];
  tlsPassthrough: readonly TlsPassthroughIR[];
  settings: ListenerSettingsIR | undefined;
}

export function ingressListeners(serving: IngressServing, options: TranslateOptions): ListenerIR[] {
  const ports = options.listenerPorts ?? defaultListenerPorts;
  const settings = serving.settings === undefined ? {} : { settings: serving.settings };
  const listeners: ListenerIR[] = [
    { name: ingressHttpListenerName, port: ports.http, protocol: 'HTTP', routeTable: serving.http, routeConfiguration: ingressRouteConfigurationName, ...settings },
  ];
  if (serving.tlsServers.length > 0 || serving.tlsPassthrough.length > 0) {
    listeners.push({
      name: ingressHttpsListenerName,
      port: ports.https,
      protocol: 'HTTPS',
      // Passed-through names alone route nothing: no table (and no TLS side of the shared RouteConfiguration).
      ...(serving.tlsServers.length > 0 ? { routeTable: serving.https, routeConfiguration: ingressRouteConfigurationName } : {}),
      tlsServers: [...serving.tlsServers],
      ...(serving.tlsPassthrough.length > 0 ? { tlsPassthrough: [...serving.tlsPassthrough] } : {}),
      ...settings,
    });
  }
  return listeners;
}

/** The Ingress listeners of a data plane the Ingress translator made. */
export interface IngressListeners {
  http: ListenerIR & { routeTable: RouteTableIR };
  https: ListenerIR | undefined;
}

export function ingressListenersOf(ir: DataPlaneIR): IngressListeners {
  const http = ir.listeners.find((listener) => listener.name === ingressHttpListenerName);
  if (http?.routeTable === undefined) throw new Error(`the data plane has no ${ingressHttpListenerName} listener with a route table`);
  return { http: http as IngressListeners['http'], https: ir.listeners.find((listener) => listener.name === ingressHttpsListenerName) };
}

/** The TLS-terminated servers of the Ingress HTTPS listener (none without it). */
export function ingressTlsServersOf(ir: DataPlaneIR): readonly TlsServerIR[] {
  return ingressListenersOf(ir).https?.tlsServers ?? [];
}

/** `ir` with its Ingress listeners made anew from `serving`; other listeners kept. */
export function withIngressServing(ir: DataPlaneIR, serving: IngressServing, options: TranslateOptions): DataPlaneIR {
  const others = ir.listeners.filter((listener) => listener.name !== ingressHttpListenerName && listener.name !== ingressHttpsListenerName);
  return { ...ir, listeners: [...others, ...ingressListeners(serving, options)].sort((a, b) => compareStrings(a.name, b.name)) };
}

/** The plain-HTTP route table of a data plane the Ingress translator made. */
export function ingressHttpTableOf(ir: DataPlaneIR): RouteTableIR {
  return ingressListenersOf(ir).http.routeTable;
}

/** The route table the TLS chains of a data plane the Ingress translator made serve (none without chains). */
export function ingressHttpsTableOf(ir: DataPlaneIR): RouteTableIR | undefined {
  return ingressListenersOf(ir).https?.routeTable;
}
