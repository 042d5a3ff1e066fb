// This controller's own Ingress annotations, all under one prefix. Every value is validated: an invalid one is
// reported (InvalidAnnotation, naming the annotation and the accepted form) and only that setting falls back to
// its default; the rest of the Ingress is served as usual. docs/reference/annotations.md lists them all.
import type { ClusterIR, CorsPolicyIR, HeaderMutationIR, LoadBalancerIR, RoutePolicyIR } from '../../../ir/index.js';
import {
  parseCidrList,
  parseDurationMs,
  parseHashBy,
  parseHeaderLines,
  parseHeaderNames,
  parseInteger,
  parseOrigin,
  parsePathReplacement,
  parseServerName,
  parseSizeBytes,
  splitList,
} from './annotation-values.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { type Ingress, refOf } from '../shared/kube-objects.js';
import { annotationPrefix } from '../shared/options.js';
import { Reason } from '../shared/reasons.js';

const a = (name: string): string => `${annotationPrefix}${name}`;

/** Every annotation this controller reads. */
export const Annotation = {
  /** "false" keeps plain-HTTP routes for hosts that have TLS instead of redirecting them to https. */
  sslRedirect: a('ssl-redirect'),
  /** "true": plain-HTTP requests for this Ingress's routes get 403, on every host, TLS or not. */
  httpsOnly: a('https-only'),
  /** "true": plain-HTTP requests for this Ingress's routes are redirected to https even without a TLS entry. */
  forceSslRedirect: a('force-ssl-redirect'),
  requestTimeout: a('request-timeout'),
  idleTimeout: a('idle-timeout'),
  retryOn: a('retry-on'),
  retryCount: a('retry-count'),
  retryPerTryTimeout: a('retry-per-try-timeout'),
  rewritePrefix: a('rewrite-prefix'),
  backendProtocol: a('backend-protocol'),
  backendSni: a('backend-sni'),
  loadBalancer: a('load-balancer'),
  hashBy: a('hash-by'),
  allowedSourceCidrs: a('allowed-source-cidrs'),
  maxRequestBodySize: a('max-request-body-size'),
  requestHeadersSet: a('request-headers-set'),
  requestHeadersRemove: a('request-headers-remove'),
  responseHeadersSet: a('response-headers-set'),
  responseHeadersRemove: a('response-headers-remove'),
  corsAllowOrigins: a('cors-allow-origins'),
  corsAllowMethods: a('cors-allow-methods'),
  corsAllowHeaders: a('cors-allow-headers'),
  corsExposeHeaders: a('cors-expose-headers'),
  corsAllowCredentials: a('cors-allow-credentials'),
  corsMaxAge: a('cors-max-age'),
} as const;

/** Kept for callers of the first version of this module. */
export const sslRedirectAnnotation = Annotation.sslRedirect;

/** Settings of the cluster an Ingress's backends are reached through (a cluster is per Service port). */
export type ClusterSettings = Pick<ClusterIR, 'protocol' | 'upstreamTls' | 'loadBalancer' | 'connectTimeoutMs' | 'maxRequests'>;

export interface IngressAnnotations {
  sslRedirect: boolean;
  httpsOnly: boolean;
  forceSslRedirect: boolean;
  /** Applied to every route of the Ingress that forwards to a backend; empty when nothing is set. */
  route: RoutePolicyIR;
  /** Applied to the clusters of the Ingress's backends; empty when nothing is set. */
  cluster: ClusterSettings;
}

/** Longer values are refused outright (a header list or CIDR list of this size is a mistake, not a config). */
const maxValueLength = 16 * 1024;

