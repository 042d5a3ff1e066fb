// Routes: how a request is matched and what is done with it. Plain data, no Kubernetes and no Envoy types.
import type { HeaderIR, HeaderMutationIR, RoutePolicyIR } from './route-policy.js';
import type { RulePathRef, SourceRef } from './source.js';

/** How a route matches the request path. Query strings are never part of the match. */
export type PathMatchIR =
  /** The whole path equals `path` (case-sensitive). */
  | { kind: 'exact'; path: string }
  /**
   * Element-wise prefix per the Ingress spec: `/foo` matches `/foo`, `/foo/` and `/foo/bar`, not `/foobar`.
   * `path` has no trailing slash, except the root prefix `/`, which matches everything. `trailingSlash` marks a
   * path written with one (`/foo/`): it matches the same requests, but wins over `/foo` on the same host, since
   * the Ingress spec gives the longest path as written priority (networking/v1 PathTypePrefix).
   */
  | { kind: 'prefix'; path: string; trailingSlash?: true }
  /**
   * nginx prefix location (ingress-nginx's ImplementationSpecific paths): the path starts with `path`, character
   * by character, so `/foo` also matches `/foobar`, and `/foo/` does not match `/foo`. `path` is as written
   * (never `/`, which is the `prefix` root). Only Ingresses read with the nginx layer get it.
   */
  | { kind: 'character-prefix'; path: string }
  /**
   * RE2 `regex` that the WHOLE path must match (Envoy safe_regex), built by the translator from a regex path
   * (ingress-nginx use-regex: `(?i)^(?:<path>).*`, case-insensitive and anchored at the start only). `path` is the
   * Ingress path as written, for ordering (by its length, as ingress-nginx orders locations) and messages.
   */
  | { kind: 'regex'; path: string; regex: string };

export type RouteActionIR =
  /** Proxy to a cluster; with `split`, shares of the requests go to the split's clusters instead (a canary, weighted backends). */
  | {
      kind: 'forward';
      cluster: string;
      split?: TrafficSplitIR;
      /** Header changes for the requests sent to `cluster` only (the split's backends carry their own). */
      clusterHeaders?: BackendHeadersIR;
    }
  /** Redirect the client: the request's URL with the parts the redirect names replaced (RedirectIR). */
  | RedirectIR
  /** Answer locally, e.g. 404 for nothing matched or 503 for a backend that cannot be resolved. */
  | {
      kind: 'direct';
      status: number;
      body?: string;
      contentType?: string;
      /** More response headers, set in this order (e.g. the Location of ingress-nginx `return CODE URL`). */
      headers?: HeaderIR[];
    };

/**
 * A redirect: the request's URL with the given parts replaced, as `statusCode`. ingress-nginx's https redirect is
 * `scheme: https` (with `stripTrailingSlash` path unless preserve-trailing-slash), from-to-www-redirect a scheme, host
 * and port, app-root a path with its query; the Gateway API's RequestRedirect filter any of them.
 */
export interface RedirectIR {
  kind: 'redirect';
  statusCode: 301 | 302 | 303 | 307 | 308;
  /** Absent: the request's. */
  scheme?: 'http' | 'https';
  /** Absent: the request's (its port goes when the scheme changes). */
  host?: string;
  /** Absent: the request's, or the new scheme's default port when the scheme changes. */
  port?: number;
  /** Absent: the request's path. */
  path?: RedirectPathIR;
  /** Absent: the request's query is kept. */
  query?: RedirectQueryIR;
}

export type RedirectPathIR =
  /** The whole path. */
  | { kind: 'replace'; path: string }
  /** The request's path less a final "/" (ingress-nginx: `/a/` -> `/a`, `/` -> ``). */
  | { kind: 'strip-trailing-slash' }
  /**
   * The part of the path the route's prefix matched replaced by `replacement`, never leaving `//` (the Gateway API's
   * ReplacePrefixMatch: `/old` -> `/new` turns `/old/x` into `/new/x`, `/old` -> `/` turns it into `/x`).
   */
  | { kind: 'replace-prefix'; replacement: string };

