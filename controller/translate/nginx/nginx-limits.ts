// ingress-nginx limits, deny-list, connect timeout and session-cookie attributes (compatibility layer, see
// nginx-annotations.ts): read from the Ingress's nginx annotations into IR settings that have no annotation of our
// own, then put onto the parsed annotations. Bad values are reported and only that setting is dropped, except a
// broken deny-list, which denies everybody (a deny-list that cannot be read must not let its clients in).
import type { IngressAnnotations } from '../annotations.js';
import { parseCidrList } from '../annotation-values.js';
import type { CidrIR, ClientRateLimitIR, HashPolicyIR, PathMatchIR, RouteIR } from '../ir.js';
import { refKey } from '../kube-objects.js';
import { Reason } from '../reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

/** What this module needs from the layer's reader of one Ingress's nginx annotations (names after the prefix). */
export interface NginxAnnotationSource {
  raw(name: string): string | undefined;
  invalid(name: string, value: string, accepted: string): void;
  report(reason: string, message: string): void;
}

type CookieHashPolicy = Extract<HashPolicyIR, { kind: 'cookie' }>;
export type SessionCookieAttributes = Pick<CookieHashPolicy, 'ttlSeconds' | 'path' | 'sameSite' | 'secure'>;

export interface NginxLimits {
  clientRateLimit?: ClientRateLimitIR;
  deniedSourceCidrs?: CidrIR[];
  /** limit-connections: in flight to the Ingress's backends at once (cluster circuit breaker). */
  maxRequests?: number;
  connectTimeoutMs?: number;
  /** For the affinity cookie (only read with affinity "cookie"). */
  sessionCookie?: SessionCookieAttributes;
  /** Affinity cookie without a (valid) session-cookie-path: its Path is each route's path, as nginx's location. */
  cookiePathFromLocation?: boolean;
}

/** Parsed annotations of an Ingress whose affinity cookie (this name) takes its Path from each route. */
export interface WithNginxCookieLocation {
  nginxCookieAtLocation?: string;
}

/** Names (after the prefix) this module maps; nginx-annotations.ts adds them to its mapped set. */
export const nginxLimitAnnotations = [
  'limit-rps',
  'limit-rpm',
  'limit-burst-multiplier',
  'limit-connections',
  'limit-whitelist',
  'denylist-source-range',
  'proxy-connect-timeout',
  'session-cookie-path',
  'session-cookie-expires',
  'session-cookie-max-age',
  'session-cookie-samesite',
  'session-cookie-secure',
] as const;

/** ingress-nginx's default limit-burst-multiplier. */
export const defaultBurstMultiplier = 5;
/** ingress-nginx answers limited requests with limit-req-status-code, 503 by default (a ConfigMap setting). */
const limitedStatus = 503;
/** Whole numbers as ingress-nginx reads them (GetIntAnnotation), bounded to keep Envoy's fields in range. */
const wholeNumber = (v: string, min: number, max: number): number | undefined => {
  if (!/^\d{1,10}$/.test(v.trim())) return undefined;
  const n = Number(v.trim());
  return n >= min && n <= max ? n : undefined;
};
const everybody: CidrIR[] = [
  { address: '0.0.0.0', prefixLength: 0 },
  { address: '::', prefixLength: 0 },
];

function readNumber(r: NginxAnnotationSource, name: string, min: number, max: number): number | undefined {
  const value = r.raw(name);
  if (value === undefined) return undefined;
  const n = wholeNumber(value, min, max);
  if (n === undefined) r.invalid(name, value, `a whole number from ${min} to ${max}`);
  return n;
}

