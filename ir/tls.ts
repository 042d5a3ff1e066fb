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
  /** Client certificates the chain asks for (frontend mTLS); absent: none are asked for. */
  clientValidation?: ClientValidationIR;
}

/**
 * Client certificates a TLS server asks for (ingress-nginx auth-tls-*, the Gateway API's spec.tls.frontend).
 * `require`: the handshake fails without a certificate that chains to the trusted CAs. `request`: a certificate is
 * asked for, and the handshake completes without one or with one that does not verify; whether it verified is
 * recorded on the connection, and the routes decide what such a request gets (VirtualHostIR.clientCertificate), as
 * nginx answers 400 (or redirects) instead of failing the handshake.
 */
export interface ClientValidationIR {
  mode: 'require' | 'request';
  /** SDS name of the trusted CAs (one of DataPlaneIR.certificateAuthorities). */
  certificateAuthority: string;
  /**
   * Longest certificate chain accepted, the client certificate not counted (OpenSSL's verify depth, as nginx
   * ssl_verify_depth): 1 accepts a certificate a trusted CA signed directly. Absent: Envoy's default (100).
   */
  verifyDepth?: number;
}

/**
 * Trusted CA certificates (a PEM bundle), with an optional PEM certificate revocation list, served over SDS as a
 * validation context. Not secret (CA certificates are public), but only ever named by SDS name elsewhere.
 */
export interface CertificateAuthorityIR {
  /** SDS resource name, e.g. `namespace/secret/ca.crt`. */
  name: string;
  certificates: string;
  /** With a CRL, every certificate of a chain must be covered by one of its lists (nginx ssl_crl does the same). */
  revocationList?: string;
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

/**
 * What requests to a host must show of their connection's client certificate (ingress-nginx auth-tls-*): checked
 * before anything else the host's routes do, on every route of the host (redirects and fixed answers too, as nginx
 * checks in the server block); plain-HTTP requests are not checked, as in nginx, and only lose the ssl-client-*
 * headers a client sent. The connection's TLS server verified the certificate (ClientValidationIR, mode
 * `request`); this decides what the request gets.
 */
export interface ClientCertificateCheckIR {
  /**
   * The server names (SNI) whose TLS chain verifies against this host's CAs. A request over a connection negotiated
   * for another name (or none) was verified against other CAs, or none: it gets 421 Misdirected Request, as nginx
   * answers when SNI and Host differ on a server that verifies clients. Empty: a plain-HTTP host, whose requests
   * only lose the ssl-client-* headers a client may have sent.
   */
  serverNames: string[];
  /**
   * `required`: a request without a certificate, or with one that did not verify, is refused (nginx
   * ssl_verify_client on); `optional`: one with a certificate that did not verify is (optional); `any`: nothing is
   * refused (optional_no_ca).
   */
  verify: 'required' | 'optional' | 'any';
  /** A refused request is redirected here (302) instead of answered 400 (auth-tls-error-page). */
  errorPage?: string;
  /** RE2 pattern that must match somewhere in the certificate's subject (RFC 2253), else 403 (auth-tls-match-cn). */
  subjectPattern?: string;
  /** The backend gets the certificate, URL-encoded PEM, in `ssl-client-cert` (auth-tls-pass-certificate-to-upstream). */
  passCertificate?: boolean;
}
