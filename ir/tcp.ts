// TCP streams proxied as they are (the Gateway API's TCPRoute, and TLSRoute after or without termination): filter
// chains of TLS and TCP listeners, each sending its connections to clusters by weight.
import type { WeightedClusterIR } from './route.js';

/**
 * One filter chain that proxies TCP: selected by SNI (`serverNames`) on a TLS listener, or every connection of a
 * TCP listener (no server names). Chains on one port never share a server name, and a port has at most one chain
 * without server names: Envoy refuses a listener whose filter chains have equal matches.
 */
export interface TcpChainIR {
  /** Deterministic and unique on its port, e.g. `tlsroute/ns/name`. */
  name: string;
  /** SNI names the chain matches (exact or `*.example.com`, which Envoy matches for one or more labels); empty: any. */
  serverNames: string[];
  /** Terminate TLS with this SDS certificate first (TLS listener, mode Terminate); absent: bytes go through as they are. */
  secret?: string;
  /** Where connections go, by weight (a cluster of DataPlaneIR.clusters each); empty: connections are closed. */
  backends: WeightedClusterIR[];
  /** This share of the total weight is closed (invalid backendRefs, the spec's "rejected"); absent: none. */
  errorWeight?: number;
}
