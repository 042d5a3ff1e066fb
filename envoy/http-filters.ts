// HTTP filters that annotations configure per route (RBAC for allowed-source-cidrs, CORS, local rate limit,
// buffer for max-request-body-size). A connection manager carries one only when a route of its table uses it, and then
// disabled: it runs only on routes whose typed_per_filter_config names it (route-policy.ts).
import type { CompressionIR, RoutePolicyIR, RouteTableIR, VirtualHostIR } from '../ir/index.js';
import { buildCompressorFilterConfig, compressorFilterName } from './compressor.js';
import type { ResourceJson } from './resource-types.js';
import { incrementalHostScan } from './host-scan.js';
import { bufferFilterName, corsFilterName, rbacFilterName } from './route-policy.js';
import { localRateLimitFilterName, localRateLimitType } from './local-rate-limit.js';
import { basicAuthFilterName, buildBasicAuthFilterConfig } from './basic-auth.js';
import { buildExternalAuthFilter, usesExternalAuth } from './ext-authz.js';
import { customResponseFilterName, customResponseType } from './error-pages.js';
import { buildLuaFilterConfig, buildStatefulSessionFilterConfig, luaFilterName, statefulSessionFilterName } from './affinity-cookie.js';
import { corsResponseFilterName, headerMutationType } from './cors-response.js';
import { buildCookieRewriteFilterConfig, cookieRewriteFilterName } from './cookie-rewrite.js';
import { buildClientCertificateFilterConfig, buildClientSubjectFilterConfig, clientCertificateFilterName, clientSubjectFilterName } from './client-certificate-check.js';
import { authPassedFilterName, authSigninFilterName, buildAuthPassedFilterConfig, buildAuthSigninFilterConfig, usesAuthPassed, usesAuthSignin } from './auth-signin.js';

const filters: readonly { name: string; usedBy: (policy: RoutePolicyIR) => boolean; config: ResourceJson }[] = [
  // First, so it sees every response last, whichever filter made it (custom-http-errors replaces a 403 too).
  { name: customResponseFilterName, usedBy: (p) => p.errorPages !== undefined, config: { '@type': customResponseType } },
  // auth-signin / auth-response-headers (auth-signin.ts): before every filter that can deny, so it sees their 401s.
  { name: authSigninFilterName, usedBy: (p) => usesAuthSignin(p.externalAuth), config: buildAuthSigninFilterConfig() },
  // ingress-nginx CORS headers: before every filter that can answer by itself (RBAC's 403, a rate limit's 503,
  // authentication's 401), so those answers carry them too, as nginx's more_set_headers puts them on every response.
  // Authentication filters must stay after it.
  {
    name: corsResponseFilterName,
    usedBy: (p) => p.corsResponse !== undefined,
    config: { '@type': headerMutationType },
  },
  // Access control first: a denied client learns nothing else about the route.
  {
    name: rbacFilterName,
    // Also for a rate limit exemption: the filter's shadow rules tell the rate limit who is exempt.
    usedBy: (p) =>
      p.allowedSourceCidrs !== undefined || (p.deniedSourceCidrs?.length ?? 0) > 0 || (p.clientRateLimit?.exemptSourceCidrs?.length ?? 0) > 0,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC' },
  },
  {
    name: corsFilterName,
    usedBy: (p) => p.cors !== undefined,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors' },
  },
  // After CORS (nginx answers a preflight in its rewrite phase, before limit_req) and before authentication and
  // buffering (limit_req runs before the access phase): a refused request costs nothing more.
  {
    name: localRateLimitFilterName,
    usedBy: (p) => p.clientRateLimit !== undefined,
    // No token bucket: the filter limits nothing by itself; routes bring their own (local-rate-limit.ts).
    config: { '@type': localRateLimitType, stat_prefix: 'client_rate_limit' },
  },
  // After CORS (a preflight is answered before authentication, as ingress-nginx's CORS block returns first); the
  // ext_authz filters follow it (see routeConfiguredHttpFilters).
  {
    name: basicAuthFilterName,
    usedBy: (p) => p.basicAuth !== undefined,
    config: buildBasicAuthFilterConfig(),
  },
  // After every authentication filter (the ext_authz ones are put before it): marks that they let the request through.
  { name: authPassedFilterName, usedBy: usesAuthPassed, config: buildAuthPassedFilterConfig() },
  {
    name: bufferFilterName,
    usedBy: (p) => p.maxRequestBodyBytes !== undefined,
    // Never applies as such (the filter is disabled; routes bring their own limit), but the field is required.
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer', max_request_bytes: 4294967295 },
  },
  // Last before the router: it may choose the route again (affinity-cookie.ts), after the filters above decided on
  // the same policy (the routes it can move to are copies of one route).
  { name: luaFilterName, usedBy: (p) => p.affinityCookie !== undefined, config: buildLuaFilterConfig() },
  // After the script: it reads the endpoint header the script set, and names the endpoint on the answer before the
  // script sees it (affinity-mode persistent).
  { name: statefulSessionFilterName, usedBy: (p) => p.affinityCookie?.persistent === true, config: buildStatefulSessionFilterConfig() },
  // Last before the router: it rewrites the backend's own Set-Cookie headers only (cookie-rewrite.ts).
  { name: cookieRewriteFilterName, usedBy: (p) => p.cookieRewrite !== undefined, config: buildCookieRewriteFilterConfig() },
];

/**
 * The per-route HTTP filters some route of `tables` uses (both listeners serve one RouteConfiguration made from
 * the plain-HTTP and the TLS table), in filter-chain order, to go before the router. A fresh copy per call.
 */
