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
   * `path` has no trailing slash, except the root prefix `/`, which matches everything. `trailingSlash` marks a
   * path written with one (`/foo/`): it matches the same requests, but wins over `/foo` on the same host, since
   * the Ingress spec gives the longest path as written priority (networking/v1 PathTypePrefix).
   */
  | { kind: 'prefix'; path: string; trailingSlash?: true }
  /**
   * nginx prefix location (ingress-nginx's ImplementationSpecific paths): the path starts with `path`, character
   * by character, so `/foo` also matches `/foobar`, and `/foo/` does not match `/foo`. `path` is as written
   * (never `/`, which is the `prefix` root). Only Ingresses read with the nginx layer get it.
   */
  | { kind: 'character-prefix'; path: string }
  /**
   * RE2 `regex` that the WHOLE path must match (Envoy safe_regex), built by the translator from a regex path
   * (ingress-nginx use-regex: `(?i)^(?:<path>).*`, case-insensitive and anchored at the start only). `path` is the
   * Ingress path as written, for ordering (by its length, as ingress-nginx orders locations) and messages.
   */
  | { kind: 'regex'; path: string; regex: string };

export type RouteActionIR =
  /** Proxy to a cluster; with `split`, a share of the requests goes to the split's cluster instead (a canary). */
  | { kind: 'forward'; cluster: string; split?: TrafficSplitIR }
  /**
   * Redirect the same host and path (query kept) to https. `stripTrailingSlash`: a path ending in "/" loses it
   * (ingress-nginx: `/a/` -> `https://host/a`, `/` -> `https://host`), unless preserve-trailing-slash.
   */
  | { kind: 'https-redirect'; statusCode: 301 | 302 | 307 | 308; port?: number; stripTrailingSlash?: true }
  /**
   * Redirect to the same path (query kept) on another scheme, host and port (ingress-nginx from-to-www-redirect);
   * `stripTrailingSlash` as for https-redirect.
   */
  | { kind: 'host-redirect'; statusCode: 301 | 302 | 307 | 308; scheme: 'http' | 'https'; host: string; port: number; stripTrailingSlash?: true }
  /**
   * Answer every request with `location` as written (ingress-nginx permanent-redirect / temporal-redirect, nginx
   * `return CODE URL`): the Location header for 301, 302, 303, 307 and 308, the body for other codes (300-306), as
   * nginx sends them. A location starting with "/" is made absolute on the request's scheme and host (nginx
   * absolute_redirect) unless `relative` (relative-redirects); the request's query is never added.
   */
  | { kind: 'url-redirect'; statusCode: number; location: string; relative?: true }
  /**
   * Redirect to another path on the same scheme, host and port (ingress-nginx app-root); the request's query is
   * dropped, `query` (when given) is sent instead.
   */
  | { kind: 'path-redirect'; statusCode: 301 | 302 | 307 | 308; path: string; query?: string }
  /** Answer locally, e.g. 404 for nothing matched or 503 for a backend that cannot be resolved. */
  | { kind: 'direct'; status: number; body?: string; contentType?: string };

/**
 * Of every request, `weight` out of `totalWeight` (chosen at random) go to `cluster`, the rest to the route's own
 * cluster. 0 < weight <= totalWeight (ingress-nginx canary-weight / canary-weight-total).
 */
export interface TrafficSplitIR {
  cluster: string;
  weight: number;
  totalWeight: number;
}

/** A condition on a request header, in addition to the path (ingress-nginx canary-by-header / canary-by-cookie). */
export interface HeaderMatchIR {
  /** Lower-case header name. */
  name: string;
  /** exact: the header's value equals `value`; regex: the RE2 pattern `value` matches the whole header value. */
  kind: 'exact' | 'regex';
  value: string;
}

/**
 * Name of the route the controller adds when nothing else matched and no default backend exists (the 404 page).
 * The Envoy builders serve it as Envoy's own "no route" reply (envoy/not-found-reply.ts).
 */
export const fallbackRouteName = 'fallback';