function readRateLimit(r: NginxAnnotationSource): ClientRateLimitIR | undefined {
  const rps = readNumber(r, 'limit-rps', 0, 1_000_000);
  const rpm = readNumber(r, 'limit-rpm', 0, 60_000_000);
  const multiplier = readNumber(r, 'limit-burst-multiplier', 1, 1000) ?? defaultBurstMultiplier;
  const rate = rps !== undefined && rps > 0 ? { per: rps, intervalMs: 1000 } : rpm !== undefined && rpm > 0 ? { per: rpm, intervalMs: 60_000 } : undefined;
  if (rate === undefined) {
    for (const name of ['limit-burst-multiplier', 'limit-whitelist'].filter((a) => r.raw(a) !== undefined)) {
      r.report(Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}${name} ignored: it needs ${nginxAnnotationPrefix}limit-rps or limit-rpm`);
    }
    return undefined;
  }
  if (rps !== undefined && rps > 0 && rpm !== undefined && rpm > 0) {
    r.report(Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}limit-rpm ignored: ${nginxAnnotationPrefix}limit-rps is set, and only one rate per route is supported`);
  }
  const limit: ClientRateLimitIR = { tokensPerFill: rate.per, fillIntervalMs: rate.intervalMs, burst: rate.per * multiplier, statusCode: limitedStatus };
  const exempt = r.raw('limit-whitelist');
  if (exempt !== undefined) {
    const cidrs = parseCidrList(exempt);
    if (cidrs === undefined) r.invalid('limit-whitelist', exempt, 'a comma-separated list of CIDRs; every client is limited');
    else limit.exemptSourceCidrs = cidrs;
  }
  return limit;
}