const retryConditions = new Set([
  '5xx',
  'gateway-error',
  'reset',
  'reset-before-request',
  'connect-failure',
  'retriable-4xx',
  'refused-stream',
  'envoy-ratelimited',
  'http3-post-connect-failure',
]);
const loadBalancers: Record<string, LoadBalancerIR | undefined> = {
  'round-robin': undefined,
  'least-request': 'least-request',
  'ring-hash': 'ring-hash',
  maglev: 'maglev',
  random: 'random',
};
const backendProtocols = ['http', 'https', 'h2c', 'h2'] as const;
const defaultCorsMethods = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'];
const defaultCorsHeaders = [
  'DNT',
  'Keep-Alive',
  'User-Agent',
  'X-Requested-With',
  'If-Modified-Since',
  'Cache-Control',
  'Content-Type',
  'Range',
  'Authorization',
];

/** Reads annotation values of one Ingress and reports the invalid ones. */
class AnnotationReader {
  constructor(
    private readonly ingress: Ingress,
    private readonly diagnostics: Diagnostic[],
  ) {}

  raw(key: string): string | undefined {
    return this.ingress.metadata.annotations?.[key];
  }

  /** The parsed value, or undefined (absent, or invalid and reported). */
  get<T>(key: string, parse: (text: string) => T | undefined, accepted: string, fallback: string): T | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    const parsed = value.length <= maxValueLength ? parse(value) : undefined;
    if (parsed === undefined) this.invalid(key, value, accepted, fallback);
    return parsed;
  }

  invalid(key: string, value: string, accepted: string, fallback: string): void {
    const shown = value.length > 100 ? `${JSON.stringify(value.slice(0, 100))}... (${value.length} characters)` : JSON.stringify(value);
    this.diagnostics.push({
      object: refOf(this.ingress),
      severity: 'Warning',
      reason: Reason.InvalidAnnotation,
      message: `annotation ${key} has invalid value ${shown}; accepted values: ${accepted}; ${fallback}`,
    });
  }

  ignored(key: string, why: string): void {
    this.diagnostics.push({
      object: refOf(this.ingress),
      severity: 'Warning',
      reason: Reason.InvalidAnnotation,
      message: `annotation ${key} ignored: ${why}`,
    });
  }

  boolean(key: string, defaultValue: boolean): boolean {
    const parsed = this.get(
      key,
      (text) => (text === 'true' ? true : text === 'false' ? false : undefined),
      '"true", "false"',
      `using the default "${String(defaultValue)}"`,
    );
    return parsed ?? defaultValue;
  }
}

const durationForm = '"0" (none) or a number with a unit ms, s, m or h, e.g. "30s", "500ms", "1.5m"';

function parseRetry(r: AnnotationReader, policy: RoutePolicyIR): void {
  const on = r.get(
    Annotation.retryOn,
    (text) => {
      const items = splitList(text);
      return items.length > 0 && items.every((c) => retryConditions.has(c)) ? [...new Set(items)] : undefined;
    },
    `a comma-separated list of ${[...retryConditions].join(', ')}`,
    'using the default "5xx"',
  );
  const count = r.get(Annotation.retryCount, (t) => parseInteger(t, 0, 10), 'a whole number from 0 to 10', 'using the default 1');
  const perTry = r.get(Annotation.retryPerTryTimeout, parseDurationMs, durationForm, 'using no per-try timeout');
  const configured = [Annotation.retryOn, Annotation.retryCount, Annotation.retryPerTryTimeout].some(
    (key) => r.raw(key) !== undefined,
  );
  if (!configured || count === 0) return;
  policy.retry = { on: on ?? ['5xx'], numRetries: count ?? 1 };
  if (perTry !== undefined && perTry > 0) policy.retry.perTryTimeoutMs = perTry;
}

function parseHeaderMutation(r: AnnotationReader, setKey: string, removeKey: string): HeaderMutationIR | undefined {
  const set = r.get(setKey, parseHeaderLines, 'one "Name: value" per line (not host)', 'no header is set');
  const remove = r.get(removeKey, parseHeaderNames, 'a comma-separated list of header names (not host)', 'no header is removed');
  if (set === undefined && remove === undefined) return undefined;
  return { set: set ?? [], remove: remove ?? [] };
}