export interface RouteIR {
  /** Unique within its virtual host, e.g. `ingress/default/web/rule/0/path/1`. */
  name: string;
  match: PathMatchIR;
  /** Every one must hold too (a request without the header matches none); absent means the path decides alone. */
  headers?: HeaderMatchIR[];
  action: RouteActionIR;
  /** The Ingress this route came from; absent for routes the controller adds itself (404 fallback). */
  source?: ObjectRef;
  /**
   * Per-route behaviour set by annotations; absent means Envoy's defaults. Only on `forward` routes, except
   * `corsResponse`, which an `https-redirect` route may carry too (ingress-nginx answers CORS before redirecting).
   */
  policy?: RoutePolicyIR;
}

/** A header to set (replacing any value the message already has). */
export interface HeaderIR {
  name: string;
  value: string;
}

/** Header changes on a request (before it goes upstream) or on a response (before it goes to the client). */
export interface HeaderMutationIR {
  /** Set in this order, each replacing an existing header of the same name. Values are literal text. */
  set: HeaderIR[];
  /** Lower-case names removed. */
  remove: string[];
}

/** How the path sent upstream is derived from the request path (query string kept). */
export type PathRewriteIR =
  /** The part matched by the route's path is replaced by `replacement` (`/api` -> `/`: `/api/x` becomes `/x`). */
  | { kind: 'prefix'; replacement: string }
  /** RE2 `pattern` over the whole path replaced by `substitution` (`\\1` for capture groups). */
  | { kind: 'regex'; pattern: string; substitution: string };

export interface RetryPolicyIR {
  /** Envoy `retry_on` conditions, e.g. `5xx`, `connect-failure`, `reset`. */
  on: string[];
  numRetries: number;
  perTryTimeoutMs?: number;
  /** Answers with these statuses are retried too (with `retriable-status-codes` in `on`). */
  retriableStatusCodes?: number[];
  /** Only requests with an idempotent method are retried (nginx does not pass POST, LOCK, PATCH to the next server). */
  idempotentOnly?: true;
  /** A retry goes to another endpoint than the ones tried (nginx's "next upstream"). */
  otherEndpoint?: true;
}

/** What a request's hash is computed from (for `ring-hash` / `maglev` clusters). */
export type HashPolicyIR =
  /** A request header (or pseudo-header such as `:path`); `stripQuery`: its value up to the `?`. */
  | { kind: 'header'; name: string; stripQuery?: true }
  /** A query parameter's value (ingress-nginx upstream-hash-by `$arg_NAME`). */
  | { kind: 'query-parameter'; name: string }
  /**
   * Envoy creates the cookie when the request has none: a session cookie with path / unless `ttlSeconds` / `path`
   * say otherwise; `sameSite` and `secure` add those attributes (ingress-nginx session-cookie-*).
   */
  | { kind: 'cookie'; name: string; ttlSeconds?: number; path?: string; sameSite?: 'Strict' | 'Lax' | 'None'; secure?: boolean }
  | { kind: 'source-ip' };

/** An IP range; `prefixLength` 32 (IPv4) or 128 (IPv6) for one address. */
export interface CidrIR {
  address: string;
  prefixLength: number;
}

export interface CorsPolicyIR {
  /** Exact origins (`https://app.example.com`) or `*`. */
  allowOrigins: string[];
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  allowCredentials: boolean;
  maxAgeSeconds?: number;
}

/**
 * ingress-nginx's CORS (enable-cors), which is not the CORS protocol Envoy's filter speaks: when the request's Origin
 * is allowed, every response of the route (the backend's, and the proxy's own such as a 401) carries
 * Access-Control-Allow-Origin and `headers`, and an OPTIONS request is answered 204 by the proxy itself, before
 * any access control or authentication (nginx answers it in its rewrite phase).
 */
export interface CorsResponseIR {
  /**
   * RE2 pattern the whole Origin header must match; Access-Control-Allow-Origin is then the request's Origin.
   * Absent: every request is a CORS request, with or without an Origin, and Access-Control-Allow-Origin is `*`.
   */
  originRegex?: string;
  /** The other headers, in order (credentials, methods, headers, expose headers, max age). */
  headers: HeaderIR[];
}

