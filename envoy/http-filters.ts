// HTTP filters that annotations configure per route (RBAC for allowed-source-cidrs, CORS, buffer for
// max-request-body-size). A connection manager carries one only when a route of its table uses it, and then
// disabled: it runs only on routes whose typed_per_filter_config names it (route-policy.ts).
import type { RoutePolicyIR, RouteTableIR } from '../controller/translate/ir.js';
import type { ResourceJson } from './resource-types.js';
import { bufferFilterName, corsFilterName, rbacFilterName } from './route-policy.js';

const filters: readonly { name: string; usedBy: (policy: RoutePolicyIR) => boolean; config: ResourceJson }[] = [
  // Access control first: a denied client learns nothing else about the route.
  {
    name: rbacFilterName,
    usedBy: (p) => p.allowedSourceCidrs !== undefined,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC' },
  },
  {
    name: corsFilterName,
    usedBy: (p) => p.cors !== undefined,
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors' },
  },
  {
    name: bufferFilterName,
    usedBy: (p) => p.maxRequestBodyBytes !== undefined,
    // Never applies as such (the filter is disabled; routes bring their own limit), but the field is required.
    config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.buffer.v3.Buffer', max_request_bytes: 4294967295 },
  },
];

/** The per-route HTTP filters some route of `table` uses, in filter-chain order, to go before the router. */
export function buildRouteConfiguredHttpFilters(table: RouteTableIR): ResourceJson[] {
  // TLS filter chains share one route table: scan it once per build, not once per chain (O(chains x routes)).
  let built = filtersByTable.get(table);
  if (built === undefined) {
    built = scanRouteConfiguredHttpFilters(table);
    filtersByTable.set(table, built);
  }
  return built.map((filter) => ({ ...filter, typed_config: { ...(filter['typed_config'] as ResourceJson) } }));
}

const filtersByTable = new WeakMap<RouteTableIR, ResourceJson[]>();

function scanRouteConfiguredHttpFilters(table: RouteTableIR): ResourceJson[] {
  const policies = table.virtualHosts.flatMap((vhost) =>
    vhost.routes.flatMap((route) => (route.policy !== undefined && route.action.kind === 'forward' ? [route.policy] : [])),
  );
  return filters
    .filter((filter) => policies.some(filter.usedBy))
    .map((filter) => ({ name: filter.name, typed_config: { ...filter.config }, disabled: true }));
}