function parseCors(r: AnnotationReader): CorsPolicyIR | undefined {
  const origins = r.get(
    Annotation.corsAllowOrigins,
    (text) => {
      const items = splitList(text).map(parseOrigin);
      return items.length > 0 && items.every((o) => o !== undefined) ? (items as string[]) : undefined;
    },
    '"*" or a comma-separated list of origins like "https://app.example.com" or "https://*.example.com"',
    'CORS stays off',
  );
  const corsKeys = [
    Annotation.corsAllowMethods,
    Annotation.corsAllowHeaders,
    Annotation.corsExposeHeaders,
    Annotation.corsAllowCredentials,
    Annotation.corsMaxAge,
  ];
  if (origins === undefined) {
    const why =
      r.raw(Annotation.corsAllowOrigins) === undefined
        ? `CORS is only enabled by ${Annotation.corsAllowOrigins}`
        : `CORS stays off while ${Annotation.corsAllowOrigins} is invalid`;
    for (const key of corsKeys.filter((k) => r.raw(k) !== undefined)) r.ignored(key, why);
    return undefined;
  }
  const tokens = (text: string): string[] | undefined => {
    const items = splitList(text);
    return items.length > 0 && items.every((i) => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,256}$/.test(i)) ? items : undefined;
  };
  const methods = r.get(Annotation.corsAllowMethods, (t) => tokens(t)?.map((m) => m.toUpperCase()), 'a comma-separated list of methods', `using the default "${defaultCorsMethods.join(', ')}"`);
  const headers = r.get(Annotation.corsAllowHeaders, tokens, 'a comma-separated list of header names', `using the default "${defaultCorsHeaders.join(', ')}"`);
  const expose = r.get(Annotation.corsExposeHeaders, tokens, 'a comma-separated list of header names', 'no header is exposed');
  const maxAge = r.get(Annotation.corsMaxAge, (t) => parseInteger(t, 0, 2 ** 31 - 1), 'a whole number of seconds', 'no max-age is sent');
  const cors: CorsPolicyIR = {
    allowOrigins: origins,
    allowMethods: methods ?? defaultCorsMethods,
    allowHeaders: headers ?? defaultCorsHeaders,
    exposeHeaders: expose ?? [],
    allowCredentials: r.boolean(Annotation.corsAllowCredentials, false),
  };
  if (maxAge !== undefined) cors.maxAgeSeconds = maxAge;
  return cors;
}

function parseRoutePolicy(r: AnnotationReader, loadBalancer: LoadBalancerIR | undefined): RoutePolicyIR {
  const policy: RoutePolicyIR = {};
  const requestTimeout = r.get(Annotation.requestTimeout, parseDurationMs, durationForm, "using Envoy's default 15s");
  if (requestTimeout !== undefined) policy.requestTimeoutMs = requestTimeout;
  const idleTimeout = r.get(Annotation.idleTimeout, parseDurationMs, durationForm, 'using the listener default');
  if (idleTimeout !== undefined) policy.idleTimeoutMs = idleTimeout;
  parseRetry(r, policy);

  const rewrite = r.get(
    Annotation.rewritePrefix,
    parsePathReplacement,
    'a path starting with "/" without query, fragment, backslash or spaces, e.g. "/" or "/v2/"',
    'the path is sent unchanged',
  );
  if (rewrite !== undefined) policy.rewrite = { kind: 'prefix', replacement: rewrite };

  const hashBy = r.get(Annotation.hashBy, parseHashBy, '"header:NAME", "cookie:NAME" or "source-ip"', 'requests are not hashed');
  if (hashBy !== undefined) {
    if (loadBalancer === 'ring-hash' || loadBalancer === 'maglev') policy.hashPolicies = [hashBy];
    else r.ignored(Annotation.hashBy, `it needs ${Annotation.loadBalancer} "ring-hash" or "maglev"`);
  }

  const cidrs = r.get(
    Annotation.allowedSourceCidrs,
    parseCidrList,
    'a comma-separated list of IP addresses or CIDRs, e.g. "10.0.0.0/8, 192.168.1.7, 2001:db8::/32"',
    'every client is denied (a broken allow-list must not open the routes)',
  );
  if (cidrs !== undefined) policy.allowedSourceCidrs = cidrs;
  else if (r.raw(Annotation.allowedSourceCidrs) !== undefined) policy.allowedSourceCidrs = [];

  const bodySize = r.get(
    Annotation.maxRequestBodySize,
    parseSizeBytes,
    'bytes from 1 to 4294967295, optionally with a unit k, m, g (powers of 1024), e.g. "8m"',
    'no limit',
  );
  if (bodySize !== undefined) policy.maxRequestBodyBytes = bodySize;

  const requestHeaders = parseHeaderMutation(r, Annotation.requestHeadersSet, Annotation.requestHeadersRemove);
  if (requestHeaders !== undefined) policy.requestHeaders = requestHeaders;
  const responseHeaders = parseHeaderMutation(r, Annotation.responseHeadersSet, Annotation.responseHeadersRemove);
  if (responseHeaders !== undefined) policy.responseHeaders = responseHeaders;

  const cors = parseCors(r);
  if (cors !== undefined) policy.cors = cors;
  return policy;
}

