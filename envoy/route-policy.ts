// RoutePolicyIR -> the Envoy Route fields that carry it: RouteAction settings (timeouts, retries, rewrite, hash
// policy, rate limit descriptors), header mutations, and per-route configuration of the RBAC, CORS, buffer and local
// rate limit HTTP filters (which the
// connection manager only carries, disabled by default, when some route uses them: see http-filters.ts).
import { affinityHostHeader, type CidrIR, type CorsPolicyIR, type HashPolicyIR, type HeaderMutationIR, type PathMatchIR, type PathRewriteIR, type RequestMirrorIR, type RoutePolicyIR } from '../ir/index.js';
import { buildCompressorPerRoute, compressorFilterName } from './compressor.js';
import { authPassedFilterName, authSigninFilterName, buildAuthPassedPerRoute, buildAuthSigninPerRoute, usesAuthPassed, usesAuthSignin } from './auth-signin.js';
import { buildClientRateLimitActions, buildLocalRateLimitPerRoute, buildRateLimitExemptionRules, localRateLimitFilterName } from './local-rate-limit.js';
import type { ResourceJson } from './resource-types.js';
import { basicAuthFilterName, buildBasicAuthPerRoute } from './basic-auth.js';
import { buildExtAuthzPerRoute, externalAuthFilterName } from './ext-authz.js';
import { buildCookieRewritePerRoute, cookieRewriteFilterName } from './cookie-rewrite.js';
import { accessLogOffMetadata } from './access-log.js';
import { buildErrorPagesPerRoute, buildErrorPagesRequestHeaders, customResponseFilterName, forwardedHostRequestHeader, buildDefaultBackendRequestHeaders } from './error-pages.js';
import {
  buildAffinityCookieHashPolicy,
  buildAffinityCookiePerRoute,
  buildAffinityCookieResponseHeaders,
  buildStatefulSessionPerRoute,
  luaFilterName,
  statefulSessionFilterName,
} from './affinity-cookie.js';

export const rbacFilterName = 'envoy.filters.http.rbac';
export const corsFilterName = 'envoy.filters.http.cors';
export const bufferFilterName = 'envoy.filters.http.buffer';

const rbacPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBACPerRoute';
const corsPolicyType = 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy';
const previousHostsType = 'type.googleapis.com/envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate';
const bufferPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.BufferPerRoute';

