import { compareVirtualHosts, type RouteIR, type RouteTableIR, type VirtualHostIR } from '../ir/index.js';
import { TypeUrl } from '../proto/type-urls.js';
import type { ResourceJson } from './resource-types.js';
import { answersNotFound, type NotFoundReply } from './not-found-reply.js';
import { authorityRegexOf, buildVirtualHost, catchAllOf } from './virtual-host.js';

// One RouteConfiguration for a plain-HTTP and a TLS listener that name the same one (the Ingress pair, see
// ir/listener.ts `routeConfiguration`). The translator gives plain HTTP and TLS a route table each (they
// differ where a host redirects plain HTTP to https, or where routes are https-only); Envoy rebuilds the whole
// table of a RouteConfiguration on every VHDS update, so two tables cost every route change two rebuilds. Here
// they become one: a host served the same on both is served as it is, and a host served differently gets its
// plain-HTTP routes first, each limited to plain-HTTP requests, then its TLS routes.

/** Envoy's default cap on a direct response body; a larger one makes it reject the whole RouteConfiguration. */
const defaultMaxDirectResponseBodyBytes = 4096;

/**
 * A request that came over plain HTTP, as the connection manager sanitises `x-forwarded-proto` before routing:
 * the connection's own scheme with `use_remote_address` and no trusted hops (the default), the trusted proxy's
 * value behind trusted hops (a TLS-terminating load balancer: its clients are not redirected again), and the
 * client's value if Envoy is told not to use the remote address (the header is then trusted, as Envoy trusts
 * X-Forwarded-For in that mode). The same signal Envoy's own `require_tls` uses.
 */
const plainHttpRequest: ResourceJson = { name: 'x-forwarded-proto', string_match: { exact: 'https', ignore_case: true }, invert_match: true };
const tlsRequest: ResourceJson = { name: 'x-forwarded-proto', string_match: { exact: 'https', ignore_case: true } };

/** Size in bytes (as Envoy counts it) of the largest direct response body in the table, 0 if there is none. */
function largestDirectResponseBody(table: RouteTableIR): number {
  let largest = 0;
  for (const vhost of table.virtualHosts) largest = Math.max(largest, largestBodyOf(vhost));
  return largest;
}

/** Per virtual host (memoised: an incremental build meets most hosts again). */
const largestBodies = new WeakMap<VirtualHostIR, number>();

function largestBodyOf(vhost: VirtualHostIR): number {
  let largest = largestBodies.get(vhost);
  if (largest === undefined) {
    largest = 0;
    for (const route of vhost.routes) {
      if (route.action.kind === 'direct' && route.action.body !== undefined) {
        largest = Math.max(largest, Buffer.byteLength(route.action.body, 'utf8'));
      }
    }
    largestBodies.set(vhost, largest);
  }
  return largest;
}

/**
 * Per virtual host IR: the JSON built from it, for the catch-all routes and the 404 reply it was built with (see
 * built-once.ts).
 */
const builtVirtualHosts = new WeakMap<
  VirtualHostIR,
  { unknownHostRoutes: readonly RouteIR[]; notFoundBody: string | undefined; notFoundType: string | undefined; json: ResourceJson }
>();

const noRoutes: readonly RouteIR[] = [];

function virtualHostOf(vhost: VirtualHostIR, tableUnknownHostRoutes: readonly RouteIR[], notFound: NotFoundReply | undefined): ResourceJson {
  // Only a wildcard host uses the catch-all's routes: any other (built with `noRoutes`) is the same JSON in every
  // table it is in. Checked before the host names: an incremental build meets most hosts again.
  const known = builtVirtualHosts.get(vhost);
  if (
    known !== undefined &&
    known.notFoundBody === notFound?.body &&
    known.notFoundType === notFound?.contentType &&
    (known.unknownHostRoutes === noRoutes || known.unknownHostRoutes === tableUnknownHostRoutes)
  ) {
    return known.json;
  }
  const unknownHostRoutes = authorityRegexOf(vhost) === undefined ? noRoutes : tableUnknownHostRoutes;
  const json = buildVirtualHost(...withoutTrailingNotFound(vhost, unknownHostRoutes, notFound));
  builtVirtualHosts.set(vhost, { unknownHostRoutes, notFoundBody: notFound?.body, notFoundType: notFound?.contentType, json });
  return json;
}

