// VHDS form of the route configurations: each virtual host becomes its own xDS resource, and the route
// configuration only says where to get them. A change to one host then sends that host alone, and Envoy parses
// and validates only it (it still merges the table), instead of the whole table of every host.
import { encodeAny } from '../proto/proto-json.js';
import { readVarint, writeVarint } from '../proto/varint.js';
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

/** The VHDS resources made from one virtual host JSON (a host can be in both tables), and its encoded fields. */
interface HostResources {
  /** Per table: the resource, the same object for the same input (see built-once.ts), and its encoder. */
  byTable: { table: string; name: string; resource: ResourceJson; encode: () => Uint8Array }[];
  /**
   * The bytes of the first resource encoded from this host, and where its fields after the name start. Most
   * hosts are served the same on both tables (the same JSON object), and their resources differ only in the
   * name: the rest is encoded once and copied. Holds the bytes the snapshot cache holds anyway.
   */
  encoded?: { bytes: Uint8Array; fieldsStart: number };
}

/** One WeakMap entry per host (not one per table and purpose: 40,000 entries cost the garbage collector). */
const resourcesByHost = new WeakMap<ResourceJson, HostResources>();

function virtualHostResource(table: string, host: ResourceJson): HostResources['byTable'][number] {
  let resources = resourcesByHost.get(host);
  if (resources === undefined) resourcesByHost.set(host, (resources = { byTable: [] }));
  const byTable = resources.byTable;
  for (let i = 0; i < byTable.length; i++) if (byTable[i]!.table === table) return byTable[i]!;
  const name = virtualHostResourceName(table, String(host['name']));
  const resource = { '@type': TypeUrl.virtualHost, ...host, name };
  const record = resources;
  const made = { table, name, resource, encode: () => encodeVirtualHost(resource, record, name) };
  resources.byTable.push(made);
  return made;
}

/**
 * A VirtualHost's bytes: `name` is field 1, so the encoder (which writes fields in number order) writes it
 * first, and the message is the name field followed by the bytes of every other field. One allocation per
 * resource: allocating buffers was the larger part of encoding 40,000 of them.
 */
function encodeVirtualHost(resource: ResourceJson, resources: HostResources, name: string): Uint8Array {
  const known = resources.encoded;
  if (known === undefined) {
    // The first resource of this host: encoded as any other, and the end of its name field remembered.
    const bytes = encodeAny(resource).value;
    const [nameLength, nameStart] = readVarint(bytes, 1); // after the tag of field 1
    resources.encoded = { bytes, fieldsStart: nameStart + nameLength };
    return bytes;
  }
  const fields = known.bytes.subarray(known.fieldsStart);
  const nameLength = Buffer.byteLength(name, 'utf8');
  const head = [0x0a]; // field 1, length-delimited
  writeVarint(nameLength, head);
  const fieldsStart = head.length + nameLength;
  const bytes = Buffer.allocUnsafeSlow(fieldsStart + fields.length);
  bytes.set(head, 0);
  bytes.write(name, head.length, nameLength, 'utf8');
  bytes.set(fields, fieldsStart);
  return bytes;
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
      virtualHosts.push({ name: made.name, resource: made.resource, encode: made.encode });
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
