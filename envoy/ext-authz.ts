// External authorization over HTTP (ingress-nginx auth-url): one ext_authz filter per distinct service setting,
// disabled on the connection manager and enabled per route (ExtAuthzPerRoute). Envoy sends the check request to
// the service's cluster with the client's method, headers (no body) and path (after `pathPrefix`); a 200 answer lets
// the request through with the configured headers of that answer copied onto it; any other answer goes to the
// client (with its WWW-Authenticate and Location headers); an unreachable service or a 5xx gives 500, as
// ingress-nginx's auth_request does.
import type { ExternalAuthIR, RoutePolicyIR } from '../ir/index.js';
import { basicAuthAllowedMetadata } from './basic-auth.js';
import type { ResourceJson } from './resource-types.js';

export const extAuthzType = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz';
const extAuthzPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute';

/** How long the authorization service may take to answer before the request fails with 500. */
export const extAuthzTimeoutMs = 10_000;

const exactNames = (names: readonly string[]): ResourceJson => ({ patterns: names.map((name) => ({ exact: name, ignore_case: true })) });

/** The filter (its typed_config) that calls one authorization service. */
export function buildExtAuthzFilterConfig(auth: ExternalAuthIR): ResourceJson {
  const authorizationResponse: ResourceJson = {
    allowed_client_headers: exactNames(['www-authenticate', 'location']),
    // nginx's auth_request_set $auth_cookie $upstream_http_set_cookie + add_header Set-Cookie $auth_cookie: the
    // service's cookies reach the client (here on every answer, as with auth-always-set-cookie).
    allowed_client_headers_on_success: exactNames(['set-cookie']),
  };
  if (auth.responseHeaders.length > 0) authorizationResponse['allowed_upstream_headers'] = exactNames(auth.responseHeaders);
  return {
    '@type': extAuthzType,
    http_service: {
      server_uri: { uri: auth.uri, cluster: auth.cluster, timeout: `${extAuthzTimeoutMs / 1000}s` },
      path_prefix: auth.pathPrefix,
      // What ingress-nginx's auth location sets on its subrequest, so services that read them keep working.
      authorization_request: {
        headers_to_add: [
          { key: 'x-original-url', value: '%REQ(:scheme)%://%REQ(:authority)%%REQ(:path)%' },
          { key: 'x-original-method', value: '%REQ(:method)%' },
          { key: 'x-auth-request-redirect', value: '%REQ(:path)%' },
          { key: 'x-sent-from', value: 'nginx-ingress-controller' },
        ],
      },
      authorization_response: authorizationResponse,
    },
    // Every client header goes to the service, as nginx's auth subrequest passes them (cookies, tokens...).
    allowed_headers: { patterns: [{ safe_regex: { regex: '.*' } }] },
    // ingress-nginx answers 500 when the auth subrequest fails or returns an unexpected status.
    status_on_error: { code: 'InternalServerError' },
    // satisfy: any: not asked when basic auth already let the request through (basic-auth.ts).
    filter_enabled_metadata: {
      filter: basicAuthAllowedMetadata.namespace,
      path: [{ key: basicAuthAllowedMetadata.key }],
      value: { string_match: { exact: basicAuthAllowedMetadata.value } },
      invert: true,
    },
  };
}

/** typed_per_filter_config that turns the (disabled) filter on for a route. */
export function buildExtAuthzPerRoute(): ResourceJson {
  return { '@type': extAuthzPerRouteType, check_settings: {} };
}

/** One disabled filter per distinct authorization service the policies use, sorted by filter name. */
export function buildExtAuthzFilters(policies: readonly RoutePolicyIR[]): ResourceJson[] {
  const byName = new Map<string, ExternalAuthIR>();
  for (const policy of policies) {
    if (policy.externalAuth !== undefined && !byName.has(policy.externalAuth.filter)) byName.set(policy.externalAuth.filter, policy.externalAuth);
  }
  return [...byName.values()]
    .sort((a, b) => (a.filter < b.filter ? -1 : a.filter > b.filter ? 1 : 0))
    .map((auth) => ({ name: auth.filter, typed_config: buildExtAuthzFilterConfig(auth), disabled: true }));
}
