// HTTP filters that annotations and routes configure per route (RBAC for allowed-source-cidrs, CORS, local rate
// limit, buffer for max-request-body-size, authentication, client certificates...). A connection manager carries every
// one of them always, disabled: each runs only on routes whose typed_per_filter_config names it (route-policy.ts).
// Always, not when a route first uses one: adding a filter is a listener update, which drains every connection of
// every tenant on the listener (issue 25: a tenant's change never drains other tenants' connections). Only gzip,
// a controller-wide setting of the admin's ConfigMap, joins when it is configured.
// The Lua scripts (11 KB of the 12 KB these filters weigh in each connection manager, which every HTTPS host's
// filter chain has) are served once over ECDS (filter-discovery.ts): each connection manager names them. The others
// stay inline: their configurations are a few bytes, and a config_discovery reference weighs as much (the type URL
// either way).
import type { CompressionIR, RouteTableIR, VirtualHostIR } from '../ir/index.js';
import { buildCompressorFilterConfig, compressorFilterName } from './compressor.js';
import type { NamedResource, ResourceJson } from './resource-types.js';
import { buildDiscoveredHttpFilter, buildTypedExtensionConfig } from './filter-discovery.js';
import { incrementalHostScan } from './host-scan.js';
import { bufferFilterName, corsFilterName, rbacFilterName } from './route-policy.js';
import { localRateLimitFilterName, localRateLimitType } from './local-rate-limit.js';
import { basicAuthFilterName, buildBasicAuthFilterConfig } from './basic-auth.js';
import { buildExternalAuthFilter } from './ext-authz.js';
import { customResponseFilterName, customResponseType } from './error-pages.js';
import { buildLuaFilterConfig, buildStatefulSessionFilterConfig, luaFilterName, statefulSessionFilterName } from './affinity-cookie.js';
import { corsResponseFilterName, headerMutationType } from './cors-response.js';
import { buildCookieRewriteFilterConfig, cookieRewriteFilterName } from './cookie-rewrite.js';
import { buildClientCertificateFilterConfig, buildClientSubjectFilterConfig, clientCertificateFilterName, clientSubjectFilterName } from './client-certificate-check.js';
import { authPassedFilterName, authSigninFilterName, buildAuthPassedFilterConfig, buildAuthSigninFilterConfig } from './auth-signin.js';

interface AlwaysPresentFilter {
  name: string;
  config: ResourceJson;
  /** Served once over ECDS under its name, not inline in each connection manager. */
  discovered?: true;
}

const filters: readonly AlwaysPresentFilter[] = [
  // The client certificate check first of all: nginx checks it before anything of the server runs, and nothing
  // changes its answers. The subject check follows it (it reads what the check recorded).
  { name: clientCertificateFilterName, config: buildClientCertificateFilterConfig(), discovered: true },
  { name: clientSubjectFilterName, config: buildClientSubjectFilterConfig() },
  // First of the others, so it sees every response last, whichever filter made it (custom-http-errors replaces a 403 too).
  { name: customResponseFilterName, config: { '@type': customResponseType } },
  // auth-signin / auth-response-headers (auth-signin.ts): before every filter that can deny, so it sees their 401s.
  { name: authSigninFilterName, config: buildAuthSigninFilterConfig(), discovered: true },
  // ingress-nginx CORS headers: before every filter that can answer by itself (RBAC's 403, a rate limit's 503,
  // authentication's 401), so those answers carry them too, as nginx's more_set_headers puts them on every response.
  // Authentication filters must stay after it.
  {
    name: corsResponseFilterName,
    config: { '@type': headerMutationType },
  },
  // Access control first: a denied client learns nothing else about the route.
  {
    name: rbacFilterName,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC' },
  },
  {
    name: corsFilterName,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors' },
  },
  // After CORS (nginx answers a preflight in its rewrite phase, before limit_req) and before authentication and
  // buffering (limit_req runs before the access phase): a refused request costs nothing more.
  {
    name: localRateLimitFilterName,
    // No token bucket: the filter limits nothing by itself; routes bring their own (local-rate-limit.ts).
    config: { '@type': localRateLimitType, stat_prefix: 'client_rate_limit' },
  },
  // After CORS (a preflight is answered before authentication, as ingress-nginx's CORS block returns first); the
  // ext_authz filters follow it (see routeConfiguredHttpFilters).
  {
    name: basicAuthFilterName,
    config: buildBasicAuthFilterConfig(),
  },
  // After every authentication filter (the ext_authz ones are put before it): marks that they let the request through.
  { name: authPassedFilterName, config: buildAuthPassedFilterConfig(), discovered: true },
  {
    name: bufferFilterName,
    // Never applies as such (the filter is disabled; routes bring their own limit), but the field is required.
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer', max_request_bytes: 4294967295 },
  },
  // Last before the router: it may choose the route again (affinity-cookie.ts), after the filters above decided on
  // the same policy (the routes it can move to are copies of one route).
  { name: luaFilterName, config: buildLuaFilterConfig(), discovered: true },
  // After the script: it reads the endpoint header the script set, and names the endpoint on the answer before the
  // script sees it (affinity-mode persistent).
  { name: statefulSessionFilterName, config: buildStatefulSessionFilterConfig() },
  // Last before the router: it rewrites the backend's own Set-Cookie headers only (cookie-rewrite.ts).
  { name: cookieRewriteFilterName, config: buildCookieRewriteFilterConfig(), discovered: true },
];

