// nginx's backend-protocol GRPC / GRPCS as a GRPCRoute rule. A gRPC call is an HTTP/2 POST to `/<service>/<method>`,
// so an Ingress path that selects every call (`/`), every method of one service (`/<service>` by segments, or the
// character prefix `/<service>/`) or one method (Exact `/<service>/<method>`) is a GRPCRoute method match; other
// paths (a regex, a prefix inside a service name, several segments) are not, and stay on the HTTPRoute, reported.
import type { GRPCRouteMatch, HTTPIngressPath, HTTPRouteFilter } from '../shared/kube-objects.js';
import { parsePath } from '../ingress/path-match.js';

/** The nginx values that name a gRPC backend (Annotation values as written, upper-cased). */
export const grpcBackendProtocols: ReadonlySet<string> = new Set(['GRPC', 'GRPCS']);

/** The filter types a GRPCRoute rule takes (the GRPCRoute spec). */
const grpcFilterTypes = new Set(['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestMirror']);

/** A gRPC service or method name: no "/" (and not empty). */
const namePart = /^[^/]+$/;

/**
 * The GRPCRoute matches selecting the gRPC calls the Ingress path selects: `[]` for every call, or why there is no
 * such match. `regexHost`: the host's paths are nginx regexes (use-regex / rewrite-target), never converted.
 */
export function grpcMatches(path: HTTPIngressPath, nginx: boolean, regexHost: boolean): { matches: GRPCRouteMatch[] } | { problem: string } {
  if (regexHost) return { problem: 'a regular-expression path has no GRPCRoute method match' };
  const parsed = parsePath(path.path, path.pathType, nginx);
  if (!parsed.valid) return { problem: parsed.error };
  const { kind, path: p } = parsed.match;
  const parts = p.split('/').slice(1);
  if ((kind === 'prefix' || kind === 'character-prefix') && p === '/') return { matches: [] };
  if (kind === 'prefix' && parts.length === 1 && namePart.test(parts[0] ?? '')) return { matches: [{ method: { type: 'Exact', service: parts[0] as string } }] };
  if (kind === 'character-prefix' && parts.length === 2 && parts[1] === '' && namePart.test(parts[0] ?? '')) return { matches: [{ method: { type: 'Exact', service: parts[0] as string } }] };
  if (kind === 'exact' && parts.length === 2 && parts.every((part) => namePart.test(part))) return { matches: [{ method: { type: 'Exact', service: parts[0] as string, method: parts[1] as string } }] };
  return { problem: `the ${kind} path ${p} selects no whole gRPC service or method (a GRPCRoute matches /<service>/ or /<service>/<method>)` };
}

/** The filters a GRPCRoute rule cannot take (URLRewrite for upstream-vhost, redirects...), by type. */
export function nonGrpcFilters(filters: readonly HTTPRouteFilter[]): string[] {
  return [...new Set(filters.filter((f) => !grpcFilterTypes.has(f.type)).map((f) => f.type))];
}