/** FROM -> TO rewrites of Set-Cookie attributes, as nginx's proxy_cookie_domain / proxy_cookie_path do them. */
export interface CookieRewriteIR {
  /** A Domain equal to `from` (case-insensitive, leading dot kept) becomes `to`. */
  domain?: { from: string; to: string };
  /** A Path starting with `from` gets `to` in place of that start. */
  path?: { from: string; to: string };
}

/**
 * A token bucket per client address (ingress-nginx limit-rps): each client may send `burst` requests at once and
 * `tokensPerFill` more every `fillIntervalMs`; a request without a token is answered `statusCode`.
 */
export interface ClientRateLimitIR {
  tokensPerFill: number;
  fillIntervalMs: number;
  burst: number;
  statusCode: 429 | 503;
  /** Clients in these ranges are not limited (ingress-nginx limit-whitelist). */
  exemptSourceCidrs?: CidrIR[];
}

/** gzip for responses (ingress-nginx use-gzip): compressed when the client accepts gzip. */
export interface CompressionIR {
  /** 1 (fastest) to 9 (smallest). */
  level: number;
  /** Responses with a Content-Length below this are sent as they are. */
  minLength: number;
  /** Content types compressed. */
  contentTypes: string[];
}

export interface RoutePolicyIR {
  /** Whole-request timeout (0 = none); Envoy's default is 15 s. */
  requestTimeoutMs?: number;
  /** Longest time without activity on the stream (0 = none). */
  idleTimeoutMs?: number;
  retry?: RetryPolicyIR;
  /** Every request is also sent to this cluster, its answer ignored (Envoy request_mirror_policies). */
  mirrorCluster?: string;
  rewrite?: PathRewriteIR;
  requestHeaders?: HeaderMutationIR;
  responseHeaders?: HeaderMutationIR;
  /** In order; the first that yields a value is used. Needs a cluster with a hashing load balancer. */
  hashPolicies?: HashPolicyIR[];
  /** Only clients whose address is in one of these may use the route (403 otherwise); empty denies everybody. */
  allowedSourceCidrs?: CidrIR[];
  /** Clients whose address is in one of these get 403, even when allowedSourceCidrs lets them in. */
  deniedSourceCidrs?: CidrIR[];
  /** Requests per client address beyond this rate are refused. */
  clientRateLimit?: ClientRateLimitIR;
  /** Larger request bodies get 413; the body is buffered before it is forwarded. */
  maxRequestBodyBytes?: number;
  cors?: CorsPolicyIR;
  /** The Domain / Path attributes of the backend's Set-Cookie headers are rewritten (ingress-nginx proxy-cookie-*). */
  cookieRewrite?: CookieRewriteIR;
  /** ingress-nginx CORS: fixed response headers for allowed origins, OPTIONS answered 204 by the proxy. */
  corsResponse?: CorsResponseIR;
  /** Only requests with the credentials of one of these users reach the backend (401 otherwise). */
  basicAuth?: BasicAuthIR;
  /** Each request is first sent to an HTTP authorization service, which allows or denies it (ingress-nginx auth-url). */
  externalAuth?: ExternalAuthIR;
  /**
   * X-Forwarded-Host sent upstream: the Host the client sent (before any host rewrite), replacing any X-Forwarded-Host
   * of its own, as ingress-nginx sends it to every backend (`proxy_set_header X-Forwarded-Host $best_http_host`).
   */
  forwardedHost?: boolean;
  /** With forwardedHost: a client's own X-Forwarded-Host is kept (ingress-nginx use-forwarded-headers "true"). */
  forwardedHostFromClient?: boolean;
  /**
   * The client's own X-Request-ID reaches the backend (ingress-nginx's $req_id) instead of Envoy's; Envoy keeps
   * external request ids per listener, so once a route asks, every route of the listener keeps them.
   */
  keepClientRequestId?: boolean;
  /** false: the route's requests get no access log line (ingress-nginx enable-access-log "false"). */
  accessLog?: false;
  /** The Host (authority) sent upstream instead of the client's, e.g. `legacy.internal` (ingress-nginx upstream-vhost). */
  hostRewrite?: string;
  /** The Host sent upstream is taken from this request header (Envoy host_rewrite_header), when the request has it. */
  hostRewriteFromHeader?: string;
  /** Responses are gzip-compressed for clients that accept it (ingress-nginx ConfigMap use-gzip). */
  compression?: CompressionIR;
  /**
   * The route forwards to an ingress-nginx default backend in place of a Service that does not exist: the request
   * carries X-Code 503 and X-Format (the client's Accept), as ingress-nginx tells a custom default backend, plus
   * these fixed headers (X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port).
   */
  defaultBackendHeaders?: HeaderIR[];
  /** Responses with some statuses are replaced by another route's answer to the same request (custom-http-errors). */
  errorPages?: ErrorPagesIR;
  /** ingress-nginx cookie affinity: the cookie is made and read as ingress-nginx's sticky balancer does. */
  affinityCookie?: AffinityCookieIR;
}

