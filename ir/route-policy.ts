// Per-route behaviour set by annotations (timeouts, retries, headers, access control, CORS, affinity...).
import type { BasicAuthIR, ExternalAuthIR } from './auth.js';
import type { CidrIR } from './cidr.js';

export interface CorsPolicyIR {
  /** Exact origins (`https://app.example.com`) or `*`; `https://*.example.com` allows one label in place of `*`. */
  allowOrigins: string[];
  /** More allowed origins: RE2 patterns the whole Origin must match (a Gateway API wildcard origin); absent: none. */
  allowOriginPatterns?: string[];
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

/** One mirror target of a route. */
export interface RequestMirrorIR {
  cluster: string;
  /** The share of requests mirrored, numerator / denominator (numerator <= denominator, denominator > 0); absent: all. */
  fraction?: { numerator: number; denominator: number };
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
  /**
   * Requests are also sent to each of these clusters, their answers ignored (Envoy request_mirror_policies); the
   * mirrored copy keeps the client's Host (ingress-nginx mirror-target: one; a Gateway API rule: one per
   * RequestMirror filter).
   */
  mirrors?: RequestMirrorIR[];
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
  /** WebSocket upgrades are let through to the backend (a Gateway API backend with appProtocol kubernetes.io/ws). */
  websocket?: true;
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
  /** Added in this order, after any existing header of the same name (the Gateway API's `add`); absent: none. */
  add?: HeaderIR[];
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
  /** The first wait between tries (later ones grow, up to ten times it); absent: Envoy's 25 ms. */
  backoffBaseMs?: number;
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
