// ClientRateLimitIR -> Envoy's local rate limit: the route's rate_limits produce a `remote_address` descriptor, and
// the route's LocalRateLimit config has a descriptor entry with an empty value, which Envoy (>= 1.35) treats as a
// wildcard: one token bucket per distinct client address, kept in an LRU of dynamic descriptors.
import type { ClientRateLimitIR } from '../controller/translate/ir.js';
import type { ResourceJson } from './resource-types.js';

export const localRateLimitFilterName = 'envoy.filters.http.local_ratelimit';
export const localRateLimitType = 'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit';

/** Client addresses tracked per route (Envoy Gateway uses the same number). */
export const maxTrackedClients = 10_000;

const statusNames: Record<ClientRateLimitIR['statusCode'], string> = { 429: 'TooManyRequests', 503: 'ServiceUnavailable' };
const always = { default_value: { numerator: 100, denominator: 'HUNDRED' }, runtime_key: 'envoy_ingress.client_rate_limit' };

function tokenBucket(limit: ClientRateLimitIR): ResourceJson {
  return { max_tokens: limit.burst, tokens_per_fill: limit.tokensPerFill, fill_interval: `${limit.fillIntervalMs / 1000}s` };
}

/** RouteAction.rate_limits: the descriptor is the client's address (the downstream remote address). */
export function buildClientRateLimitActions(): ResourceJson[] {
  return [{ actions: [{ remote_address: {} }] }];
}

/** The route's typed_per_filter_config entry of the local rate limit filter. */
export function buildLocalRateLimitPerRoute(limit: ClientRateLimitIR): ResourceJson {
  return {
    '@type': localRateLimitType,
    stat_prefix: 'client_rate_limit',
    status: { code: statusNames[limit.statusCode] },
    // Used only by a request without a descriptor (never: every request has a remote address); the same limit.
    token_bucket: tokenBucket(limit),
    filter_enabled: { ...always, runtime_key: `${always.runtime_key}.enabled` },
    filter_enforced: { ...always, runtime_key: `${always.runtime_key}.enforced` },
    descriptors: [{ entries: [{ key: 'remote_address', value: '' }], token_bucket: tokenBucket(limit) }],
    // A client's requests take tokens from its own bucket only, not also from the route's shared one.
    always_consume_default_token_bucket: false,
    // Buckets kept (least recently used evicted, and a returning client starts full): Envoy's default of 20 would
    // let more clients than that reset each other's limits.
    max_dynamic_descriptors: maxTrackedClients,
  };
}
