// Listeners: where the data plane accepts connections, with what protocol, and what it serves there. Each input
// API's translator emits its own (the Ingress translator: two, on the flag ports); the Envoy builders make one
// Envoy listener per port from every IR listener on it.
import type { SourceRef } from './source.js';
import type { TcpChainIR } from './tcp.js';
import type { TlsPassthroughIR, TlsServerIR } from './tls.js';
import type { RouteTableIR } from './virtual-host.js';

/**
 * HTTP: plaintext HTTP routed by `routeTable`. HTTPS: TLS terminated per server name (`tlsServers`), then HTTP routed
 * by `routeTable`; it may pass some server names through unterminated too (`tlsPassthrough`). TLS: server names passed
 * through (`tlsPassthrough`), or TCP-proxied by SNI with or without termination (`tcpChains`). TCP: a plain TCP proxy
 * (`tcpChains`, one without server names), alone on its port.
 */
export type ListenerProtocolIR = 'HTTP' | 'HTTPS' | 'TLS' | 'TCP';

/** Connection manager settings of a listener that the translation decides (the ingress-nginx ConfigMap). */
export interface ListenerSettingsIR {
  /** Envoy writes no Server header of its own; a backend's passes unless the route removes it (server-tokens). */
  serverHeaderPassThrough?: boolean;
  /** One proxy in front is trusted: its X-Forwarded-For and X-Forwarded-Proto are believed (use-forwarded-headers). */
  trustForwardedHeaders?: boolean;
  /**
   * The Host header reaches the backend as the client sent it, port included (the Gateway API forwards it
   * unchanged); virtual hosts still match it without its port. Absent: the port is stripped (Ingress).
   */
  forwardHostPort?: boolean;
}

export interface ListenerIR {
  /** Unique; the Envoy listener's name (and stat prefix) when it is the only or first listener on its port. */
  name: string;
  port: number;
  /**
   * The IP Envoy binds this listener on (a Gateway's own address, --gateway-address-pool); absent: --listen-address.
   * Listeners on one port but different addresses are different sockets.
   */
  address?: string;
  protocol: ListenerProtocolIR;
  /** The routes HTTP and HTTPS listeners serve; every TLS server of the listener serves this one table. */
  routeTable?: RouteTableIR;
  /**
   * RDS name of the RouteConfiguration serving `routeTable`. Two listeners naming the same one, one HTTP and one
   * HTTPS, share a single RouteConfiguration in which each host's plain-HTTP routes are limited to plain-HTTP requests
   * (envoy/route-configuration.ts): one table rebuild per change instead of two. Absent: the table's own name.
   */
  routeConfiguration?: string;
  /** HTTPS: the TLS-terminated server names, a filter chain each, sorted as the translator ordered them. */
  tlsServers?: TlsServerIR[];
  /** HTTPS and TLS: server names whose connections go unterminated to a backend. */
  tlsPassthrough?: TlsPassthroughIR[];
  /** TLS and TCP: TCP proxies, by SNI on TLS listeners (see TcpChainIR). */
  tcpChains?: TcpChainIR[];
  settings?: ListenerSettingsIR;
  /** The objects that asked for this listener (a Gateway and its listener); absent for the flag-port listeners. */
  sources?: SourceRef[];
}

/** The route tables listeners serve, each once, in listener order. */
export function servedRouteTables(listeners: readonly ListenerIR[]): RouteTableIR[] {
  const tables: RouteTableIR[] = [];
  for (const listener of listeners) if (listener.routeTable !== undefined && !tables.includes(listener.routeTable)) tables.push(listener.routeTable);
  return tables;
}
