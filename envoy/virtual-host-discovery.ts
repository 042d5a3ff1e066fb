// VHDS form of the route configurations: each virtual host becomes its own xDS resource, and the route
// configuration only says where to get them. A change to one host then sends that host alone, and Envoy parses
// and validates only it (it still merges the table), instead of the whole table of every host.
import { TypeUrl, virtualHostResourceName } from '../proto/type-urls.js';
import type { NamedResource, ResourceJson } from './resource-types.js';

/** Virtual hosts come over the same (delta) ADS stream as everything else. */
const vhdsConfig = { config_source: { ads: {}, resource_api_version: 'V3' } };

export interface VirtualHostDiscovery {
  /** The route configurations without virtual hosts, with `vhds` instead. */
  routeConfigurations: NamedResource[];
  /** Every virtual host, named `<route configuration>/<virtual host>`, sorted by name. */
  virtualHosts: NamedResource[];
}

/** Per table, per virtual host JSON (a host can be in both tables): its VHDS resource, the same object for the same input (see built-once.ts). */
const resourcesByTable = new Map<string, WeakMap<ResourceJson, ResourceJson>>();

function virtualHostResource(table: string, host: ResourceJson): ResourceJson {
  let resources = resourcesByTable.get(table);
  if (resources === undefined) resourcesByTable.set(table, (resources = new WeakMap()));
  let resource = resources.get(host);
  if (resource === undefined) {
    resource = { '@type': TypeUrl.virtualHost, ...host, name: virtualHostResourceName(table, String(host['name'])) };
    resources.set(host, resource);
  }
  return resource;
}

/** Splits full route configurations (as the builders make them) into their VHDS form. */
export function splitVirtualHosts(routeConfigurations: readonly NamedResource[]): VirtualHostDiscovery {
  const tables: NamedResource[] = [];
  const virtualHosts: NamedResource[] = [];
  for (const { name, resource } of routeConfigurations) {
    const { virtual_hosts: hosts, ...rest } = resource;
    tables.push({ name, resource: { ...rest, vhds: vhdsConfig } });
    for (const host of (hosts ?? []) as ResourceJson[]) {
      const resource = virtualHostResource(name, host);
      virtualHosts.push({ name: String(resource['name']), resource });
    }
  }
  virtualHosts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { routeConfigurations: tables, virtualHosts };
}
