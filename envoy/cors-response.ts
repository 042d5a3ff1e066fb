// CorsResponseIR (ingress-nginx enable-cors) -> Envoy routes. Envoy's CORS filter cannot say what nginx's CORS
// block does (it answers 200 to preflights only, needs an Origin, never sends `*`, and sends the methods, headers
// and max age on preflights only), so the routes say it themselves:
// - a preflight route before the route: the same match plus `:method` OPTIONS (and the allowed Origin), answered
//   204 with the headers, and no per-route filter config, so no access control, rate limit or authentication runs
//   for it (nginx returns it in its rewrite phase, before all of them);
// - the headers on every other response: the HTTP filter `corsResponseFilterName` (Envoy's header_mutation) sets
//   them per route, on the backend's responses and on the proxy's own (a 401 or 403 of a later filter, a 503), as
//   nginx's more_set_headers does. With a list of origins they go on a copy of the route that also matches the
//   Origin; the route itself, for the other requests, stays as it was.
import type { CorsResponseIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';

/** Name of the HTTP filter (Envoy header_mutation) that sets the CORS headers per route. */
export const corsResponseFilterName = 'cors-response-headers';
export const headerMutationType = 'type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation';
const headerMutationPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutationPerRoute';

/** A literal header value: `%` starts an Envoy command, a literal one is `%%`. */
function literal(value: string): string {
  return value.replaceAll('%', '%%');
}

/** name/value pairs in the order nginx sends them; values are Envoy header formats. */
function responseHeaders(cors: CorsResponseIR): [string, string][] {
  return [
    // With a list, the Origin the route matched is echoed (nginx: `Access-Control-Allow-Origin: $http_origin`).
    ['Access-Control-Allow-Origin', cors.originRegex === undefined ? '*' : '%REQ(origin)%'],
    ...cors.headers.map((h): [string, string] => [h.name, literal(h.value)]),
  ];
}

function originMatcher(cors: CorsResponseIR): ResourceJson[] {
  return cors.originRegex === undefined ? [] : [{ name: 'origin', string_match: { safe_regex: { regex: cors.originRegex } } }];
}

function withExtraHeaderMatchers(match: ResourceJson, extra: ResourceJson[]): ResourceJson {
  const headers = [...((match['headers'] as ResourceJson[] | undefined) ?? []), ...extra];
  return headers.length === 0 ? { ...match } : { ...match, headers };
}

/** The route's typed_per_filter_config entry that sets the CORS headers on each of its responses. */
export function buildCorsResponsePerRoute(cors: CorsResponseIR): ResourceJson {
  return {
    '@type': headerMutationPerRouteType,
    mutations: {
      response_mutations: responseHeaders(cors).map(([key, value]) => ({ append: { header: { key, value }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' } })),
    },
  };
}

/**
 * The Envoy routes for a forwarding route with ingress-nginx CORS, in match order, given the route as built
 * without it: the preflight route, then the route (a copy matching the allowed Origin first, with a list).
 */
export function buildCorsResponseRoutes(built: ResourceJson, cors: CorsResponseIR): ResourceJson[] {
  const name = built['name'] as string;
  const match = built['match'] as ResourceJson;
  const preflight: ResourceJson = {
    name: `${name}/cors-preflight`,
    match: withExtraHeaderMatchers(match, [{ name: ':method', string_match: { exact: 'OPTIONS' } }, ...originMatcher(cors)]),
    direct_response: { status: 204 },
    response_headers_to_add: responseHeaders(cors).map(([key, value]) => ({ header: { key, value }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' })),
  };
  const perFilter = { ...((built['typed_per_filter_config'] as ResourceJson | undefined) ?? {}), [corsResponseFilterName]: buildCorsResponsePerRoute(cors) };
  const withHeaders: ResourceJson = { ...built, typed_per_filter_config: perFilter };
  if (cors.originRegex === undefined) return [preflight, withHeaders];
  return [preflight, { ...withHeaders, name: `${name}/cors`, match: withExtraHeaderMatchers(match, originMatcher(cors)) }, built];
}