function readSessionCookie(r: NginxAnnotationSource, affinity: boolean): SessionCookieAttributes | undefined {
  const family = nginxLimitAnnotations.filter((name) => name.startsWith('session-cookie-') && r.raw(name) !== undefined);
  if (!affinity) {
    for (const name of family) r.report(Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}${name} ignored: it needs ${nginxAnnotationPrefix}affinity "cookie"`);
    return undefined;
  }
  const cookie: SessionCookieAttributes = {};
  const path = r.raw('session-cookie-path');
  if (path !== undefined) {
    if (/^\/[\x21-\x3a\x3c-\x7e]{0,1023}$/.test(path.trim())) cookie.path = path.trim();
    else r.invalid('session-cookie-path', path, 'a path starting with "/" without spaces or ";"');
  }
  // nginx sends both Expires and Max-Age; Envoy sends Max-Age, which browsers prefer. max-age wins, as in browsers.
  const expires = readNumber(r, 'session-cookie-expires', 1, 2 ** 31 - 1);
  const maxAge = readNumber(r, 'session-cookie-max-age', 1, 2 ** 31 - 1);
  const ttl = maxAge ?? expires;
  if (ttl !== undefined) cookie.ttlSeconds = ttl;
  const sameSite = r.raw('session-cookie-samesite');
  if (sameSite !== undefined) {
    const canonical = (['Strict', 'Lax', 'None'] as const).find((s) => s.toLowerCase() === sameSite.trim().toLowerCase());
    if (canonical !== undefined) cookie.sameSite = canonical;
    else r.invalid('session-cookie-samesite', sameSite, '"None", "Lax" or "Strict"');
  }
  const secure = r.raw('session-cookie-secure');
  if (secure !== undefined && secure.trim() !== 'true' && secure.trim() !== 'false') r.invalid('session-cookie-secure', secure, '"true", "false"');
  else if (secure?.trim() === 'true') cookie.secure = true;
  return Object.keys(cookie).length > 0 ? cookie : undefined;
}

/** Reads the limit-*, denylist-source-range, proxy-connect-timeout and session-cookie-* annotations. */
export function readNginxLimits(r: NginxAnnotationSource): NginxLimits {
  const limits: NginxLimits = {};
  const rateLimit = readRateLimit(r);
  if (rateLimit !== undefined) limits.clientRateLimit = rateLimit;
  const connections = readNumber(r, 'limit-connections', 0, 1_000_000);
  if (connections !== undefined && connections > 0) limits.maxRequests = connections;

  const denied = r.raw('denylist-source-range');
  if (denied !== undefined) {
    const cidrs = parseCidrList(denied);
    if (cidrs === undefined) {
      const shown = denied.length > 100 ? `${JSON.stringify(denied.slice(0, 100))}...` : JSON.stringify(denied);
      r.report(
        Reason.InvalidAnnotation,
        `annotation ${nginxAnnotationPrefix}denylist-source-range has invalid value ${shown}; accepted values: a comma-separated list of CIDRs; every client is denied (a broken deny-list must not let its clients in)`,
      );
      limits.deniedSourceCidrs = everybody.map((c) => ({ ...c }));
    } else {
      limits.deniedSourceCidrs = cidrs;
    }
  }

  // nginx proxy_connect_timeout "usually cannot exceed 75 seconds"; ingress-nginx reads whole seconds.
  const connect = readNumber(r, 'proxy-connect-timeout', 1, 3600);
  if (connect !== undefined) limits.connectTimeoutMs = connect * 1000;

  const affinity = r.raw('affinity')?.trim() === 'cookie';
  const cookie = readSessionCookie(r, affinity);
  if (cookie !== undefined) limits.sessionCookie = cookie;
  if (affinity && cookie?.path === undefined) limits.cookiePathFromLocation = true;
  return limits;
}

/**
 * Puts the limits onto the Ingress's parsed annotations (routes and clusters get them from there). The cookie
 * attributes go on the affinity cookie's hash policy named `cookieName`; our own hash-by wins when it set another.
 */
export function applyNginxLimits(parsed: IngressAnnotations, limits: NginxLimits, cookieName: string): void {
  if (limits.clientRateLimit !== undefined) parsed.route.clientRateLimit = { ...limits.clientRateLimit };
  if (limits.deniedSourceCidrs !== undefined) parsed.route.deniedSourceCidrs = limits.deniedSourceCidrs.map((c) => ({ ...c }));
  if (limits.maxRequests !== undefined) parsed.cluster.maxRequests = limits.maxRequests;
  if (limits.connectTimeoutMs !== undefined) parsed.cluster.connectTimeoutMs = limits.connectTimeoutMs;
  if (limits.cookiePathFromLocation === true) Object.assign(parsed, { nginxCookieAtLocation: cookieName } satisfies WithNginxCookieLocation);
  const cookie = limits.sessionCookie;
  if (cookie !== undefined && parsed.route.hashPolicies !== undefined) {
    parsed.route.hashPolicies = parsed.route.hashPolicies.map((policy) =>
      policy.kind === 'cookie' && policy.name === cookieName ? { ...policy, ...cookie } : policy,
    );
  }
}

/** The cookie Path nginx would use for a location: the route's path (a regex path has none usable: `/`). */
function locationPath(match: PathMatchIR): string {
  return match.kind === 'prefix' || match.kind === 'exact' ? match.path : '/';
}

/**
 * ingress-nginx sets the affinity cookie's Path to the location's path when session-cookie-path is not given: each
 * route of such an Ingress gets its own path on the cookie it creates (`/` needs nothing: it is the default).
 * Routes are the translator's own fresh objects (policies already copied per route) and are changed in place.
 */
export function applyNginxCookiePaths(routes: Iterable<RouteIR>, annotations: ReadonlyMap<string, unknown>): void {
  for (const route of routes) {
    if (route.source === undefined || route.policy?.hashPolicies === undefined) continue;
    const name = (annotations.get(refKey(route.source)) as WithNginxCookieLocation | undefined)?.nginxCookieAtLocation;
    const path = locationPath(route.match);
    if (name === undefined || path === '/') continue;
    route.policy.hashPolicies = route.policy.hashPolicies.map((policy) =>
      policy.kind === 'cookie' && policy.name === name && policy.path === undefined ? { ...policy, path } : policy,
    );
  }
}
