// External authorization over HTTP (ingress-nginx auth-url). The connection manager has one filter for every
// authorization service, disabled, whatever the services are: a match delegate around Envoy's composite filter.
// A route that uses a service brings, as its per-route config of that filter, a matcher whose only action runs an
// ext_authz filter configured for that service. So adding, changing or removing a tenant's auth-url changes
// routes (RDS) only, never the listener (an LDS update drains every tenant's connections; one filter per service
// made each auth-url edit one). Envoy sends the check request to
// the service's cluster with the client's method, headers (no body) and path (after `pathPrefix`); a 200 answer lets
// the request through with the configured headers of that answer copied onto it; any other answer goes to the
// client (with its WWW-Authenticate and Location headers); an unreachable service or a 5xx gives 500, as
// ingress-nginx's auth_request does.
import type { ExternalAuthIR, RoutePolicyIR } from '../ir/index.js';
import { basicAuthAllowedMetadata } from './basic-auth.js';
import type { ResourceJson } from './resource-types.js';

export const extAuthzType = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz';
const extensionWithMatcherType = 'type.googleapis.com/envoy.extensions.common.matching.v3.ExtensionWithMatcher';
const extensionWithMatcherPerRouteType = 'type.googleapis.com/envoy.extensions.common.matching.v3.ExtensionWithMatcherPerRoute';
const compositeType = 'type.googleapis.com/envoy.extensions.filters.http.composite.v3.Composite';
const executeFilterActionType = 'type.googleapis.com/envoy.extensions.filters.http.composite.v3.ExecuteFilterAction';

/** The connection manager's one filter for every authorization service (routes say which service). */
export const externalAuthFilterName = 'envoy-ingress.auth_url';

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

/**
 * typed_per_filter_config of externalAuthFilterName for a route that uses `auth`: it turns the (disabled) filter
 * on, with a matcher that has no conditions (every request takes `on_no_match`) and runs ext_authz for `auth`.
 */
export function buildExtAuthzPerRoute(auth: ExternalAuthIR): ResourceJson {
  return {
    '@type': extensionWithMatcherPerRouteType,
    xds_matcher: {
      on_no_match: {
        action: {
          name: auth.filter,
          typed_config: { '@type': executeFilterActionType, typed_config: { name: auth.filter, typed_config: buildExtAuthzFilterConfig(auth) } },
        },
      },
    },
  };
}

/**
 * The connection manager's filter when some route uses an authorization service: disabled; its own matcher has no
 * action (a route's per-route matcher replaces it), so it only ever runs what a route asks for.
 */
export function buildExternalAuthFilter(): ResourceJson {
  return {
    name: externalAuthFilterName,
    typed_config: {
      '@type': extensionWithMatcherType,
      xds_matcher: {},
      extension_config: { name: 'envoy.filters.http.composite', typed_config: { '@type': compositeType } },
    },
    disabled: true,
  };
}

