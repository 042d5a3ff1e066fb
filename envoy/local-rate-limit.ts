// ClientRateLimitIR -> Envoy's local rate limit: the route's rate_limits produce a `remote_address` descriptor, and
// the route's LocalRateLimit config has a descriptor entry with an empty value, which Envoy (>= 1.35) treats as a
// wildcard: one token bucket per distinct client address, kept in an LRU of dynamic descriptors.
//
// Exempt clients (ingress-nginx limit-whitelist): the route's RBAC shadow rules (never enforced) match them and
// write `shadow_engine_result: allowed` into the request's dynamic metadata, "denied" for everybody else. That value
// is the first entry of the descriptor, and only "denied" has a limited bucket; an exempt client's descriptor
// matches none and falls to the route's default bucket, which is too large to run out.
import type { CidrIR, ClientRateLimitIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';

export const localRateLimitFilterName = 'envoy.filters.http.local_ratelimit';
export const localRateLimitType = 'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit';

/** Client addresses tracked per route (Envoy Gateway uses the same number). */
export const maxTrackedClients = 10_000;

const statusNames: Record<ClientRateLimitIR['statusCode'], string> = { 429: 'TooManyRequests', 503: 'ServiceUnavailable' };
const always = { default_value: { numerator: 100, denominator: 'HUNDRED' }, runtime_key: 'envoy_ingress.client_rate_limit' };
const exemptionKey = 'rate_limit_exemption';
/** What the RBAC filter writes for a client its shadow rules do not match (RBAC filter source). */
const notExempt = 'denied';
/** A bucket no client can empty: the most tokens Envoy accepts, refilled every second. */
const unlimited: ResourceJson = { max_tokens: 4294967295, tokens_per_fill: 4294967295, fill_interval: '1s' };

function tokenBucket(limit: ClientRateLimitIR): ResourceJson {
  return { max_tokens: limit.burst, tokens_per_fill: limit.tokensPerFill, fill_interval: `${limit.fillIntervalMs / 1000}s` };
}

function hasExemptions(limit: ClientRateLimitIR): boolean {
  return (limit.exemptSourceCidrs?.length ?? 0) > 0;
}

/** RBAC shadow rules matching the exempt clients (for the route's RBAC per-route config). */
export function buildRateLimitExemptionRules(cidrs: readonly CidrIR[]): ResourceJson {
  const principals = cidrs.map((cidr) => ({ remote_ip: { address_prefix: cidr.address, prefix_len: cidr.prefixLength } }));
  return { action: 'ALLOW', policies: { 'rate-limit-exempt': { permissions: [{ any: true }], principals } } };
}

/** RouteAction.rate_limits: the descriptor is the client's address (the downstream remote address). */
export function buildClientRateLimitActions(limit: ClientRateLimitIR): ResourceJson[] {
  const address = { remote_address: {} };
  if (!hasExemptions(limit)) return [{ actions: [address] }];
  const exemption = {
    metadata: {
      descriptor_key: exemptionKey,
      metadata_key: { key: 'envoy.filters.http.rbac', path: [{ key: 'shadow_engine_result' }] },
      // Without the RBAC verdict the client is limited: a missing exemption must not lift the limit.
      default_value: notExempt,
      source: 'DYNAMIC',
    },
  };
  return [{ actions: [exemption, address] }];
}

/** The route's typed_per_filter_config entry of the local rate limit filter. */
export function buildLocalRateLimitPerRoute(limit: ClientRateLimitIR): ResourceJson {
  const exempting = hasExemptions(limit);
  const entries = [...(exempting ? [{ key: exemptionKey, value: notExempt }] : []), { key: 'remote_address', value: '' }];
  return {
    '@type': localRateLimitType,
    stat_prefix: 'client_rate_limit',
    status: { code: statusNames[limit.statusCode] },
    // Used only by a request whose descriptor matches none below: an exempt client (or, without exemptions, never:
    // every request has a remote address, and then the bucket is the same limit).
    token_bucket: exempting ? { ...unlimited } : tokenBucket(limit),
    filter_enabled: { ...always, runtime_key: `${always.runtime_key}.enabled` },
    filter_enforced: { ...always, runtime_key: `${always.runtime_key}.enforced` },
    descriptors: [{ entries, token_bucket: tokenBucket(limit) }],
    // A client's requests take tokens from its own bucket only, not also from the route's shared one.
    always_consume_default_token_bucket: false,
    // Buckets kept (least recently used evicted, and a returning client starts full): Envoy's default of 20 would
    // let more clients than that reset each other's limits.
    max_dynamic_descriptors: maxTrackedClients,
  };
}
