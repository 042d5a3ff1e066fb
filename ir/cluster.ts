// Upstreams: clusters (one per Service port), their endpoints, and fallback chains between clusters.

/**
 * A cluster that sends each request to the first of `clusters` with endpoints, in order, decided by the proxy at
 * request time (ingress-nginx default-backend: the default backend serves while a Service has no endpoints).
 */
export interface FallbackClusterIR {
  name: string;
  /** Names of DataPlaneIR.clusters entries, most preferred first. */
  clusters: string[];
}

export interface ClusterIR {
  /** CDS resource name, also the EDS service name: `namespace/service/port`. */
  name: string;
  service: { namespace: string; name: string; port: number };
  /** Upstream HTTP version; absent means HTTP/1.1. */
  protocol?: 'http2';
  /** Connect to the endpoints over TLS. */
  upstreamTls?: UpstreamTlsIR;
  /** Absent means round robin. */
  loadBalancer?: LoadBalancerIR;
  /** Time allowed to open a connection to an endpoint; absent means 5 s. */
  connectTimeoutMs?: number;
  /** Most requests in flight to the cluster at once (all clients together); more get 503 at once. */
  maxRequests?: number;
  /**
   * For an ExternalName Service (only with allowExternalName): the DNS name (or IP) Envoy resolves itself and
   * connects to on `service.port`; such a cluster has no EDS endpoints.
   */
  externalName?: string;
  /** A mirror target's cluster (ingress-nginx mirror-target): what the requests mirrored to it are sent as. */
  mirrorRewrite?: MirrorRewriteIR;
}

/**
 * TLS to a cluster's endpoints (backend-protocol HTTPS, ingress-nginx proxy-ssl-*, the Gateway API's
 * BackendTLSPolicy and a Gateway's backend client certificate).
 */
export interface UpstreamTlsIR {
  /** Server name sent (SNI); absent: none. */
  sni?: string;
  /** How the endpoints' certificate is verified; absent: it is not (encryption only, ingress-nginx's default). */
  verify?: UpstreamVerifyIR;
  /** SDS name of the certificate and key presented to the endpoints (one of DataPlaneIR.secrets); absent: none. */
  clientCertificate?: string;
  /** TLS versions offered; absent: Envoy's defaults for upstreams (1.2 to 1.2). */
  minVersion?: TlsVersionIR;
  maxVersion?: TlsVersionIR;
  /** TLS 1.2 cipher suites offered, as BoringSSL cipher rules in order; absent: Envoy's defaults. */
  cipherSuites?: string[];
}

export type TlsVersionIR = '1.0' | '1.1' | '1.2' | '1.3';

/** The endpoints' certificate must chain to trusted CAs and, when `subjectAltNames` is not empty, name one of them. */
export interface UpstreamVerifyIR {
  /** SDS name of the trusted CAs (one of DataPlaneIR.certificateAuthorities). */
  certificateAuthority: string;
  /** The certificate must carry one of these (a DNS name may be matched by a wildcard certificate name). */
  subjectAltNames: SubjectAltNameIR[];
  /** Longest chain accepted, the endpoint's certificate not counted (as ClientValidationIR.verifyDepth). */
  verifyDepth?: number;
}

export interface SubjectAltNameIR {
  kind: 'dns' | 'uri';
  value: string;
}

/**
 * The Host and path nginx's mirror location sends: `host` as the Host header; the path replaced by `path` (the
 * request's query kept), or prefixed with `pathPrefix`, or (neither) the request's own.
 */
export interface MirrorRewriteIR {
  host: string;
  path?: string;
  pathPrefix?: string;
}

export type LoadBalancerIR = 'least-request' | 'ring-hash' | 'maglev' | 'random';

export interface EndpointIR {
  address: string;
  port: number;
}

export interface ClusterEndpointsIR {
  /** Name of the cluster these endpoints belong to. */
  cluster: string;
  endpoints: EndpointIR[];
}
