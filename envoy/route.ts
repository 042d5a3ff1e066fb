import type { HeaderMatchIR, PathMatchIR, RouteActionIR, RouteIR, TrafficSplitIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';
import { buildRouteActionPolicy, buildRoutePolicyFields } from './route-policy.js';
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
function buildWeightedClusters(cluster: string, split: TrafficSplitIR): ResourceJson {
  const taken = split.backends.reduce((sum, backend) => sum + backend.weight, 0);
  return {
    clusters: [{ name: cluster, weight: split.totalWeight - taken }, ...split.backends.map((backend) => ({ name: backend.cluster, weight: backend.weight }))],
  };
}

/** A HeaderMatcher: a request without the header does not match. */
export function buildHeaderMatcher(header: HeaderMatchIR): ResourceJson {
  const stringMatch = header.kind === 'exact' ? { exact: header.value } : { safe_regex: { regex: header.value } };
  return { name: header.name, string_match: stringMatch };
}

/** nginx `return CODE URL`: a Location as written (or a path made absolute on the request's scheme and host). */
function buildUrlRedirect(action: Extract<RouteActionIR, { kind: 'url-redirect' }>): ResourceJson {
  const code = action.statusCode as keyof typeof redirectResponseCodes;
  if (!Object.hasOwn(redirectResponseCodes, code)) {
    // nginx sends the text as the body for the codes that carry no Location.
    return { direct_response: { status: action.statusCode, body: { inline_string: action.location } } };
  }
  if (action.location.startsWith('/') && !action.relative) {
    // A query in path_redirect replaces the request's; without one, the request's is dropped.
    const redirect: ResourceJson = { path_redirect: action.location, response_code: redirectResponseCodes[code] };
    if (!action.location.includes('?')) redirect['strip_query'] = true;
    return { redirect };
  }
  return {
    direct_response: { status: action.statusCode },
    response_headers_to_add: [{ header: { key: 'location', value: action.location }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }],
  };
}

/** The action fields of a Route: exactly one of `route`, `redirect`, `direct_response` (plus its headers). */
export function buildRouteAction(action: RouteActionIR): ResourceJson {
  switch (action.kind) {
    case 'forward':
      if (action.split !== undefined) return { route: { weighted_clusters: buildWeightedClusters(action.cluster, action.split) } };
      return { route: { cluster: action.cluster } };
    case 'https-redirect': {
      const redirect: ResourceJson = { https_redirect: true };
      // Without port_redirect Envoy sends the client to the scheme's default port, 443.
      if (action.port !== undefined && action.port !== 443) redirect['port_redirect'] = action.port;
      // The rewrite applies to the path only; the query is kept as sent.
      if (action.stripTrailingSlash) redirect['regex_rewrite'] = { pattern: { regex: '^(.*)/$' }, substitution: '\\1' };
      redirect['response_code'] = redirectResponseCodes[action.statusCode];
      return { redirect };
    }
    case 'url-redirect':
      return buildUrlRedirect(action);
    case 'host-redirect': {
      const redirect: ResourceJson = { scheme_redirect: action.scheme, host_redirect: action.host, port_redirect: action.port };
      if (action.stripTrailingSlash) redirect['regex_rewrite'] = { pattern: { regex: '^(.*)/$' }, substitution: '\\1' };
      redirect['response_code'] = redirectResponseCodes[action.statusCode];
      return { redirect };
    }
    case 'path-redirect': {
      // Same scheme, host and port; a query in path_redirect replaces the request's, without one it is dropped.
      const redirect: ResourceJson = { path_redirect: action.query === undefined ? action.path : `${action.path}?${action.query}` };
      if (action.query === undefined) redirect['strip_query'] = true;
      redirect['response_code'] = redirectResponseCodes[action.statusCode];
      return { redirect };
    }
    case 'direct': {
      const directResponse: ResourceJson = { status: action.status };
      if (action.body !== undefined) directResponse['body'] = { inline_string: action.body };
      const fields: ResourceJson = { direct_response: directResponse };
      if (action.contentType !== undefined) {
        // Envoy labels a local reply body text/plain unless the route sets the header itself.
        fields['response_headers_to_add'] = [
          { header: { key: 'content-type', value: action.contentType }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
        ];
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
  const fields: ResourceJson = { name: route.name, match, ...buildRouteAction(route.action) };
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
  const cors = route.action.kind === 'forward' || route.action.kind === 'https-redirect' ? route.policy?.corsResponse : undefined;
  return cors === undefined ? [built] : buildCorsResponseRoutes(built, cors);
}