/** The host's routes without the last one if it is the 404 page that Envoy's "no route" reply gives anyway. */
function withoutTrailingNotFound(
  vhost: VirtualHostIR,
  unknownHostRoutes: readonly RouteIR[],
  notFound: NotFoundReply | undefined,
): [VirtualHostIR, readonly RouteIR[]] {
  if (unknownHostRoutes.length > 0) {
    return answersNotFound(unknownHostRoutes[unknownHostRoutes.length - 1], notFound) ? [vhost, unknownHostRoutes.slice(0, -1)] : [vhost, unknownHostRoutes];
  }
  return answersNotFound(vhost.routes[vhost.routes.length - 1], notFound) ? [{ ...vhost, routes: vhost.routes.slice(0, -1) }, noRoutes] : [vhost, noRoutes];
}

function limitedTo(condition: ResourceJson, prefix: string, routes: readonly ResourceJson[]): ResourceJson[] {
  return routes.map((route) => {
    const match = route['match'] as ResourceJson;
    const headers = (match['headers'] as ResourceJson[] | undefined) ?? [];
    return { ...route, name: `${prefix}${String(route['name'])}`, match: { ...match, headers: [...headers, condition] } };
  });
}

/** A route every request reaches that got this far: a `/` prefix and no other condition. */
function matchesEverything(route: ResourceJson | undefined): boolean {
  const match = route?.['match'] as ResourceJson | undefined;
  if (match === undefined) return false;
  const keys = Object.keys(match);
  return keys.length === 1 && match['prefix'] === '/';
}

/** Per plain-HTTP host JSON: the host merged with the TLS host JSON it was merged with. */
const mergedHosts = new WeakMap<ResourceJson, { tls: ResourceJson; json: ResourceJson }>();

/**
 * One host from its plain-HTTP and TLS forms. The plain routes come first, each for plain HTTP only; they end in
 * a route that takes every request (a redirect, or the default backend), so the TLS routes after them see only
 * TLS requests. Should they not, the TLS routes get the TLS condition too.
 */
function mergedHost(plain: ResourceJson, tls: ResourceJson): ResourceJson {
  const known = mergedHosts.get(plain);
  if (known !== undefined && known.tls === tls) return known.json;
  const plainRoutes = plain['routes'] as ResourceJson[];
  const tlsRoutes = tls['routes'] as ResourceJson[];
  // Equal routes from different IR objects (a catch-all both tables built alike): served as they are.
  const json: ResourceJson = JSON.stringify(plainRoutes) === JSON.stringify(tlsRoutes) ? plain : {
    ...plain,
    routes: [
      ...limitedTo(plainHttpRequest, 'plain-http/', plainRoutes),
      ...(matchesEverything(plainRoutes[plainRoutes.length - 1]) ? tlsRoutes : limitedTo(tlsRequest, 'tls/', tlsRoutes)),
    ],
  };
  mergedHosts.set(plain, { tls, json });
  return json;
}

/**
 * The virtual hosts of the one table: by name (the catch-all last), each as both listeners serve it. A host that
 * only one table has is served, on the other scheme, by that scheme's catch-all, as before.
 */