/**
 * ingress-nginx session affinity (affinity: cookie). A request without the cookie gets a random key, which picks the
 * endpoint (ring hash over the key); the answer sets `name=KEY|BACKEND` with the attributes below, BACKEND being the
 * key of the cluster that answered (`backends`). A request with the cookie is hashed on its KEY, and its BACKEND
 * pins it to that cluster (a canary's or the main one: the routes that match it come first, see nginx-canary.ts).
 */
export interface AffinityCookieIR {
  name: string;
  path: string;
  /** Expires = now + this (ingress-nginx session-cookie-expires). */
  expiresSeconds?: number;
  maxAgeSeconds?: number;
  domain?: string;
  /** As written (ingress-nginx checks it case-insensitively and sends it unchanged). */
  sameSite?: string;
  /** SameSite=None is left out for the user agents that reject it (ingress-nginx same_site.lua). */
  conditionalSameSiteNone?: boolean;
  /** Secure on every answer; otherwise only on TLS connections. */
  secure?: boolean;
  /**
   * affinity-mode persistent: KEY is the endpoint's address (Envoy stateful session), which a client keeps while
   * that endpoint exists, however many are added; without it (balanced) KEY is random and ring hash maps it.
   */
  persistent?: true;
  /** Cluster name -> backend key; an answer from a cluster not listed sets no cookie (a legacy canary). */
  backends: { cluster: string; key: string }[];
}

/**
 * ingress-nginx custom-http-errors: when the response (from upstream or from Envoy itself) has one of `statuses`,
 * the request is re-routed, inside Envoy, to `host` + `path` (a route of the error-pages virtual host) and the
 * client gets that answer, status included. The re-routed request carries the error's description: its status,
 * the client's Accept, original URI and request id, plus the fixed `headers` (which Ingress and Service).
 */
export interface ErrorPagesIR {
  statuses: number[];
  /** Only Envoy's own answers are replaced, the backend's pass (ingress-nginx disable-proxy-intercept-errors). */
  proxyErrorsOnly?: boolean;
  host: string;
  path: string;
  headers: HeaderIR[];
}

/** A TLS host whose connections are passed on unterminated (ingress-nginx ssl-passthrough), selected by SNI. */
export interface TlsPassthroughIR {
  /** Deterministic filter chain name, e.g. `passthrough/foo.example.com`. */
  name: string;
  serverNames: string[];
  /** The cluster (one of GatewayIR.clusters) the TCP stream goes to. */
  cluster: string;
}

/**
 * A cluster that sends each request to the first of `clusters` with endpoints, in order, decided by the proxy at
 * request time (ingress-nginx default-backend: the default backend serves while a Service has no endpoints).
 */
