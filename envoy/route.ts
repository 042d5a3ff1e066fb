import type { BackendHeadersIR, HeaderMatchIR, PathMatchIR, RedirectIR, RouteActionIR, RouteIR, TrafficSplitIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';
import { buildHeaderMutation, buildRouteActionPolicy, buildRoutePolicyFields, prefixRewriteRegex } from './route-policy.js';
import { buildCorsResponseRoutes } from './cors-response.js';

const redirectResponseCodes = {
  301: 'MOVED_PERMANENTLY',
  302: 'FOUND',
  303: 'SEE_OTHER',
  307: 'TEMPORARY_REDIRECT',
  308: 'PERMANENT_REDIRECT',
} as const;

/** RouteMatch for an Ingress path; `path_separated_prefix` gives the spec's element-wise prefix semantics. */
export function buildRouteMatch(match: PathMatchIR): ResourceJson {
  if (match.kind === 'exact') return { path: match.path };
  // The whole path (without query) must match the regex; the translator builds it (path-match-regex.ts).
  if (match.kind === 'regex') return { safe_regex: { regex: match.regex } };
  // An nginx prefix location: Envoy's plain prefix compares characters as nginx does.
  if (match.kind === 'character-prefix') return { prefix: match.path };
  if (match.path === '/') return { prefix: '/' };
  return { path_separated_prefix: match.path };
}

/** The route's own cluster gets what the split leaves: Envoy picks a cluster at random in proportion to the weights. */
/**
 * Name of the cluster the error share of a split (TrafficSplitIR.errorWeight) goes to: no such cluster exists, so
 * Envoy answers the route's cluster_not_found_response_code (500) for that share, per request.
 */
export const errorShareCluster = 'envoy-ingress/invalid-backend';

/** A weighted cluster's own header changes (ClusterWeight request/response_headers_to_add and _to_remove). */
function buildBackendHeaders(headers: BackendHeadersIR | undefined): ResourceJson {
  return {
    ...(headers?.request === undefined ? {} : buildHeaderMutation(headers.request, 'request')),
    ...(headers?.response === undefined ? {} : buildHeaderMutation(headers.response, 'response')),
  };
}

/** `split` absent: the one cluster as the only share, the way a backend's own header changes are carried. */
function buildWeightedClusters(cluster: string, clusterHeaders: BackendHeadersIR | undefined, split: TrafficSplitIR | undefined): ResourceJson {
  if (split === undefined) return { clusters: [{ name: cluster, weight: 1, ...buildBackendHeaders(clusterHeaders) }] };
  const errorWeight = split.errorWeight ?? 0;
  const taken = split.backends.reduce((sum, backend) => sum + backend.weight, 0) + errorWeight;
  return {
    clusters: [
      { name: cluster, weight: split.totalWeight - taken, ...buildBackendHeaders(clusterHeaders) },
      ...split.backends.map((backend) => ({ name: backend.cluster, weight: backend.weight, ...buildBackendHeaders(backend.headers) })),
      ...(errorWeight > 0 ? [{ name: errorShareCluster, weight: errorWeight }] : []),
    ],
  };
}

/** A HeaderMatcher: a request without the header does not match. */
export function buildHeaderMatcher(header: HeaderMatchIR): ResourceJson {
  const stringMatch = header.kind === 'exact' ? { exact: header.value } : { safe_regex: { regex: header.value } };
  return { name: header.name, string_match: stringMatch };
}

/**
 * RedirectAction. An https redirect that names no host is Envoy's `https_redirect` (the scheme's default port unless
 * one is given); a query given with a new path travels in path_redirect, which then replaces the request's.
 */
function buildRedirect(action: RedirectIR, match: PathMatchIR | undefined): ResourceJson {
  const redirect: ResourceJson = {};
  if (action.scheme === 'https' && action.host === undefined) redirect['https_redirect'] = true;
  else {
    if (action.scheme !== undefined) redirect['scheme_redirect'] = action.scheme;
    if (action.host !== undefined) redirect['host_redirect'] = action.host;
  }
  if (action.port !== undefined) redirect['port_redirect'] = action.port;
  const { path, query } = action;
  if (path?.kind === 'replace') redirect['path_redirect'] = query?.kind === 'replace' ? `${path.path}?${query.query}` : path.path;
  // The rewrite applies to the path only; the query is kept as sent.
  if (path?.kind === 'strip-trailing-slash') redirect['regex_rewrite'] = { pattern: { regex: '^(.*)/$' }, substitution: '\\1' };
  // Not Envoy's prefix_rewrite, which leaves `//` after a path-separated prefix (envoy#23130).
  if (path?.kind === 'replace-prefix') {
    const { regex, substitution } = prefixRewriteRegex(match ?? { kind: 'prefix', path: '/' }, path.replacement);
    redirect['regex_rewrite'] = { pattern: { regex }, substitution };
  }
  if (query?.kind === 'drop') redirect['strip_query'] = true;
  redirect['response_code'] = redirectResponseCodes[action.statusCode];
  return { redirect };
}

/** The action fields of a Route: exactly one of `route`, `redirect`, `direct_response` (plus its headers). */
export function buildRouteAction(action: RouteActionIR, match?: PathMatchIR): ResourceJson {
  switch (action.kind) {
    case 'forward':
      if (action.split?.errorWeight !== undefined && action.split.errorWeight > 0) {
        return {
          route: { weighted_clusters: buildWeightedClusters(action.cluster, action.clusterHeaders, action.split), cluster_not_found_response_code: 'INTERNAL_SERVER_ERROR' },
        };
      }
      if (action.split !== undefined || action.clusterHeaders !== undefined) {
        return { route: { weighted_clusters: buildWeightedClusters(action.cluster, action.clusterHeaders, action.split) } };
      }
      return { route: { cluster: action.cluster } };
    case 'redirect':
      return buildRedirect(action, match);
    case 'direct': {
      const directResponse: ResourceJson = { status: action.status };
      if (action.body !== undefined) directResponse['body'] = { inline_string: action.body };
      const fields: ResourceJson = { direct_response: directResponse };
      // Envoy labels a local reply body text/plain unless the route sets the header itself.
      const headers = [...(action.contentType === undefined ? [] : [{ name: 'content-type', value: action.contentType }]), ...(action.headers ?? [])];
      if (headers.length > 0) {
        fields['response_headers_to_add'] = headers.map(({ name, value }) => ({ header: { key: name, value }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }));
      }
      return fields;
    }
  }
}

/**
 * A Route. `authorityRegex`, when given, is an extra match on the `:authority` header (RE2), used by virtual
 * hosts whose wildcard domain Envoy would otherwise match too broadly.
 */
export function buildRoute(route: RouteIR, authorityRegex?: string): ResourceJson {
  const match = buildRouteMatch(route.match);
  const headers: ResourceJson[] = [];
  if (authorityRegex !== undefined) {
    headers.push({ name: ':authority', string_match: { safe_regex: { regex: authorityRegex } } });
  }
  for (const header of route.headers ?? []) headers.push(buildHeaderMatcher(header));
  if (headers.length > 0) match['headers'] = headers;
  if (route.queryParams !== undefined && route.queryParams.length > 0) {
    match['query_parameters'] = route.queryParams.map((q) => ({
      name: q.name,
      string_match: q.kind === 'exact' ? { exact: q.value } : { safe_regex: { regex: q.value } },
    }));
  }
  const fields: ResourceJson = { name: route.name, match, ...buildRouteAction(route.action, route.match) };
  // Annotation settings (route-policy.ts) only apply where a request goes to a backend.
  if (route.policy !== undefined && route.action.kind === 'forward') {
    Object.assign(fields['route'] as ResourceJson, buildRouteActionPolicy(route.match, route.policy));
    Object.assign(fields, buildRoutePolicyFields(route.policy));
  }
  return fields;
}

/** The Envoy routes of a RouteIR, in match order: one, or with ingress-nginx CORS its preflight route first. */
export function buildRoutes(route: RouteIR, authorityRegex?: string): ResourceJson[] {
  const built = buildRoute(route, authorityRegex);
  const cors = route.action.kind === 'forward' || route.action.kind === 'redirect' ? route.policy?.corsResponse : undefined;
  return cors === undefined ? [built] : buildCorsResponseRoutes(built, cors);
}
