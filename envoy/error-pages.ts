// ErrorPagesIR (ingress-nginx custom-http-errors) -> Envoy's custom_response filter, configured per route: a
// response whose status is listed is replaced by re-routing the same request, inside Envoy, to the error-pages
// route (redirect policy), which adds the headers an ingress-nginx error backend reads:
//   X-Code (the status), X-Format (the client's Accept), X-Original-URI (the request target before any rewrite),
//   X-Request-ID (Envoy's request id, the one the backend saw; the re-routed request keeps it), and the route's
//   fixed headers (X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port).
// The redirect policy evaluates its headers after it changed the request's host and path, so the original URI and
// Host are captured by the forwarding route itself (request_headers_to_add, as ingress-nginx also sends
// X-Original-URI and X-Forwarded-Host to every backend).
import { type ErrorPagesIR, forwardedHostHeader, type HeaderIR } from '../ir/index.js';
import type { ResourceJson } from './resource-types.js';

export const customResponseFilterName = 'envoy.filters.http.custom_response';
export const customResponseType = 'type.googleapis.com/envoy.extensions.filters.http.custom_response.v3.CustomResponse';
const redirectPolicyType = 'type.googleapis.com/envoy.extensions.http.custom_response.redirect_policy.v3.RedirectPolicy';
const statusCodeInputType = 'type.googleapis.com/envoy.type.matcher.v3.HttpResponseStatusCodeMatchInput';
const responseHeaderInputType = 'type.googleapis.com/envoy.type.matcher.v3.HttpResponseHeaderMatchInput';

/** Header the forwarding route stores the original request target in (ingress-nginx's name for it). */
export const originalUriHeader = 'x-original-uri';

function setHeader(key: string, value: string): ResourceJson {
  return { header: { key, value }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' };
}

/** A literal header value: `%` starts an Envoy command, a literal one is `%%`. */
function literal(value: string): string {
  return value.replaceAll('%', '%%');
}

/** request_headers_to_add entries of a route with error pages (captured before the route rewrites anything). */
export function buildErrorPagesRequestHeaders(): ResourceJson[] {
  // The Host goes too (forwardedHostRequestHeader): the error-pages route sends it as Host (hostRewriteFromHeader).
  return [setHeader(originalUriHeader, '%REQ(:path)%')];
}

/** request_headers_to_add of a route sent to a default backend in place of a missing Service (defaultBackendHeaders). */
export function buildDefaultBackendRequestHeaders(headers: readonly HeaderIR[]): ResourceJson[] {
  return [setHeader('X-Code', '503'), setHeader('X-Format', '%REQ(accept)%'), ...headers.map((h) => setHeader(h.name, literal(h.value)))];
}

/**
 * X-Forwarded-Host: the client's Host. Route headers are evaluated before the route's host rewrite. `keepClient`
 * (ingress-nginx use-forwarded-headers): a client's own X-Forwarded-Host is kept, the Host only fills in for none.
 */
export function forwardedHostRequestHeader(keepClient = false): ResourceJson {
  return keepClient ? { ...setHeader(forwardedHostHeader, '%REQ(:authority)%'), append_action: 'ADD_IF_ABSENT' } : setHeader(forwardedHostHeader, '%REQ(:authority)%');
}

function buildRedirect(pages: ErrorPagesIR, status: number): ResourceJson {
  return {
    '@type': redirectPolicyType,
    // No status_code: the client gets the error backend's own status, as with ingress-nginx.
    redirect_action: { host_redirect: pages.host, path_redirect: pages.path },
    request_headers_to_add: [
      setHeader('X-Code', String(status)),
      setHeader('X-Format', '%REQ(accept)%'),
      ...pages.headers.map((h) => setHeader(h.name, literal(h.value))),
    ],
  };
}

function statusIs(status: number): ResourceJson {
  return { single_predicate: { input: { name: 'status', typed_config: { '@type': statusCodeInputType } }, value_match: { exact: String(status) } } };
}

/** A response Envoy made itself: the router puts x-envoy-upstream-service-time on every answer of a backend. */
const notFromUpstream: ResourceJson = {
  not_matcher: {
    single_predicate: {
      input: { name: 'upstream-time', typed_config: { '@type': responseHeaderInputType, header_name: 'x-envoy-upstream-service-time' } },
      value_match: { safe_regex: { google_re2: {}, regex: '.*' } },
    },
  },
};

/** The route's typed_per_filter_config entry for the custom_response filter. */
export function buildErrorPagesPerRoute(pages: ErrorPagesIR): ResourceJson {
  return {
    '@type': customResponseType,
    custom_response_matcher: {
      matcher_list: {
        matchers: pages.statuses.map((status) => ({
          predicate: pages.proxyErrorsOnly === true ? { and_matcher: { predicate: [statusIs(status), notFromUpstream] } } : statusIs(status),
          on_match: { action: { name: `error-page-${status}`, typed_config: buildRedirect(pages, status) } },
        })),
      },
    },
  };
}