export function buildRouteConfiguredHttpFilters(tables: readonly RouteTableIR[]): ResourceJson[] {
  // TLS filter chains share one route table: scan it once per build, not once per chain (O(chains x routes)).
  const chosen = withStandingCors(filtersOfTables(tables), tables);
  return chosen.map((filter) => ({ ...filter, typed_config: { ...(filter['typed_config'] as ResourceJson) } }));
}

const corsIndex = filters.findIndex((filter) => filter.name === corsFilterName);
const beforeCors = new Set(filters.slice(0, corsIndex).map((filter) => filter.name));

/** The CORS filter added, in its place, when a table asks for it always (RouteTableIR.corsFilter). */
function withStandingCors(chosen: readonly ResourceJson[], tables: readonly RouteTableIR[]): readonly ResourceJson[] {
  if (!tables.some((table) => table.corsFilter === 'always') || chosen.some((filter) => filter['name'] === corsFilterName)) return chosen;
  const cors = filters[corsIndex]!;
  const at = chosen.findIndex((filter) => !beforeCors.has(String(filter['name'])));
  const entry = { name: cors.name, typed_config: { ...cors.config }, disabled: true };
  return at === -1 ? [...chosen, entry] : [...chosen.slice(0, at), entry, ...chosen.slice(at)];
}

const filtersOfTables = incrementalHostScan(
  filterUseOf,
  (use) => use.mask !== 0 || use.externalAuth.length > 0 || use.compression !== undefined || use.clientCertificate !== undefined,
  routeConfiguredHttpFilters,
);

const corsResponseFilterBit = 1 << filters.findIndex((filter) => filter.name === corsResponseFilterName);

/** What one virtual host's forwarding routes need: a bit per entry of `filters`, and their ext_authz policies. */
interface HostFilterUse {
  mask: number;
  /** The host checks client certificates (VirtualHostIR.clientCertificate), and their subject. */
  clientCertificate?: 'check' | 'subject';
  externalAuth: RoutePolicyIR[];
  /** The gzip settings of a route that compresses (controller-wide: every such route has the same). */
  compression?: CompressionIR;
}

/** Per virtual host (an incremental build meets most hosts again: a table scan is then a walk of memo hits). */
const useByHost = new WeakMap<VirtualHostIR, HostFilterUse>();

function filterUseOf(vhost: VirtualHostIR): HostFilterUse {
  let use = useByHost.get(vhost);
  if (use === undefined) {
    use = { mask: 0, externalAuth: [] };
    const check = vhost.clientCertificate;
    if (check !== undefined) use.clientCertificate = check.subjectPattern !== undefined && check.serverNames.length > 0 ? 'subject' : 'check';
    for (const route of vhost.routes) {
      const policy = route.policy;
      if (policy === undefined) continue;
      // A redirect route carries only an ingress-nginx CORS policy (its headers go on the redirect).
      if (route.action.kind !== 'forward') {
        if (route.action.kind === 'redirect' && policy.corsResponse !== undefined) use.mask |= corsResponseFilterBit;
        continue;
      }
      filters.forEach((filter, i) => {
        if (filter.usedBy(policy)) use!.mask |= 1 << i;
      });
      if (policy.externalAuth !== undefined) use.externalAuth.push(policy);
      if (policy.compression !== undefined) use.compression ??= policy.compression;
    }
    useByHost.set(vhost, use);
  }
  return use;
}

/** The filters that the hosts' uses ask for (the hosts that use none left out). */
function routeConfiguredHttpFilters(uses: readonly HostFilterUse[]): ResourceJson[] {
  let mask = 0;
  const externalAuth: RoutePolicyIR[] = [];
  let compression: CompressionIR | undefined;
  let clientCertificate: HostFilterUse['clientCertificate'];
  for (const use of uses) {
    mask |= use.mask;
    if (use.clientCertificate !== undefined && clientCertificate !== 'subject') clientCertificate = use.clientCertificate;
    if (use.externalAuth.length > 0) externalAuth.push(...use.externalAuth);
    compression ??= use.compression;
  }
  const chosen: ResourceJson[] = filters
    .filter((_, i) => (mask & (1 << i)) !== 0)
    .map((filter) => ({ name: filter.name, typed_config: { ...filter.config }, disabled: true }));
  // One filter for every authorization service (auth-url: routes name theirs, ext-authz.ts), after basic auth and
  // before body buffering.
  const buffer = chosen.findIndex((filter) => filter['name'] === authPassedFilterName || filter['name'] === bufferFilterName || filter['name'] === luaFilterName);
  if (usesExternalAuth(externalAuth)) chosen.splice(buffer === -1 ? chosen.length : buffer, 0, buildExternalAuthFilter());
  // The client certificate check first of all: nginx checks it before anything of the server runs, and nothing
  // changes its answers. The subject check follows it (it reads what the check recorded).
  if (clientCertificate === 'subject') chosen.unshift({ name: clientSubjectFilterName, typed_config: buildClientSubjectFilterConfig(), disabled: true });
  if (clientCertificate !== undefined) chosen.unshift({ name: clientCertificateFilterName, typed_config: buildClientCertificateFilterConfig(), disabled: true });
  // gzip last: it compresses the upstream's answer first, before the other filters see the response.
  if (compression !== undefined) chosen.push({ name: compressorFilterName, typed_config: buildCompressorFilterConfig(compression), disabled: true });
  return chosen;
}
