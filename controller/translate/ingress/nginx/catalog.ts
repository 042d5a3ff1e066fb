// The ingress-nginx annotation catalog: for every `nginx.ingress.kubernetes.io/*` annotation we know of, whether
// the compatibility layer (nginx-annotations.ts) maps it, onto which of our annotations, and what behaves
// differently. The layer and `envoy-ingress migrate-check` both read this one table, so they cannot disagree
// (nginx-annotations.test.ts checks that every entry marked supported is really mapped).
import { maxUserRegexProgramSize } from '../../shared/re2-program-size.js';
import { annotationPrefix } from '../../shared/options.js';
import type { NginxAnnotationEntry } from './catalog-entry.js';
import { unmappedNginxAnnotations } from './catalog-unmapped.js';

export const nginxAnnotationPrefix = 'nginx.ingress.kubernetes.io/';

export type { NginxAnnotationEntry, NginxAnnotationStatus } from './catalog-entry.js';

const ours = (name: string): string => `${annotationPrefix}${name}`;
const clientAddress =
  'the client is the downstream remote address (the peer, or the address trusted X-Forwarded-For hops report: --xff-num-trusted-hops), not nginx real_ip';

/** Keyed by the name after the prefix. */
export const nginxAnnotationCatalog: Readonly<Record<string, NginxAnnotationEntry>> = {
  // Every other annotation of ingress-nginx's annotations page, unsupported with its reason (an entry below wins).
  ...unmappedNginxAnnotations,
  'ssl-redirect': {
    status: 'supported',
    equivalent: `${ours('ssl-redirect')}, with ingress-nginx's redirect: 308 (the ConfigMap's http-redirect-code), Location https://host + path and query, no port, a trailing slash dropped (preserve-trailing-slash keeps it)`,
  },
  'force-ssl-redirect': { status: 'supported', equivalent: `${ours('force-ssl-redirect')}, with ingress-nginx's redirect (as ssl-redirect)` },
  'backend-protocol': {
    status: 'supported',
    equivalent: ours('backend-protocol'),
    note: 'HTTP, HTTPS, GRPC (h2c), GRPCS (h2), H2C; AUTO_HTTP and FCGI are not mapped (reported, the setting falls back to HTTP)',
  },
  'proxy-body-size': { status: 'supported', equivalent: ours('max-request-body-size'), note: '"0" means no limit, as in nginx' },
  'proxy-read-timeout': {
    status: 'supported-with-difference',
    equivalent: ours('idle-timeout'),
    note: "nginx times out between two reads from the backend; Envoy's stream idle timeout resets on activity in either direction (the larger of read and send timeout is used)",
  },
  'proxy-send-timeout': {
    status: 'supported-with-difference',
    equivalent: ours('idle-timeout'),
    note: "nginx times out between two writes to the backend; Envoy's stream idle timeout resets on activity in either direction (the larger of read and send timeout is used)",
  },
  'proxy-connect-timeout': { status: 'supported', equivalent: 'the connect timeout of the cluster of the Ingress\'s backends (whole seconds, 1 to 3600)' },
  'whitelist-source-range': { status: 'supported-with-difference', equivalent: ours('allowed-source-cidrs'), note: clientAddress },
  'allowlist-source-range': { status: 'supported-with-difference', equivalent: ours('allowed-source-cidrs'), note: clientAddress },
  'denylist-source-range': {
    status: 'supported-with-difference',
    equivalent: 'an RBAC deny on the routes (403), winning over the allow-list as in nginx',
    note: `${clientAddress}; an unreadable list denies every client`,
  },
  'enable-cors': {
    status: 'supported',
    equivalent: "ingress-nginx's CORS block itself (not Envoy's CORS filter): for an allowed Origin its headers on every response of the routes (Envoy header_mutation, so the proxy's own 401/403/503 and https redirects have them too) and OPTIONS answered 204 by the proxy before access control, rate limits, authentication and the https redirect; defaults as in ingress-nginx (origin *, its methods and headers, credentials true, max-age 1728000)",
  },
  'cors-allow-origin': {
    status: 'supported',
    equivalent: 'the Origins that get the CORS headers, matched as ingress-nginx does (case-insensitive, "*." one label, scheme and port included, any scheme); "*" (the default, or a blank or invalid list) sends Access-Control-Allow-Origin: * to every request',
  },
  'cors-allow-methods': { status: 'supported', equivalent: 'Access-Control-Allow-Methods, as written' },
  'cors-allow-headers': { status: 'supported', equivalent: 'Access-Control-Allow-Headers, as written' },
  'cors-expose-headers': { status: 'supported', equivalent: 'Access-Control-Expose-Headers, as written' },
  'cors-allow-credentials': { status: 'supported', equivalent: 'Access-Control-Allow-Credentials: true unless "false"' },
  'cors-max-age': { status: 'supported', equivalent: 'Access-Control-Max-Age' },
  'upstream-hash-by': {
    status: 'supported-with-difference',
    equivalent: 'ring hash over the same values (hash policies: $remote_addr/$binary_remote_addr, $request_uri, $uri, $host, $scheme, $request_method, $http_NAME, $cookie_NAME, $arg_NAME and their combinations)',
    note: 'other nginx variables are refused (reported, requests not hashed); Envoy ring hash places keys differently from nginx consistent hashing, so a key may land on another pod after the switch (one key still always lands on one pod)',
  },
  'mirror-target': {
    status: 'supported-with-difference',
    equivalent: 'Envoy request_mirror_policies to a cluster of the target (a Service DNS name: its endpoints; another name or address: DNS; a local address is refused, reported, and requests are not mirrored), with the Host and path nginx\'s mirror location sends: the target\'s path with the request\'s query, the request\'s own URI after $request_uri, /_mirror-UID for a bare origin',
    note: 'the client\'s request does not wait for the mirror\'s answer (nginx holds it until the mirror answers: a slow mirror throttles it there, not here); nginx variables other than a final $request_uri are not supported (reported, no mirror); a target on the proxy\'s own host (localhost) is refused',
  },
  'mirror-host': {
    status: 'supported',
    equivalent: 'the Host header of mirrored requests (default: the host name of mirror-target, as nginx)',
  },
  'mirror-request-body': {
    status: 'unsupported',
    note: 'Envoy always mirrors the request body ("on", the default); "off" is not honoured',
  },
  'service-upstream': {
    status: 'supported',
    equivalent: 'the Ingress\'s clusters connect to the Service\'s ClusterIP and port instead of its endpoints (a Service without ClusterIP keeps its endpoints, reported, as ingress-nginx falls back to them)',
  },
  'proxy-next-upstream': {
    status: 'supported-with-difference',
    equivalent: 'an Envoy retry policy to another endpoint: error and timeout -> connect failure, reset, refused stream; http_500, http_502, http_503, http_504, http_403, http_404, http_429 -> those statuses; idempotent methods only unless non_idempotent; off -> none',
    note: 'an Ingress without these annotations is not retried, where ingress-nginx retries connection errors and timeouts by default (its ConfigMap: "error timeout", 3 tries); a timeout while reading the answer ends the request (the route timeout) instead of trying the next endpoint',
  },
  'proxy-next-upstream-tries': {
    status: 'supported-with-difference',
    equivalent: 'the attempts in all (retries = tries - 1; default 3, as ingress-nginx\'s ConfigMap)',
    note: '0 (no limit in nginx) allows 10 retries',
  },
  'proxy-next-upstream-timeout': {
    status: 'unsupported',
    note: 'not mapped: Envoy\'s retry policy has no window after which no new attempt starts (per_try_timeout would cut each attempt, the route timeout a slow successful answer too), so retries are bounded by proxy-next-upstream-tries and the request timeout only',
  },
  'upstream-hash-by-subset': {
    status: 'unsupported',
    note: 'not mapped (nor upstream-hash-by-subset-size)',
    differences: {
      'one-pod': 'a key goes to one pod, where ingress-nginx spreads it over a subset of upstream-hash-by-subset-size pods (default 3)',
    },
  },
  'load-balance': {
    status: 'supported-with-difference',
    equivalent: 'the balancer of the Ingress\'s clusters: round_robin -> round robin (the default), ewma -> least request',
    note: 'ewma (latency-weighted) has no Envoy equivalent: least request, which also favours the endpoints answering fastest; affinity and upstream-hash-by win over it, as in ingress-nginx',
  },
  affinity: {
    status: 'supported-with-difference',
    equivalent: 'the cookie ingress-nginx\'s sticky balancer sets (NAME=KEY|BACKEND, a Lua filter on the routes), the endpoint picked by ring hash over KEY',
    note:
      'KEY picks an endpoint by Envoy\'s ring hash, not nginx\'s consistent hash, so a client with an INGRESSCOOKIE made by ingress-nginx may move pod once at the switch (it keeps its side of a canary: BACKEND is computed as ingress-nginx does)',
  },
  'session-cookie-name': { status: 'supported', equivalent: 'the name of the affinity cookie', note: 'default INGRESSCOOKIE, as in nginx' },
  'affinity-mode': {
    status: 'supported',
    equivalent: 'balanced (default): KEY is random and ring hash maps it to an endpoint; persistent: KEY is the endpoint itself (Envoy stateful session), kept however many endpoints are added, a new one (and a new cookie) only when it is gone',
  },
  'affinity-canary-behavior': {
    status: 'supported',
    equivalent: 'sticky (default): the canary sets the main Ingress\'s affinity cookie with its own backend and keeps its clients; legacy: the canary sets no cookie and is balanced round robin',
  },
  'session-cookie-domain': { status: 'supported', equivalent: 'the Domain attribute of the affinity cookie' },
  'session-cookie-path': { status: 'supported', equivalent: 'the Path of the affinity cookie (default: the path of the route as written, as nginx\'s location)' },
  'session-cookie-expires': { status: 'supported', equivalent: 'the Expires attribute of the affinity cookie (now + the value)' },
  'session-cookie-max-age': { status: 'supported', equivalent: 'the Max-Age attribute of the affinity cookie' },
  'session-cookie-samesite': { status: 'supported', equivalent: 'the SameSite attribute of the affinity cookie (as written: None, Lax, Strict)' },
  'session-cookie-secure': { status: 'supported', equivalent: 'the Secure attribute of the affinity cookie ("false" or none: only over TLS, as nginx)' },
  'session-cookie-conditional-samesite-none': {
    status: 'supported',
    equivalent: 'SameSite=None is left out for the user agents ingress-nginx leaves it out for (same_site.lua)',
  },
  'session-cookie-change-on-failure': { status: 'unsupported', note: 'not mapped: a client whose pod is gone is hashed to another pod, its cookie is kept' },
  'rewrite-target': {
    status: 'supported-with-difference',
    equivalent: 'regex rewrite of the whole path',
    note:
      'the whole path becomes the target and every path of the host, from any Ingress, becomes a regex (as in ingress-nginx: see use-regex); $1..$9 are the path\'s capture groups (empty when the path has fewer); other nginx variables ($host, $arg_x...) are refused (the path is sent unchanged)',
  },
  'use-regex': {
    status: 'supported-with-difference',
    equivalent: 'regex path match (RE2, case-insensitive, anchored at the start: ~* "^path")',
    note: `every path of the host, from any Ingress, becomes such a regex, as in ingress-nginx; RE2 syntax, not PCRE: a path RE2 refuses (lookaround, backreferences) or one RE2 would compile to more than ${maxUserRegexProgramSize.toLocaleString('en-US')} instructions is reported and not served (see the route changes); matched against the path as Envoy normalises it, not nginx's percent-decoded URI`,
  },
  'app-root': { status: 'supported', equivalent: 'a 302 redirect of exactly / to the path (before every route of the host)' },
  'permanent-redirect': {
    status: 'supported',
    equivalent: 'every route of the Ingress answers 301 with the value as Location, as written (nginx return 301 URL); a path is made absolute on the request\'s scheme and host (nginx absolute_redirect) unless relative-redirects',
  },
  'permanent-redirect-code': { status: 'supported', equivalent: 'the redirect status, 300 to 308 (else 301, as in ingress-nginx; 300, 304, 305 and 306 send the URL as the body, as nginx does)' },
  'temporal-redirect': {
    status: 'supported',
    equivalent: 'every route of the Ingress answers 302 with the value (an http:// or https:// URL) as Location; wins over permanent-redirect, as in ingress-nginx',
  },
  'temporal-redirect-code': { status: 'supported', equivalent: 'the status of temporal-redirect, 300 to 307 (else 302, as in ingress-nginx)' },
  'relative-redirects': { status: 'supported', equivalent: 'a permanent-redirect path is sent as written in Location (nginx absolute_redirect off)' },
  'preserve-trailing-slash': { status: 'supported', equivalent: 'the https redirect of ssl-redirect / force-ssl-redirect keeps a trailing slash (by default /a/ -> https://host/a, as ingress-nginx)' },
  'server-alias': {
    status: 'supported',
    equivalent: "each alias is one more name (Envoy domain) of the host's virtual host, as nginx's server_name: the routes of every Ingress of the host answer it, without being copied; an alias that is a host of its own, or another host's alias, is reported and left out; the oldest Ingress of the host with aliases decides; at most 32 aliases per Ingress, the rest reported",
  },
  'from-to-www-redirect': {
    status: 'supported',
    equivalent: "www.<host> (or <host> without www.) redirects every request to scheme://<host>:<port> + the URI less a final \"/\" (308, the ConfigMap's http-redirect-code), on http (port 80) and https (the HTTPS listener's port) alike, unless that name is a host of its own",
  },
  'x-forwarded-prefix': { status: 'supported', equivalent: `${ours('request-headers-set')} X-Forwarded-Prefix` },
  'upstream-vhost': {
    status: 'supported',
    equivalent: 'the Host header sent upstream (route host rewrite); the client\'s Host goes in X-Forwarded-Host, as ingress-nginx sends it to every backend',
  },
  'connection-proxy-header': { status: 'supported', equivalent: `${ours('request-headers-set')} Connection ("close" or "keep-alive", the values ingress-nginx accepts)` },
  canary: {
    status: 'supported-with-difference',
    equivalent: "joins the main Ingress's route with the same host, path and pathType as written, as ingress-nginx does (header/cookie routes before it, a weighted split on it)",
    note: "a canary Ingress's own upstream-hash-by and affinity are ignored like its other annotations, where ingress-nginx applies them to the canary's upstream (its own load-balance is applied, and the main Ingress's affinity, see affinity-canary-behavior), and its spec.defaultBackend is not a canary (its spec.tls is ignored by both)",
  },
  'canary-weight': { status: 'supported', equivalent: 'a weighted split of the main route (Envoy weighted_clusters)', note: 'out of canary-weight-total' },
  'canary-weight-total': { status: 'supported', equivalent: 'the total of the weighted split', note: 'default 100; like ingress-nginx, a total below 100 counts as 100 (and is reported)' },
  'canary-by-header': { status: 'supported', equivalent: 'routes with a header match before the main route ("always" -> canary, "never" -> main)' },
  'canary-by-header-value': { status: 'supported', equivalent: 'a route with an exact header match before the main route' },
  'canary-by-header-pattern': {
    status: 'supported-with-difference',
    equivalent: 'a route with a regex header match before the main route',
    note: 'RE2 instead of PCRE: a pattern RE2 cannot run (look-around, back-references) is reported and nothing is routed by header (a pattern no engine compiles sends requests with the header to the main backend, as in ingress-nginx)',
  },
  'canary-by-cookie': {
    status: 'supported-with-difference',
    equivalent: 'routes matching the Cookie header before the main route ("always" -> canary, "never" -> main; the name case-insensitive, as nginx)',
    note: 'a request that sends the cookie twice with both values goes to the canary ("always" is checked first), where nginx takes the first one',
  },
  'limit-rps': {
    status: 'supported-with-difference',
    equivalent: 'a token bucket per client address on the routes (Envoy local rate limit), 503 when empty',
    note: `burst limit-rps x limit-burst-multiplier plus the first request (as nginx's limit_req burst=N nodelay) and refill limit-rps tokens every second (nginx lets one request through every 1/rps s); counted per Envoy replica, as nginx counts per pod; Envoy keeps buckets for the 10,000 most recently seen clients of a route (an evicted client starts with a full bucket); ${clientAddress}`,
  },
  'limit-rpm': {
    status: 'supported-with-difference',
    equivalent: 'a token bucket per client address on the routes (Envoy local rate limit), 503 when empty',
    note: 'refilled limit-rpm tokens every minute; with limit-rps set too only limit-rps applies (nginx applies both)',
  },
  'limit-burst-multiplier': { status: 'supported', equivalent: 'the burst of limit-rps / limit-rpm (default 5): a bucket of rate x multiplier + 1 tokens, as nginx passes the first request and the burst' },
  'limit-connections': {
    status: 'supported-with-difference',
    equivalent: 'a circuit breaker (max_requests) on the cluster of the Ingress\'s backends',
    note: 'it caps the requests in flight from all clients together, where nginx limits the connections of each client address (Envoy has no per-client concurrency limit); requests beyond the cap get 503 at once',
  },
  'limit-whitelist': {
    status: 'supported-with-difference',
    equivalent: 'clients in the ranges skip the limit-rps / limit-rpm bucket (RBAC shadow rules mark them for the rate limit)',
    note: 'limit-connections still counts them (it is not per client here); an unreadable list exempts nobody',
  },
  'auth-type': {
    status: 'supported-with-difference',
    equivalent: 'basic auth checked by the controller (Envoy ext_authz over gRPC on the xDS connection) on the Ingress\'s routes',
    note: '"basic" only: "digest" (which Envoy cannot do) makes the paths answer 503, as any auth setting that cannot be honoured',
  },
  'auth-secret': {
    status: 'supported',
    equivalent: 'the users the controller checks credentials against',
    note: 'every hash ingress-nginx accepts (apr1 as htpasswd -c writes it, bcrypt $2y$/$2a$/$2b$, SHA-256/512-crypt, MD5-crypt, DES crypt, {SHA}, {SSHA}, {PLAIN}); the Authorization header is not sent upstream (as ingress-nginx); a missing or unusable Secret makes the paths answer 503, as in ingress-nginx; a Secret of another namespace (ns/name) is refused the same way (SecretNamespaceRefused) unless the controller runs with --nginx-allow-cross-namespace-resources (ingress-nginx: allow-cross-namespace-resources, off by default); entries that cannot log in are reported by line, never with their name or hash',
  },
  'auth-secret-type': { status: 'supported', equivalent: 'how the users are read from the Secret (auth-file or auth-map)' },
  'auth-realm': { status: 'supported', equivalent: 'the realm of the 401\'s WWW-Authenticate: Basic challenge (empty by default, as nginx)' },
  'auth-url': {
    status: 'supported-with-difference',
    equivalent: 'Envoy ext_authz filter (HTTP service)',
    note: 'the check request keeps the client\'s method and Host and goes to the URL\'s path followed by the request path (/oauth2/auth/app/page, not /oauth2/auth; X-Original-URL, X-Original-Method, X-Auth-Request-Redirect and X-Sent-From are set as nginx sets them); only 200 allows (nginx allows any 2xx); other answers go to the client with their status (nginx turns all but 401/403 into 500); a name.namespace.svc[.cluster.local] host uses that Service\'s endpoints; loopback and link-local hosts are refused (paths answer 503)',
    differences: {
      'auth-cookie-on-errors':
        'the authorization service\'s Set-Cookie reaches the client also when the backend answers an error (here as with auth-always-set-cookie: "true"); ingress-nginx adds it to 2xx/3xx answers only unless auth-always-set-cookie is "true"',
    },
  },
  'auth-response-headers': {
    status: 'supported',
    equivalent: 'ext_authz allowed_upstream_headers; the client\'s own headers of those names are removed first (nginx sets them from the answer, empty when it has none)',
  },
  satisfy: {
    status: 'supported-with-difference',
    equivalent: 'with auth-type basic: "any" lets in a client the allow-list (whitelist-source-range) admits without credentials, and right basic credentials skip the auth-url check; "all" (default): each must pass',
    note: 'with "any", auth-url alone does not combine with an allow-list (both must pass), and the deny-list (denylist-source-range) still refuses its clients whatever their credentials',
  },
  'auth-method': { status: 'unsupported', note: 'Envoy sends the check request with the client\'s own method' },
  'auth-signin': {
    status: 'supported',
    equivalent: 'a 401 of the authentication becomes a 302 to the URL (a Lua filter before the auth filters)',
    note: 'with rd= (or auth-signin-redirect-param) = scheme://Host + the escaped request URI, as ingress-nginx appends it; the nginx variables $host, $http_host, $best_http_host, $scheme, $pass_access_scheme, $request_uri and $escaped_request_uri are filled in (a URL with others is reported and ignored); a 401 from the backend itself is not redirected',
  },
  'auth-signin-redirect-param': { status: 'supported', equivalent: 'the name of the redirect parameter of auth-signin (default rd)' },
  'auth-always-set-cookie': { status: 'supported', equivalent: 'the auth service\'s Set-Cookie reaches the client on every answer, errors included (Envoy ext_authz allowed_client_headers_on_success)' },
  'auth-request-redirect': { status: 'unsupported', note: 'not mapped: X-Auth-Request-Redirect is always the request URI' },
  'auth-cache-key': { status: 'unsupported', note: 'not mapped: every request is checked with the authorization service' },
  'auth-cache-duration': { status: 'unsupported', note: 'not mapped: every request is checked with the authorization service' },
  'auth-proxy-set-headers': { status: 'unsupported', note: 'not mapped: the check request carries the client headers only' },
  'auth-keepalive': { status: 'unsupported', note: 'not mapped: Envoy keeps connections to the authorization service open by itself' },
  'enable-global-auth': { status: 'unsupported', note: 'not mapped: there is no global auth-url' },
  'ssl-passthrough': {
    status: 'supported-with-difference',
    equivalent: 'an SNI filter chain on the HTTPS listener proxying TCP to the backend (no --enable-ssl-passthrough needed)',
    note: 'every TLS connection for the host goes to the backend of its "/" path (else its first path) and plain HTTP keeps serving the rules, as in ingress-nginx; the host is decided by the oldest Ingress naming it, and other paths are reported (SslPassthroughPathsIgnored)',
  },
  'default-backend': {
    status: 'supported-with-difference',
    equivalent: 'an aggregate cluster: the Service first, the default backend (first port of the named Service) while the Service has no ready endpoints',
    note: 'a Service that does not exist sends its requests to the default backend with X-Code 503, X-Format, X-Namespace, X-Ingress-Name, X-Service-Name and X-Service-Port, as in ingress-nginx; but Envoy switches per request for a Service without ready endpoints, so those requests reach the default backend as the client sent them (ingress-nginx adds the same headers)',
  },
  'custom-http-errors': {
    status: 'supported-with-difference',
    equivalent: 'Envoy custom_response filter re-routing the request to the default backend (path /, query kept, the client\'s Host) with X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port, X-Request-ID',
    note: 'X-Original-URI also reaches the Ingress\'s own backend (ingress-nginx sends it there only with proxy-add-original-uri-header); the error requests go through the reserved host custom-errors.envoy-ingress.invalid, which a client can name too (it reaches only default backends)',
  },
  'enable-access-log': {
    status: 'supported',
    equivalent: '"false": the Ingress\'s requests write no line in Envoy\'s access log (route metadata read by a CEL filter of the access log, present only while such a route exists)',
  },
  'proxy-cookie-domain': {
    status: 'supported',
    equivalent: 'the Domain attribute of the backend\'s Set-Cookie headers rewritten as nginx proxy_cookie_domain does ("FROM TO": a Domain equal to FROM, case-insensitive, becomes TO; a Lua filter on the route); nginx\'s regex form ("~...") is reported and ignored',
  },
  'proxy-cookie-path': {
    status: 'supported',
    equivalent: 'the Path attribute of the backend\'s Set-Cookie headers rewritten as nginx proxy_cookie_path does ("FROM TO": a Path starting with FROM gets TO in its place; a Lua filter on the route); nginx\'s regex form ("~...") is reported and ignored',
  },
  'disable-proxy-intercept-errors': {
    status: 'supported',
    equivalent: 'with custom-http-errors: the backend\'s own answers reach the client unchanged, only the proxy\'s own errors (no endpoint, timeout...) are replaced, as nginx without proxy_intercept_errors',
  },
  'auth-tls-secret': {
    status: 'supported-with-difference',
    equivalent:
      "per host, as ingress-nginx: the host's TLS chain asks for a client certificate and verifies it against the Secret's ca.crt (and ca.crl), both served over SDS; every route of the host then answers as nginx's ssl_verify_client does (400 \"No required SSL certificate was sent\" / \"The SSL certificate error\"), and sends the backend ssl-client-verify, ssl-client-subject-dn and ssl-client-issuer-dn (a client's own headers of these names are dropped). The oldest Ingress of the host that sets auth-tls-* decides; a Secret of another namespace (without --nginx-allow-cross-namespace-resources), a missing one or one without a usable ca.crt makes the whole host answer 403, as ingress-nginx's server does",
    note: 'a TLS request whose SNI is not the host (or that sent none) gets 421 Misdirected Request: its connection was verified against another host\'s CAs, or none (nginx answers 421 for another SNI too, and checks a request without SNI against its default server); plain-HTTP requests are not checked, as in nginx',
  },
  'auth-tls-verify-client': {
    status: 'supported-with-difference',
    equivalent: '"on" (default): a certificate that verifies is required; "optional": one that does not verify is refused, none is fine; "optional_no_ca": a certificate is asked for and never refused; "off": none is asked for',
    note: 'ssl-client-verify reads "FAILED" without nginx\'s reason after it',
  },
  'auth-tls-verify-depth': { status: 'supported', equivalent: 'the longest client certificate chain accepted (Envoy max_verify_depth, OpenSSL\'s depth as nginx ssl_verify_depth; default 1)' },
  'auth-tls-error-page': { status: 'supported', equivalent: 'a refused request (no certificate, or one that does not verify) is redirected there with 302 instead of answered 400, as nginx error_page 495 496' },
  'auth-tls-pass-certificate-to-upstream': { status: 'supported', equivalent: 'the backend gets the client certificate in ssl-client-cert, URL-encoded PEM as nginx $ssl_client_escaped_cert (Envoy %DOWNSTREAM_PEER_CERT%)' },
  'auth-tls-match-cn': {
    status: 'supported-with-difference',
    equivalent: 'the whole value ("CN=...") must match somewhere in the client certificate\'s subject (RFC 2253, as $ssl_client_s_dn), else 403: an RBAC rule on the routes of the host; RE2 syntax (a pattern RE2 cannot run makes the host answer 403, reported)',
    note: 'the 403 has Envoy\'s body ("RBAC: access denied"), not nginx\'s "client certificate unauthorized"; plain-HTTP requests are not refused for it (nginx refuses them, having no subject to match)',
  },
  'proxy-ssl-secret': {
    status: 'supported-with-difference',
    equivalent:
      "for a TLS backend (backend-protocol HTTPS or GRPCS): the Secret's tls.crt and tls.key are presented to it (a client certificate over SDS) and its ca.crt are the CAs proxy-ssl-verify checks against; the Ingress's clusters get these settings (a cluster variant per Ingress). A Secret of another namespace (without --nginx-allow-cross-namespace-resources), a missing or unusable one makes the Ingress's paths answer 503, as ingress-nginx denies the location; a plain-HTTP backend is reached as before (nginx's proxy_ssl_* do nothing for it)",
    note: "other Ingresses of the host do not inherit the settings (ingress-nginx also puts the first Ingress's proxy-ssl-* on the server block, where locations without their own inherit them)",
  },
  'proxy-ssl-verify': {
    status: 'supported-with-difference',
    equivalent: '"on": the backend\'s certificate must chain to ca.crt and name proxy-ssl-name (by default nginx\'s $proxy_host, "upstream_balancer" in ingress-nginx: set proxy-ssl-name), else no connection (502/503)',
    note: 'the name is checked against the certificate\'s subject alternative names only, not its CN (nginx falls back to the CN when there are none)',
    differences: {
      'backend-not-verified-503': 'a TLS backend the proxy cannot complete the handshake with (its certificate does not verify, or it wants a client certificate it does not get) is answered 503 (Envoy\'s upstream connect error), where nginx answers 502',
    },
  },
  'proxy-ssl-verify-depth': { status: 'supported', equivalent: 'the longest backend certificate chain accepted (Envoy max_verify_depth; default 1)' },
  'proxy-ssl-name': { status: 'supported', equivalent: 'the name checked by proxy-ssl-verify and sent by proxy-ssl-server-name' },
  'proxy-ssl-server-name': { status: 'supported', equivalent: '"on": proxy-ssl-name (default "upstream_balancer", as nginx) is sent as SNI' },
  'proxy-ssl-ciphers': {
    status: 'supported',
    equivalent: 'the TLS 1.2 ciphers offered to the backend (Envoy cipher_suites, BoringSSL rules): a list naming a cipher or group BoringSSL does not know, or leaving none, is reported and Envoy\'s defaults are used (Envoy would refuse it)',
  },
  'proxy-ssl-protocols': { status: 'supported', equivalent: 'the TLS versions offered to the backend, "TLSv1.2" (default) and/or "TLSv1.3"' },
  'proxy-redirect-from': {
    status: 'unsupported',
    note: 'not mapped: Location headers of the backend reach the client unchanged',
    differences: {
      'location-unchanged': 'a backend\'s Location starting with proxy-redirect-from is passed on as is, where nginx replaces that start with proxy-redirect-to',
    },
  },
  'proxy-buffering': { status: 'unsupported', note: 'not mapped: Envoy streams bodies as nginx does with "off" (ingress-nginx\'s default); "on" has no effect' },
  'configuration-snippet': {
    status: 'refused',
    note: 'raw nginx configuration has no safe equivalent; use our annotations (docs/reference/annotations.md)',
    differences: {
      'served-despite-word-blocklist': 'an Ingress whose snippet holds a word of the ConfigMap\'s annotation-value-word-blocklist is served (without the snippet), where ingress-nginx drops the whole Ingress (404)',
      'snippet-not-applied': 'the Ingress is served without its snippet even where the ConfigMap allows snippets (allow-snippet-annotations "true"): e.g. more_set_headers adds no header; envoy-ingress.io/response-headers-set does',
    },
  },
  'server-snippet': { status: 'refused', note: 'raw nginx configuration has no safe equivalent; use our annotations (docs/reference/annotations.md)' },
  'stream-snippet': { status: 'refused', note: 'raw nginx configuration has no safe equivalent' },
  'auth-snippet': { status: 'refused', note: 'raw nginx configuration has no safe equivalent' },
};

/** The catalog entry of a full annotation key; unknown nginx annotations are unsupported. */
export function nginxCatalogEntry(key: string): NginxAnnotationEntry | undefined {
  if (!key.startsWith(nginxAnnotationPrefix)) return undefined;
  const name = key.slice(nginxAnnotationPrefix.length);
  return Object.hasOwn(nginxAnnotationCatalog, name)
    ? (nginxAnnotationCatalog[name] as NginxAnnotationEntry)
    : { status: 'unsupported', note: 'not one this controller maps (docs/reference/nginx-annotations.md lists those it does)' };
}