/**
 * The per-route HTTP filters the connection managers carry (both listeners serve one RouteConfiguration made from
 * the plain-HTTP and the TLS table), in filter-chain order, to go before the router: every filter a route may turn
 * on, disabled, and gzip when some route compresses. A fresh copy per call.
 */
export function buildRouteConfiguredHttpFilters(tables: readonly RouteTableIR[]): ResourceJson[] {
  // TLS filter chains share one route table: scan it once per build, not once per chain (O(chains x routes)).
  const compression = compressionOfTables(tables);
  const chosen: ResourceJson[] = filters.map((filter) =>
    filter.discovered === true
      ? buildDiscoveredHttpFilter(filter.name, String(filter.config['@type']))
      : { name: filter.name, typed_config: { ...filter.config }, disabled: true },
  );
  // One filter for every authorization service (auth-url: routes name theirs, ext-authz.ts), after basic auth and
  // before the mark that authentication passed.
  chosen.splice(chosen.findIndex((filter) => filter['name'] === authPassedFilterName), 0, buildExternalAuthFilter());
  // gzip last: it compresses the upstream's answer first, before the other filters see the response.
  if (compression !== undefined) chosen.push({ name: compressorFilterName, typed_config: buildCompressorFilterConfig(compression), disabled: true });
  return chosen;
}

/**
 * The ECDS resources the connection managers' filters name (buildRouteConfiguredHttpFilters), sorted by name: the
 * same for every connection manager and every build, so built once (the snapshot cache then sees the same list
 * and encodes nothing).
 */
export const routeConfiguredFilterConfigs: readonly NamedResource[] = filters
  .filter((filter) => filter.discovered === true)
  .map((filter) => ({ name: filter.name, resource: buildTypedExtensionConfig(filter.name, filter.config) }))
  .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** Per virtual host (an incremental build meets most hosts again): the gzip settings of a route that compresses. */
const compressionByHost = new WeakMap<VirtualHostIR, { compression?: CompressionIR }>();

function compressionOf(vhost: VirtualHostIR): CompressionIR | undefined {
  let known = compressionByHost.get(vhost);
  if (known === undefined) {
    const route = vhost.routes.find((r) => r.action.kind === 'forward' && r.policy?.compression !== undefined);
    known = route?.policy?.compression === undefined ? {} : { compression: route.policy.compression };
    compressionByHost.set(vhost, known);
  }
  return known.compression;
}

/** Controller-wide: every route that compresses has the same settings (the ConfigMap's). */
const compressionOfTables = incrementalHostScan(compressionOf, (c) => c !== undefined, (found) => found[0]);
