// The intermediate representation: plain data, no Kubernetes and no Envoy types. The translator produces it
// from a ClusterState; envoy/ turns it into xDS resources. Every node carries a deterministic name and, where
// it came from an object, a reference back to that object so problems can be reported on it.
import type { ObjectRef } from './kube-objects.js';

/** How a route matches the request path. Query strings are never part of the match. */
export type PathMatchIR =
  /** The whole path equals `path` (case-sensitive). */
  | { kind: 'exact'; path: string }
  /**
   * Element-wise prefix per the Ingress spec: `/foo` matches `/foo`, `/foo/` and `/foo/bar`, not `/foobar`.
   * `path` has no trailing slash, except the root prefix `/`, which matches everything.
   */
  | { kind: 'prefix'; path: string };

export type RouteActionIR =
  /** Proxy to a cluster. */
  | { kind: 'forward'; cluster: string }
  /** Redirect the same host and path to https. */
  | { kind: 'https-redirect'; statusCode: 301 | 302 | 307 | 308; port?: number }
  /** Answer locally, e.g. 404 for nothing matched or 503 for a backend that cannot be resolved. */
  | { kind: 'direct'; status: number; body?: string; contentType?: string };

export interface RouteIR {
  /** Unique within its virtual host, e.g. `ingress/default/web/rule/0/path/1`. */
  name: string;
  match: PathMatchIR;
  action: RouteActionIR;
  /** The Ingress this route came from; absent for routes the controller adds itself (404 fallback). */
  source?: ObjectRef;
}

export interface VirtualHostIR {
  /** Deterministic and unique within its route configuration, e.g. `foo.example.com` or `*`. */
  name: string;
  /**
   * Host names as in the Ingress (lower case): `foo.example.com`, `*.example.com` (exactly one label), or `*`
   * for the catch-all host.
   */
  hostnames: string[];
  /** In match order: the first route that matches wins. The last route is the fallback (default backend/404). */
  routes: RouteIR[];
}

export interface RouteTableIR {
  /** RDS resource name. */
  name: string;
  virtualHosts: VirtualHostIR[];
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

export interface ClusterIR {
  /** CDS resource name, also the EDS service name: `namespace/service/port`. */
  name: string;
  service: { namespace: string; name: string; port: number };
  /**
   * For an ExternalName Service (only with allowExternalName): the DNS name (or IP) Envoy resolves itself and
   * connects to on `service.port`; such a cluster has no EDS endpoints.
   */
  externalName?: string;
}

export interface EndpointIR {
  address: string;
  port: number;
}

export interface ClusterEndpointsIR {
  /** Name of the cluster these endpoints belong to. */
  cluster: string;
  endpoints: EndpointIR[];
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

/** The whole desired data plane state. Lists are sorted by name so equal inputs give equal output. */
export interface GatewayIR {
  /** Routes for the plaintext listener (TLS hosts redirect to https here unless switched off). */
  http: RouteTableIR;
  /** TLS filter chains of the HTTPS listener; empty means the HTTPS listener is not created. */
  tlsServers: TlsServerIR[];
  clusters: ClusterIR[];
  secrets: TlsSecretIR[];
}
