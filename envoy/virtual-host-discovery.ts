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

/** The VHDS resource made from one virtual host JSON, and the table it was made for. */
interface HostResource {
  table: string;
  name: string;
  resource: ResourceJson;
}

/**
 * Per virtual host JSON: its resource, the same object for the same input (see built-once.ts), so the snapshot
 * cache meets the resource it encoded last time and does not encode it again.
 */
const resourceByHost = new WeakMap<ResourceJson, HostResource>();

function virtualHostResource(table: string, host: ResourceJson): HostResource {
  const known = resourceByHost.get(host);
  if (known !== undefined && known.table === table) return known;
  const name = virtualHostResourceName(table, String(host['name']));
  const made = { table, name, resource: { '@type': TypeUrl.virtualHost, ...host, name } };
  resourceByHost.set(host, made);
  return made;
}

/** Splits full route configurations (as the builders make them) into their VHDS form. */
export function splitVirtualHosts(routeConfigurations: readonly NamedResource[]): VirtualHostDiscovery {
  const tables: NamedResource[] = [];
  const virtualHosts: NamedResource[] = [];
  for (const { name, resource } of routeConfigurations) {
    const { virtual_hosts: hosts, ...rest } = resource;
    tables.push({ name, resource: { ...rest, vhds: vhdsConfig } });
    const first = virtualHosts.length;
    for (const host of (hosts ?? []) as ResourceJson[]) {
      // The name from the record: reading it from resources of many shapes is a megamorphic property access.
      const made = virtualHostResource(name, host);
      virtualHosts.push({ name: made.name, resource: made.resource });
    }
    moveLastIntoPlace(virtualHosts, first);
  }
  // Tables list their hosts by name (the catch-all, last in a table, was moved into place above), and their
  // names prefix the resource names: usually already in order, and sorting 40,000 names per build is not free.
  if (!inNameOrder(virtualHosts)) virtualHosts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { routeConfigurations: tables, virtualHosts };
}

/** Moves the last entry of `list` (from index `from` on) to where name order puts it, among entries in order. */
function moveLastIntoPlace(list: NamedResource[], from: number): void {
  if (list.length - from < 2) return;
  const last = list[list.length - 1]!;
  let low = from;
  let high = list.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]!.name < last.name) low = mid + 1;
    else high = mid;
  }
  if (low === list.length - 1) return;
  list.pop();
  list.splice(low, 0, last);
}

function inNameOrder(list: readonly NamedResource[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i - 1]!.name > list[i]!.name) return false;
  return true;
}