export interface FallbackClusterIR {
  name: string;
  /** Names of GatewayIR.clusters entries, most preferred first. */
  clusters: string[];
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
  /** Upstream HTTP version; absent means HTTP/1.1. */
  protocol?: 'http2';
  /** Connect to the endpoints over TLS (the certificate is not verified); `sni` is the server name sent. */
  upstreamTls?: { sni?: string };
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
export interface ListenerSettingsIR {
  /** Envoy writes no Server header of its own; a backend's passes unless the route removes it (server-tokens). */
  serverHeaderPassThrough?: boolean;
  /** One proxy in front is trusted: its X-Forwarded-For and X-Forwarded-Proto are believed (use-forwarded-headers). */
  trustForwardedHeaders?: boolean;
}

export interface GatewayIR {
  /** Routes for the plaintext listener (TLS hosts redirect to https here unless switched off). */
  http: RouteTableIR;
  /** TLS filter chains of the HTTPS listener; empty means the HTTPS listener is not created. */
  tlsServers: TlsServerIR[];
  clusters: ClusterIR[];
  secrets: TlsSecretIR[];
  /** SNI names whose TLS connections go unterminated to a backend; absent or empty means none. */
  tlsPassthrough?: TlsPassthroughIR[];
  /** Clusters routes may forward to besides `clusters`; absent or empty means none. */
  fallbackClusters?: FallbackClusterIR[];
  /** Connection manager settings of both listeners that the translation decides (the ingress-nginx ConfigMap). */
  listener?: ListenerSettingsIR;
  /** The users of every basic-auth Secret routes name (BasicAuthIR.usersId), sorted by id; absent means none. */
  basicAuthUsers?: BasicAuthUsersIR[];
}

/** htpasswd text (`user:hash` lines) that does not print itself: password hashes are credentials too. */
export class HtpasswdUsers {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  reveal(): string {
    return this.#text;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
}

/**
 * HTTP basic authentication (ingress-nginx auth-type basic); the users come from a Secret. Envoy asks the controller
 * (ext_authz over gRPC) with `usersId`; the users themselves stay in the controller (GatewayIR.basicAuthUsers).
 */
export interface BasicAuthIR {
  /** Which entry of GatewayIR.basicAuthUsers holds the users: `namespace/name/secretType` of their Secret. */
  usersId: string;
  /** The realm of the 401's `WWW-Authenticate: Basic realm="..."` challenge (auth-realm; empty by default, as nginx). */
  realm: string;
  /** The Secret the users come from, so a problem can be reported on it. */
  secret: ObjectRef;
  /**
   * ingress-nginx `satisfy: any` with auth-url on the same route: right credentials skip the auth-url check, wrong
   * ones are left to it (instead of a 401).
   */
  satisfyAny?: boolean;
  /**
   * ingress-nginx `satisfy: any` with an allow-list: clients in these ranges need no credentials, others need them
   * (the route then has no allowedSourceCidrs of its own).
   */
  allowedWithoutCredentials?: CidrIR[];
}

/** The users of one basic-auth Secret (`user:hash` lines of any scheme ingress-nginx accepts), by BasicAuthIR.usersId. */
export interface BasicAuthUsersIR {
  id: string;
  users: HtpasswdUsers;
}

/**
 * An HTTP authorization service (ingress-nginx auth-url). A 200 answer lets the request through (with the
 * `responseHeaders` of that answer copied onto it); any other answer is sent to the client instead.
 */
export interface ExternalAuthIR {
  /** Name of the HTTP filter that calls this service; equal settings give equal names. */
  filter: string;
  /** The URL as configured (shown in Envoy's config; the cluster decides where requests go). */
  uri: string;
  /** Cluster of `clusters` the check requests go to. */
  cluster: string;
  /** Put before the request's own path in the check request (Envoy always appends the path). */
  pathPrefix: string;
  /** Lower-case names of headers copied from the service's 200 answer onto the request sent upstream. */
  responseHeaders: string[];
  /**
   * auth-signin: a 401 of the authentication becomes a 302 to this URL, whose nginx variables ($host,
   * $escaped_request_uri...) are filled in per request; the `rd=` parameter is already in it (envoy/auth-signin.ts).
   */
  signin?: string;
}
