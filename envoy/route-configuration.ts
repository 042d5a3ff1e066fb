import { TypeUrl } from '../proto/type-urls.js';
import type { RouteTableIR } from '../controller/translate/ir.js';
import type { ResourceJson } from './resource-types.js';
import { buildVirtualHost } from './virtual-host.js';

/** A RouteConfiguration (RDS resource) named after the route table. */
export function buildRouteConfiguration(table: RouteTableIR): ResourceJson {
  // Routes for hosts no virtual host really matches: those of the catch-all (`*`) virtual host, if any.
  const unknownHostRoutes = table.virtualHosts.find((vhost) => vhost.hostnames.includes('*'))?.routes ?? [];
  return {
    '@type': TypeUrl.routeConfiguration,
    name: table.name,
    virtual_hosts: table.virtualHosts.map((vhost) => buildVirtualHost(vhost, unknownHostRoutes)),
  };
}
