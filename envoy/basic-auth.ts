// HTTP basic authentication (ingress-nginx auth-type basic): Envoy's basic_auth filter, disabled on the connection
// manager and enabled per route with that route's users (BasicAuthPerRoute). Envoy verifies only {SHA} htpasswd
// entries; the translator keeps only those. On failure Envoy answers 401 with `WWW-Authenticate: Basic
// realm="<request URL>"`.
import type { BasicAuthIR } from '../controller/translate/ir.js';
import type { ResourceJson } from './resource-types.js';

export const basicAuthFilterName = 'envoy.filters.http.basic_auth';
const basicAuthType = 'type.googleapis.com/envoy.extensions.filters.http.basic_auth.v3.BasicAuth';
const basicAuthPerRouteType = 'type.googleapis.com/envoy.extensions.filters.http.basic_auth.v3.BasicAuthPerRoute';

/**
 * The connection manager's filter. Envoy refuses an empty user list here, and the filter is disabled anyway:
 * a comment line (skipped by Envoy's htpasswd reader) stands in for users, which every route brings itself.
 */
export function buildBasicAuthFilterConfig(): ResourceJson {
  return { '@type': basicAuthType, users: { inline_string: '# users are configured per route\n' } };
}

/** typed_per_filter_config of a route: its users (an htpasswd text; a comment only when nobody may log in). */
export function buildBasicAuthPerRoute(auth: BasicAuthIR): ResourceJson {
  const users = auth.users.reveal();
  return { '@type': basicAuthPerRouteType, users: { inline_string: users === '' ? '# no user can log in\n' : users } };
}
