// TLS on the HTTPS listener: terminated hosts (one filter chain each), passed-through hosts, certificates.
import type { RouteTableIR } from './virtual-host.js';

/** A TLS host whose connections are passed on unterminated (ingress-nginx ssl-passthrough), selected by SNI. */
export interface TlsPassthroughIR {
  /** Deterministic filter chain name, e.g. `passthrough/foo.example.com`. */
  name: string;
  serverNames: string[];
  /** The cluster (one of GatewayIR.clusters) the TCP stream goes to. */
  cluster: string;
}

/** A TLS-terminated set of host names on the HTTPS listener: one filter chain selected by SNI. */
export interface TlsServerIR {
  /** Deterministic name of the filter chain, e.g. `https/foo.example.com`. */
  name: string;
  /** SNI names the chain matches (exact or `*.example.com`). */
  serverNames: string[];
  /** SDS resource name of the certificate. */
  secret: string;
  /** The routes served on this chain. */
  routeTable: RouteTableIR;
}

/** A PEM key that does not print itself, so it cannot reach a log or a golden file by accident. */
export class PrivateKey {
  readonly #pem: string;
  constructor(pem: string) {
    this.#pem = pem;
  }
  reveal(): string {
    return this.#pem;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
}

export interface TlsSecretIR {
  /** SDS resource name: `namespace/secret`. */
  name: string;
  certificateChain: string;
  privateKey: PrivateKey;
}
