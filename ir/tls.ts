// TLS on HTTPS listeners: terminated hosts (one filter chain each), passed-through hosts, certificates.
import { SecretText } from './secret-text.js';

/** A TLS host whose connections are passed on unterminated (ingress-nginx ssl-passthrough), selected by SNI. */
export interface TlsPassthroughIR {
  /** Deterministic filter chain name, e.g. `passthrough/foo.example.com`. */
  name: string;
  serverNames: string[];
  /** The cluster (one of DataPlaneIR.clusters) the TCP stream goes to. */
  cluster: string;
}

/** A TLS-terminated set of host names on an HTTPS listener: one filter chain selected by SNI, serving the listener's routes. */
export interface TlsServerIR {
  /** Deterministic name of the filter chain, e.g. `https/foo.example.com`. */
  name: string;
  /** SNI names the chain matches (exact or `*.example.com`). */
  serverNames: string[];
  /** SDS resource name of the certificate. */
  secret: string;
}

/** A PEM private key (SecretText: it never prints itself). */
export class PrivateKey extends SecretText {
  /** Makes the type nominal: a PrivateKey is not interchangeable with other secret text. */
  declare private readonly secretKind: 'private-key';
}

export interface TlsSecretIR {
  /** SDS resource name: `namespace/secret`. */
  name: string;
  certificateChain: string;
  privateKey: PrivateKey;
}