/** A proto3 JSON Duration as the proto codec prints it (`15s`, `1.5s`), so encoding and decoding give it back. */
export function durationJson(ms: number): string {
  return `${ms / 1000}s`;
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/**
 * A prefix replacement as an RE2 rewrite of the path the route matched. With `/api` -> `/`, `/api/x` becomes `/x`
 * (not `//x`, what Envoy's prefix_rewrite would give) and `/api` becomes `/`; with `/api` -> `/v2`, `/api/x`
 * becomes `/v2/x`. The query string is never part of the rewritten path.
 */
export function prefixRewriteRegex(match: PathMatchIR, replacement: string): { regex: string; substitution: string } {
  if (match.kind === 'exact') return { regex: `^${escapeRegex(match.path)}$`, substitution: replacement };
  // A regex path: the part its pattern matched (without the trailing `.*` the route match adds) is replaced.
  if (match.kind === 'regex') return { regex: match.regex.replace(/\.\*$/, ''), substitution: replacement };
  if (match.kind === 'character-prefix') return { regex: `^${escapeRegex(match.path)}`, substitution: replacement };
  if (match.path === '/') {
    return { regex: '^/', substitution: replacement.endsWith('/') ? replacement : `${replacement}/` };
  }
  // A replacement ending in `/` takes the matched prefix's following slash with it.
  const slash = replacement.endsWith('/') ? '/?' : '';
  return { regex: `^${escapeRegex(match.path)}${slash}`, substitution: replacement };
}

function buildRegexRewrite(match: PathMatchIR, rewrite: PathRewriteIR): ResourceJson {
  const { regex, substitution } =
    rewrite.kind === 'prefix' ? prefixRewriteRegex(match, rewrite.replacement) : { regex: rewrite.pattern, substitution: rewrite.substitution };
  return { pattern: { regex }, substitution };
}

function buildHashPolicy(policy: HashPolicyIR): ResourceJson {
  switch (policy.kind) {
    case 'header':
      if (policy.stripQuery === true) return { header: { header_name: policy.name, regex_rewrite: { pattern: { regex: '\\?.*$' }, substitution: '' } } };
      return { header: { header_name: policy.name } };
    case 'query-parameter':
      return { query_parameter: { name: policy.name } };
    case 'cookie': {
      // A ttl (even 0s, a session cookie) makes Envoy set the cookie when the request has none.
      const cookie: ResourceJson = { name: policy.name, ttl: `${policy.ttlSeconds ?? 0}s`, path: policy.path ?? '/' };
      const attributes: ResourceJson[] = [];
      if (policy.sameSite !== undefined) attributes.push({ name: 'SameSite', value: policy.sameSite });
      if (policy.secure === true) attributes.push({ name: 'Secure' });
      if (attributes.length > 0) cookie['attributes'] = attributes;
      return { cookie };
    }
    case 'source-ip':
      return { connection_properties: { source_ip: true } };
  }
}

/**
 * A share as Envoy's FractionalPercent: per hundred when it is a whole percentage, else per million (rounded; a
 * Gateway API fraction may have any denominator).
 */
export function fractionalPercentJson(numerator: number, denominator: number): ResourceJson {
  if ((numerator * 100) % denominator === 0) return { numerator: (numerator * 100) / denominator, denominator: 'HUNDRED' };
  return { numerator: Math.round((numerator * 1_000_000) / denominator), denominator: 'MILLION' };
}

function buildMirrorPolicy(mirror: RequestMirrorIR): ResourceJson {
  const fields: ResourceJson = { cluster: mirror.cluster, disable_shadow_host_suffix_append: true };
  if (mirror.fraction !== undefined) fields['runtime_fraction'] = { default_value: fractionalPercentJson(mirror.fraction.numerator, mirror.fraction.denominator) };
  return fields;
}

/** RouteAction fields for a forwarding route. */
export function buildRouteActionPolicy(match: PathMatchIR, policy: RoutePolicyIR): ResourceJson {
  const fields: ResourceJson = {};
  if (policy.requestTimeoutMs !== undefined) fields['timeout'] = durationJson(policy.requestTimeoutMs);
  if (policy.idleTimeoutMs !== undefined) fields['idle_timeout'] = durationJson(policy.idleTimeoutMs);
  if (policy.retry !== undefined) {
    const retry: ResourceJson = { retry_on: policy.retry.on.join(','), num_retries: policy.retry.numRetries };
    if (policy.retry.perTryTimeoutMs !== undefined) retry['per_try_timeout'] = durationJson(policy.retry.perTryTimeoutMs);
    if (policy.retry.retriableStatusCodes !== undefined) retry['retriable_status_codes'] = [...policy.retry.retriableStatusCodes];
    if (policy.retry.idempotentOnly === true) {
      retry['retriable_request_headers'] = [{ name: ':method', string_match: { safe_regex: { regex: 'GET|HEAD|PUT|DELETE|OPTIONS|TRACE' } } }];
    }
    if (policy.retry.otherEndpoint === true) {
      retry['retry_host_predicate'] = [{ name: 'envoy.retry_host_predicates.previous_hosts', typed_config: { '@type': previousHostsType } }];
      retry['host_selection_retry_max_attempts'] = 5;
    }
    if (policy.retry.backoffBaseMs !== undefined) retry['retry_back_off'] = { base_interval: durationJson(policy.retry.backoffBaseMs) };
    fields['retry_policy'] = retry;
  }
  // The mirrored request keeps the client's Host (no "-shadow" suffix): an nginx mirror's cluster sets nginx's
  // (mirror-rewrite.ts).
  if (policy.mirrors !== undefined && policy.mirrors.length > 0) fields['request_mirror_policies'] = policy.mirrors.map(buildMirrorPolicy);
  // Enabled on the route alone: the connection manager has no upgrade configured, so other routes refuse upgrades.
  if (policy.websocket === true) fields['upgrade_configs'] = [{ upgrade_type: 'websocket', enabled: true }];
  if (policy.rewrite !== undefined) fields['regex_rewrite'] = buildRegexRewrite(match, policy.rewrite);
  if (policy.hostRewrite !== undefined) fields['host_rewrite_literal'] = policy.hostRewrite;
  else if (policy.hostRewriteFromHeader !== undefined) fields['host_rewrite_header'] = policy.hostRewriteFromHeader;
  // The affinity cookie's key (put in a header by its Lua script) is what the endpoint is picked by.
  if (policy.affinityCookie !== undefined) {
    if (policy.affinityCookie.persistent !== true) fields['hash_policy'] = [buildAffinityCookieHashPolicy()];
  } else if (policy.hashPolicies !== undefined && policy.hashPolicies.length > 0) {
    fields['hash_policy'] = policy.hashPolicies.map(buildHashPolicy);
  }
  if (policy.clientRateLimit !== undefined) fields['rate_limits'] = buildClientRateLimitActions(policy.clientRateLimit);
  return fields;
}

export function buildHeaderMutation(mutation: HeaderMutationIR, prefix: 'request' | 'response'): ResourceJson {
  const fields: ResourceJson = {};
  if (mutation.set.length > 0) {
    fields[`${prefix}_headers_to_add`] = mutation.set.map(({ name, value }) => ({
      // Envoy reads `%` as the start of a command (`%REQ(...)%`): a literal one is written `%%`.
      header: { key: name, value: value.replaceAll('%', '%%') },
      append_action: 'OVERWRITE_IF_EXISTS_OR_ADD',
    }));
  }
  if (mutation.add !== undefined && mutation.add.length > 0) {
    fields[`${prefix}_headers_to_add`] = [
      ...((fields[`${prefix}_headers_to_add`] as ResourceJson[] | undefined) ?? []),
      ...mutation.add.map(({ name, value }) => ({ header: { key: name, value: value.replaceAll('%', '%%') }, append_action: 'APPEND_IF_EXISTS_OR_ADD' })),
    ];
  }
  if (mutation.remove.length > 0) fields[`${prefix}_headers_to_remove`] = [...mutation.remove];
  return fields;
}

function buildCidrRange(cidr: CidrIR): ResourceJson {
  return { address_prefix: cidr.address, prefix_len: cidr.prefixLength };
}

/**
 * Allows only clients from the ranges. `remote_ip` is the downstream remote address: the connecting peer while the
 * connection manager trusts no X-Forwarded-For hop (the default), else the client the trusted proxies reported.
 */
function buildAccessRules(allowed: readonly CidrIR[] | undefined, denied: readonly CidrIR[] | undefined): ResourceJson {
  const anyOf = (cidrs: readonly CidrIR[]): ResourceJson[] => cidrs.map((cidr) => ({ remote_ip: buildCidrRange(cidr) }));
  if (allowed === undefined) {
    // Only a deny-list: everybody but the listed clients.
    const policies = { 'denied-source-cidrs': { permissions: [{ any: true }], principals: anyOf(denied ?? []) } };
    return { action: 'DENY', policies };
  }
  // ALLOW without any policy allows nobody: what an empty (broken) allow-list must do.
  const rules: ResourceJson = { action: 'ALLOW' };
  if (allowed.length > 0) {
    // The deny-list wins over the allow-list (as in ingress-nginx): allowed and not denied.
    const principals =
      denied === undefined || denied.length === 0
        ? anyOf(allowed)
        : [{ and_ids: { ids: [{ or_ids: { ids: anyOf(allowed) } }, { not_id: { or_ids: { ids: anyOf(denied) } } }] } }];
    rules['policies'] = { 'allowed-source-cidrs': { permissions: [{ any: true }], principals } };
  }
  return rules;
}

/** The route's RBAC: enforced allow/deny rules, and shadow rules that only tell the rate limit who is exempt. */
function buildRbacPerRoute(policy: RoutePolicyIR): ResourceJson | undefined {
  const rbac: ResourceJson = {};
  if (policy.allowedSourceCidrs !== undefined || (policy.deniedSourceCidrs?.length ?? 0) > 0) {
    rbac['rules'] = buildAccessRules(policy.allowedSourceCidrs, policy.deniedSourceCidrs);
  }
  const exempt = policy.clientRateLimit?.exemptSourceCidrs;
  if (exempt !== undefined && exempt.length > 0) rbac['shadow_rules'] = buildRateLimitExemptionRules(exempt);
  return Object.keys(rbac).length === 0 ? undefined : { '@type': rbacPerRouteType, rbac };
}

function buildOriginMatcher(origin: string): ResourceJson {
  const wildcard = /^(https?:\/\/)\*\.(.+)$/.exec(origin);
  if (wildcard === null) return { exact: origin };
  // One label in place of `*`, as for wildcard hosts.
  return { safe_regex: { regex: `${escapeRegex(wildcard[1] as string)}[^./:]+\\.${escapeRegex(wildcard[2] as string)}` } };
}

function buildCorsPolicy(cors: CorsPolicyIR): ResourceJson {
  const policy: ResourceJson = {
    '@type': corsPolicyType,
    allow_origin_string_match: [...cors.allowOrigins.map(buildOriginMatcher), ...(cors.allowOriginPatterns ?? []).map((regex) => ({ safe_regex: { regex } }))],
  };
  if (cors.allowMethods.length > 0) policy['allow_methods'] = cors.allowMethods.join(',');
  if (cors.allowHeaders.length > 0) policy['allow_headers'] = cors.allowHeaders.join(',');
  if (cors.exposeHeaders.length > 0) policy['expose_headers'] = cors.exposeHeaders.join(',');
  if (cors.maxAgeSeconds !== undefined) policy['max_age'] = String(cors.maxAgeSeconds);
  policy['allow_credentials'] = cors.allowCredentials;
  // A preflight from an origin not allowed is answered here (200, no CORS headers), not sent to the backend, which
  // has no policy to apply to it (the Gateway API's CORS conformance test requires it). ingress-nginx's own CORS,
  // which does forward such preflights, is CorsResponseIR, not this filter.
  policy['forward_not_matching_preflights'] = false;
  return policy;
}

/** typed_per_filter_config entries, by filter name; empty when the policy uses none of the filters. */
export function buildPerFilterConfig(policy: RoutePolicyIR): ResourceJson {
  const config: ResourceJson = {};
  const rbac = buildRbacPerRoute(policy);
  if (rbac !== undefined) config[rbacFilterName] = rbac;
  if (policy.clientRateLimit !== undefined) config[localRateLimitFilterName] = buildLocalRateLimitPerRoute(policy.clientRateLimit);
  if (policy.cors !== undefined) config[corsFilterName] = buildCorsPolicy(policy.cors);
  if (policy.cookieRewrite !== undefined) config[cookieRewriteFilterName] = buildCookieRewritePerRoute(policy.cookieRewrite);
  if (policy.errorPages !== undefined) config[customResponseFilterName] = buildErrorPagesPerRoute(policy.errorPages);
  if (policy.basicAuth !== undefined) config[basicAuthFilterName] = buildBasicAuthPerRoute(policy.basicAuth);
  if (policy.affinityCookie !== undefined) config[luaFilterName] = buildAffinityCookiePerRoute(policy.affinityCookie);
  if (policy.affinityCookie?.persistent === true) config[statefulSessionFilterName] = buildStatefulSessionPerRoute();
  if (policy.externalAuth !== undefined) config[externalAuthFilterName] = buildExtAuthzPerRoute(policy.externalAuth);
  if (policy.compression !== undefined) config[compressorFilterName] = buildCompressorPerRoute();
  if (usesAuthSignin(policy.externalAuth)) config[authSigninFilterName] = buildAuthSigninPerRoute(policy.externalAuth!);
  if (usesAuthPassed(policy)) config[authPassedFilterName] = buildAuthPassedPerRoute(policy);
  if (policy.maxRequestBodyBytes !== undefined) {
    config[bufferFilterName] = { '@type': bufferPerRouteType, buffer: { max_request_bytes: policy.maxRequestBodyBytes } };
  }
  return config;
}

/** Route-level fields (outside the action): header mutations and per-filter configuration. */
export function buildRoutePolicyFields(policy: RoutePolicyIR): ResourceJson {
  const fields: ResourceJson = {};
  if (policy.requestHeaders !== undefined) Object.assign(fields, buildHeaderMutation(policy.requestHeaders, 'request'));
  if (policy.responseHeaders !== undefined) Object.assign(fields, buildHeaderMutation(policy.responseHeaders, 'response'));
  if (policy.errorPages !== undefined || policy.forwardedHost === true || policy.defaultBackendHeaders !== undefined) {
    const added = [...((fields['request_headers_to_add'] as ResourceJson[] | undefined) ?? [])];
    if (policy.errorPages !== undefined) added.push(...buildErrorPagesRequestHeaders());
    if (policy.defaultBackendHeaders !== undefined) added.push(...buildDefaultBackendRequestHeaders(policy.defaultBackendHeaders));
    added.push(forwardedHostRequestHeader(policy.forwardedHostFromClient === true));
    fields['request_headers_to_add'] = added;
  }
  if (policy.affinityCookie !== undefined) {
    fields['response_headers_to_add'] = [...((fields['response_headers_to_add'] as ResourceJson[] | undefined) ?? []), ...buildAffinityCookieResponseHeaders()];
  }
  // The endpoint header is read before the router (stateful session) and need not reach the backend.
  if (policy.affinityCookie?.persistent === true) {
    fields['request_headers_to_remove'] = [...((fields['request_headers_to_remove'] as string[] | undefined) ?? []), affinityHostHeader];
  }
  // Read by the access log's filter (access-log.ts).
  if (policy.accessLog === false) fields['metadata'] = { filter_metadata: { [accessLogOffMetadata]: { enabled: false } } };
  const perFilter = buildPerFilterConfig(policy);
  if (Object.keys(perFilter).length > 0) fields['typed_per_filter_config'] = perFilter;
  return fields;
}
