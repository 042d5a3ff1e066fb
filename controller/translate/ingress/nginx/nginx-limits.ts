// ingress-nginx limits, deny-list and connect timeout (compatibility layer, see
// nginx-annotations.ts): read from the Ingress's nginx annotations into IR settings that have no annotation of our
// own, then put onto the parsed annotations. Bad values are reported and only that setting is dropped, except a
// broken deny-list, which denies everybody (a deny-list that cannot be read must not let its clients in).
import type { CidrIR, ClientRateLimitIR } from '../../../../ir/index.js';
import type { IngressAnnotations } from '../annotations.js';
import { parseCidrList } from '../annotation-values.js';
import { Reason } from '../../shared/reasons.js';
import { nginxAnnotationPrefix } from './catalog.js';

/** What this module needs from the layer's reader of one Ingress's nginx annotations (names after the prefix). */
export interface NginxAnnotationSource {
  raw(name: string): string | undefined;
  invalid(name: string, value: string, accepted: string): void;
  report(reason: string, message: string): void;
}

export interface NginxLimits {
  clientRateLimit?: ClientRateLimitIR;
  deniedSourceCidrs?: CidrIR[];
  /** limit-connections: in flight to the Ingress's backends at once (cluster circuit breaker). */
  maxRequests?: number;
  connectTimeoutMs?: number;
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
  // ingress-nginx writes limit_req burst=<rate x multiplier> nodelay: nginx passes an idle client's first request
  // (excess 0) and `burst` more at once, so the bucket holds one token over the burst.
  const limit: ClientRateLimitIR = { tokensPerFill: rate.per, fillIntervalMs: rate.intervalMs, burst: rate.per * multiplier + 1, statusCode: limitedStatus };
  const exempt = r.raw('limit-whitelist');
  if (exempt !== undefined) {
    const cidrs = parseCidrList(exempt);
    if (cidrs === undefined) r.invalid('limit-whitelist', exempt, 'a comma-separated list of CIDRs; every client is limited');
    else limit.exemptSourceCidrs = cidrs;
  }
  return limit;
}

/** Reads the limit-*, denylist-source-range and proxy-connect-timeout annotations. */
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
  return limits;
}

/** Puts the limits onto the Ingress's parsed annotations (routes and clusters get them from there). */
export function applyNginxLimits(parsed: IngressAnnotations, limits: NginxLimits): void {
  if (limits.clientRateLimit !== undefined) parsed.route.clientRateLimit = { ...limits.clientRateLimit };
  if (limits.deniedSourceCidrs !== undefined) parsed.route.deniedSourceCidrs = limits.deniedSourceCidrs.map((c) => ({ ...c }));
  if (limits.maxRequests !== undefined) parsed.cluster.maxRequests = limits.maxRequests;
  if (limits.connectTimeoutMs !== undefined) parsed.cluster.connectTimeoutMs = limits.connectTimeoutMs;
}
