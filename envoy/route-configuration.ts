import { TypeUrl } from '../proto/type-urls.js';
import type { RouteIR, RouteTableIR, VirtualHostIR } from '../controller/translate/ir.js';
import type { ResourceJson } from './resource-types.js';
import { authorityRegexFor, buildVirtualHost } from './virtual-host.js';

/** Envoy's default cap on a direct response body; a larger one makes it reject the whole RouteConfiguration. */
const defaultMaxDirectResponseBodyBytes = 4096;

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

/** Per virtual host IR: the JSON built from it, for the catch-all routes it was built with (see built-once.ts). */
const builtVirtualHosts = new WeakMap<VirtualHostIR, { unknownHostRoutes: readonly RouteIR[]; json: ResourceJson }>();

const noRoutes: readonly RouteIR[] = [];

function virtualHostOf(vhost: VirtualHostIR, tableUnknownHostRoutes: readonly RouteIR[]): ResourceJson {
  // Only a wildcard host uses the catch-all's routes: any other (built with `noRoutes`) is the same JSON in every
  // table it is in. Checked before the host names: an incremental build meets most hosts again.
  const known = builtVirtualHosts.get(vhost);
  if (known !== undefined && (known.unknownHostRoutes === noRoutes || known.unknownHostRoutes === tableUnknownHostRoutes)) return known.json;
  const unknownHostRoutes = authorityRegexFor(vhost.hostnames) === undefined ? noRoutes : tableUnknownHostRoutes;
  const json = buildVirtualHost(vhost, unknownHostRoutes);
  builtVirtualHosts.set(vhost, { unknownHostRoutes, json });
  return json;
}

/** A RouteConfiguration (RDS resource) named after the route table. */
export function buildRouteConfiguration(table: RouteTableIR): ResourceJson {
  // Routes for hosts no virtual host really matches: those of the catch-all (`*`) virtual host, if any.
  const unknownHostRoutes = table.virtualHosts.find((vhost) => vhost.hostnames.includes('*'))?.routes ?? [];
  const routeConfiguration: ResourceJson = {
    '@type': TypeUrl.routeConfiguration,
    name: table.name,
    virtual_hosts: table.virtualHosts.map((vhost) => virtualHostOf(vhost, unknownHostRoutes)),
  };
  // A custom 404 page (--not-found-page) can be larger than Envoy's default; the limit is raised just enough.
  const largestBody = largestDirectResponseBody(table);
  if (largestBody > defaultMaxDirectResponseBodyBytes) {
    routeConfiguration['max_direct_response_body_size_bytes'] = largestBody;
  }
  return routeConfiguration;
}