export type RedirectQueryIR =
  /** No query. */
  | { kind: 'drop' }
  /** This query in place of the request's. */
  | { kind: 'replace'; query: string };

/**
 * Of every request (chosen at random), each backend's `weight` out of `totalWeight` go to its cluster, the rest to the
 * route's own cluster. Each weight > 0 and their sum <= totalWeight (ingress-nginx canary-weight /
 * canary-weight-total: one backend; a Gateway API rule: several).
 */
export interface TrafficSplitIR {
  backends: HttpWeightedClusterIR[];
  totalWeight: number;
  /**
   * This share of `totalWeight` is answered 500 (the Gateway API: an invalid backendRef's weight); absent: none. Counts
   * in the sum with the backends' weights.
   */
  errorWeight?: number;
}

export interface WeightedClusterIR {
  cluster: string;
  weight: number;
}

/** A share of an HTTP route's requests, with header changes of its own (the Gateway API's backendRefs[].filters). */
export interface HttpWeightedClusterIR extends WeightedClusterIR {
  headers?: BackendHeadersIR;
}

/**
 * Header changes made only to requests sent to one backend, and to its responses; they apply before the route's own
 * (policy.requestHeaders / responseHeaders), which therefore win on a header both set.
 */
export interface BackendHeadersIR {
  request?: HeaderMutationIR;
  response?: HeaderMutationIR;
}

/** A condition on a request header, in addition to the path (ingress-nginx canary-by-header / canary-by-cookie). */
export interface HeaderMatchIR {
  /** Lower-case header name. */
  name: string;
  /** exact: the header's value equals `value`; regex: the RE2 pattern `value` matches the whole header value. */
  kind: 'exact' | 'regex';
  value: string;
}

/** A condition on a query parameter (the Gateway API's queryParams match): exact value or RE2 regex of the whole value. */
export interface QueryParamMatchIR {
  name: string;
  kind: 'exact' | 'regex';
  value: string;
}

/**
 * Name of the route the controller adds when nothing else matched and no default backend exists (the 404 page).
 * The Envoy builders serve it as Envoy's own "no route" reply (envoy/not-found-reply.ts).
 */
export const fallbackRouteName = 'fallback';

export interface RouteIR {
  /** Unique within its virtual host, e.g. `ingress/default/web/rule/0/path/1`. */
  name: string;
  match: PathMatchIR;
  /** Every one must hold too (a request without the header matches none); absent means the path decides alone. */
  headers?: HeaderMatchIR[];
  /** Every one must hold too (a request without the parameter matches none); absent: the query is not looked at. */
  queryParams?: QueryParamMatchIR[];
  action: RouteActionIR;
  /** The object this route came from (an Ingress, an HTTPRoute...); absent for routes the controller adds itself (404 fallback). */
  source?: SourceRef;
  /**
   * Which rule of its source, and which path (Ingress) or match (HTTPRoute) of that rule, this route serves, on the
   * route built for it (and its copies on other hosts) only: routes derived from it under names of their own (canary
   * variants, https redirects, https-only 403s) have none.
   */
  rulePath?: RulePathRef;
  /**
   * Per-route behaviour set by annotations; absent means Envoy's defaults. Only on `forward` routes, except
   * `corsResponse`, which a `redirect` route may carry too (ingress-nginx answers CORS before its https redirect).
   */
  policy?: RoutePolicyIR;
}

/**
 * The clusters a route sends requests to: its own, its split's, its mirrors'. The one walk every count of cluster
 * use makes (a full translation's cluster list and an incremental one's counts must agree).
 */
export function routeClusters(route: RouteIR): string[] {
  if (route.action.kind !== 'forward') return [];
  const names = [route.action.cluster, ...(route.action.split?.backends ?? []).map((backend) => backend.cluster)];
  for (const mirror of route.policy?.mirrors ?? []) names.push(mirror.cluster);
  return names;
}
