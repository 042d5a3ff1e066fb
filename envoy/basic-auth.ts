// HTTP basic authentication (ingress-nginx auth-type basic). Envoy's own basic_auth filter verifies only {SHA}
// hashes, and htpasswd writes apr1 by default (bcrypt with -B): so Envoy asks the controller instead, over gRPC
// (ext_authz, envoy.service.auth.v3.Authorization) on the connection it already has for xDS (the bootstrap's xDS
// cluster). One filter, disabled on the connection manager and enabled per route with the route's users id and
// realm as context extensions; only the Authorization header is sent. The controller answers 401 with
// `WWW-Authenticate: Basic realm="<realm>"` or lets the request through without its Authorization header
// (controller/auth/). If the controller cannot be asked, the request gets 503: never served unprotected.
import type { BasicAuthIR } from '../ir/index.js';
import { xdsClusterName } from './bootstrap.js';
import type { ResourceJson } from './resource-types.js';

export const basicAuthFilterName = 'envoy-ingress.basic_auth';
const extAuthzType = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz';
const extAuthzPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute';

/** Context extension keys of the check request (read by controller/auth/basic-auth-service.ts). */
export const basicAuthContext = { usersId: 'basic-auth-users', realm: 'basic-auth-realm', satisfyAny: 'basic-auth-satisfy-any', allowedCidrs: 'basic-auth-allowed-cidrs' } as const;

/**
 * satisfy: any. Right credentials make the check answer with this dynamic metadata (ext_authz puts it under its
 * own name), which turns the auth-url filters off for the request (ext-authz.ts, filter_enabled_metadata).
 */
export const basicAuthAllowedMetadata = { namespace: 'envoy.filters.http.ext_authz', key: 'envoy-ingress-basic-auth', value: 'allowed' } as const;

/** How long a check may take (bcrypt at a high cost takes about a second) before the request gets 503. */
export const basicAuthTimeoutMs = 10_000;

/** The connection manager's filter (disabled; routes turn it on). */
export function buildBasicAuthFilterConfig(): ResourceJson {
  return {
    '@type': extAuthzType,
    grpc_service: { envoy_grpc: { cluster_name: xdsClusterName }, timeout: `${basicAuthTimeoutMs / 1000}s` },
    transport_api_version: 'V3',
    // The credentials are all the controller needs; nothing else of the request leaves Envoy.
    allowed_headers: { patterns: [{ exact: 'authorization', ignore_case: true }] },
    status_on_error: { code: 'ServiceUnavailable' },
    failure_mode_allow: false,
  };
}

/** typed_per_filter_config of a route: which users and which realm. */
export function buildBasicAuthPerRoute(auth: BasicAuthIR): ResourceJson {
  return {
    '@type': extAuthzPerRouteType,
    check_settings: {
      context_extensions: {
        [basicAuthContext.usersId]: auth.usersId,
        [basicAuthContext.realm]: auth.realm,
        ...(auth.satisfyAny === true ? { [basicAuthContext.satisfyAny]: 'true' } : {}),
        ...(auth.allowedWithoutCredentials !== undefined
          ? { [basicAuthContext.allowedCidrs]: auth.allowedWithoutCredentials.map((c) => `${c.address}/${c.prefixLength}`).join(',') }
          : {}),
      },
    },
  };
}
