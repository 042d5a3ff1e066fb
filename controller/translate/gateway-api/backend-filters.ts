// A backendRef's own filters (HTTPRoute and GRPCRoute backendRefs[].filters): applied only to the requests sent to that backend
// (the spec: "if and only if the request is being forwarded to the backend defined here"). Envoy carries header
// changes per weighted cluster, so the two header modifiers are served; any other filter on a backendRef is refused:
// serving the backend without it could forward what the filter would have changed.
import type { BackendHeadersIR } from '../../../ir/index.js';
import type { HTTPRouteFilter } from '../shared/kube-objects.js';
import { headerMutation } from './header-mutation.js';

export type BackendFilters = { valid: true; headers?: BackendHeadersIR } | { valid: false; error: string };

export function translateBackendFilters(filters: readonly HTTPRouteFilter[]): BackendFilters {
  const headers: BackendHeadersIR = {};
  const seen = new Set<string>();
  for (const filter of filters) {
    // As on a rule, each header modifier once.
    if (seen.has(filter.type)) return { valid: false, error: `filter ${filter.type} more than once on the backendRef` };
    seen.add(filter.type);
    if (filter.type === 'RequestHeaderModifier' && filter.requestHeaderModifier !== undefined) headers.request = headerMutation(filter.requestHeaderModifier);
    else if (filter.type === 'ResponseHeaderModifier' && filter.responseHeaderModifier !== undefined) headers.response = headerMutation(filter.responseHeaderModifier);
    else return { valid: false, error: `filter ${filter.type} on a backendRef is not supported (RequestHeaderModifier and ResponseHeaderModifier are)` };
  }
  return { valid: true, ...(headers.request === undefined && headers.response === undefined ? {} : { headers }) };
}