function parseClusterSettings(r: AnnotationReader): ClusterSettings {
  const settings: ClusterSettings = {};
  const protocol = r.get(
    Annotation.backendProtocol,
    (t) => backendProtocols.find((p) => p === t.trim().toLowerCase()),
    '"http" (HTTP/1.1), "https" (HTTP/1.1 over TLS), "h2c" (HTTP/2 without TLS), "h2" (HTTP/2 over TLS)',
    'using "http"',
  );
  if (protocol === 'h2c' || protocol === 'h2') settings.protocol = 'http2';
  const tls = protocol === 'https' || protocol === 'h2';
  const sni = r.get(Annotation.backendSni, parseServerName, 'a DNS name, e.g. "api.internal.example.com"', 'no SNI is sent');
  if (tls) settings.upstreamTls = sni === undefined ? {} : { sni };
  else if (sni !== undefined) r.ignored(Annotation.backendSni, `it needs ${Annotation.backendProtocol} "https" or "h2"`);

  // Whether a valid hash-by asks for a hashing balancer (an invalid one is reported where it is read).
  const hashByRaw = r.raw(Annotation.hashBy);
  const hashes = hashByRaw !== undefined && hashByRaw.length <= maxValueLength && parseHashBy(hashByRaw) !== undefined;
  const lbRaw = r.raw(Annotation.loadBalancer);
  const lb = r.get(
    Annotation.loadBalancer,
    (t) => (Object.hasOwn(loadBalancers, t.trim()) ? { policy: loadBalancers[t.trim()] } : undefined),
    `one of ${Object.keys(loadBalancers).join(', ')}`,
    hashes ? 'using "ring-hash" for hash-by' : 'using "round-robin"',
  );
  // hash-by alone asks for a hashing balancer: ring hash is the one that keeps most keys in place on changes.
  const policy = lb !== undefined ? lb.policy : hashes && (lbRaw === undefined || lb === undefined) ? 'ring-hash' : undefined;
  if (policy !== undefined) settings.loadBalancer = policy;
  return settings;
}

/** Reads the annotations, reporting invalid values and falling back to their defaults. */
export function parseAnnotations(ingress: Ingress, diagnostics: Diagnostic[]): IngressAnnotations {
  const r = new AnnotationReader(ingress, diagnostics);
  const sslRedirect = r.boolean(Annotation.sslRedirect, true);
  const httpsOnly = r.boolean(Annotation.httpsOnly, false);
  const forceSslRedirect = r.boolean(Annotation.forceSslRedirect, false);
  const cluster = parseClusterSettings(r);
  return { sslRedirect, httpsOnly, forceSslRedirect, route: parseRoutePolicy(r, cluster.loadBalancer), cluster };
}