function mergedVirtualHosts(plain: RouteTableIR, tls: RouteTableIR, notFound: NotFoundReply | undefined): ResourceJson[] {
  const plainCatchAll = catchAllOf(plain.virtualHosts);
  const tlsCatchAll = catchAllOf(tls.virtualHosts);
  const plainUnknown = plainCatchAll?.routes ?? noRoutes;
  const tlsUnknown = tlsCatchAll?.routes ?? noRoutes;
  const a = plain.virtualHosts;
  const b = tls.virtualHosts;
  const out: ResourceJson[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const p = a[i];
    const s = b[j];
    // Both tables are in the translator's order (routeTable): a merge by that same comparison.
    const order = p === undefined ? 1 : s === undefined ? -1 : compareVirtualHosts(p, s);
    const plainHost = order <= 0 ? p : plainCatchAll;
    const tlsHost = order >= 0 ? s : tlsCatchAll;
    if (order <= 0) i++;
    if (order >= 0) j++;
    if (plainHost === tlsHost && plainHost !== undefined) {
      out.push(virtualHostOf(plainHost, plainUnknown, notFound));
      continue;
    }
    const named = (order <= 0 ? p : s) as VirtualHostIR;
    const plainJson = plainHost === undefined ? undefined : virtualHostOf(plainHost, plainUnknown, notFound);
    const tlsJson = tlsHost === undefined ? undefined : virtualHostOf(tlsHost, tlsUnknown, notFound);
    if (plainJson === undefined || tlsJson === undefined) {
      // Only one scheme has this host and the other has no catch-all: the other scheme gets no route here.
      const only = (plainJson ?? tlsJson) as ResourceJson;
      out.push({ ...only, routes: limitedTo(plainJson === undefined ? tlsRequest : plainHttpRequest, plainJson === undefined ? 'tls/' : 'plain-http/', only['routes'] as ResourceJson[]) });
      continue;
    }
    // Under the host's own name and domains (a catch-all stands in for one side only).
    const merged = mergedHost(plainJson, tlsJson);
    out.push(merged['name'] === named.name ? merged : { ...merged, name: named.name, domains: [...named.hostnames] });
  }
  return out;
}

/**
 * The RouteConfiguration (RDS resource) `name` that listeners use: `plain` as plain HTTP is served, and `tls` as TLS
 * connections are (undefined when no TLS is terminated: then it is `plain` alone). A virtual host ending in the
 * 404 fallback that answers `notFound` ends without it: the connection managers give that reply when no route
 * matches (not-found-reply.ts).
 */
export function buildRouteConfiguration(name: string, plain: RouteTableIR, tls?: RouteTableIR, notFound?: NotFoundReply): ResourceJson {
  const plainUnknown = catchAllOf(plain.virtualHosts)?.routes ?? noRoutes;
  const routeConfiguration: ResourceJson = {
    '@type': TypeUrl.routeConfiguration,
    name,
    // Hosts match without the Host header's port: the Gateway API's listeners keep the port for the backend
    // (http-connection-manager.ts); on the Ingress listeners the port is already stripped.
    ignore_port_in_host_matching: true,
    virtual_hosts:
      tls === undefined || tls === plain
        ? plain.virtualHosts.map((vhost) => virtualHostOf(vhost, plainUnknown, notFound))
        : mergedVirtualHosts(plain, tls, notFound),
  };
  // A split's error share names a cluster that does not exist, to be answered 500 per request (route.ts). Over RDS
  // Envoy does not check route clusters anyway; said explicitly, so a static copy of the configuration (`validate`,
  // a bootstrap) loads the same way instead of being refused.
  if (hasErrorShare(plain) || (tls !== undefined && hasErrorShare(tls))) routeConfiguration['validate_clusters'] = false;
  // A custom 404 page (--not-found-page) can be larger than Envoy's default; the limit is raised just enough.
  const largestBody = Math.max(largestDirectResponseBody(plain), tls === undefined ? 0 : largestDirectResponseBody(tls));
  if (largestBody > defaultMaxDirectResponseBodyBytes) {
    routeConfiguration['max_direct_response_body_size_bytes'] = largestBody;
  }
  return routeConfiguration;
}

function hasErrorShare(table: RouteTableIR): boolean {
  return table.virtualHosts.some((vhost) => vhost.routes.some((route) => route.action.kind === 'forward' && (route.action.split?.errorWeight ?? 0) > 0));
}
