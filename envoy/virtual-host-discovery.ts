// VHDS form of the route configurations: each virtual host becomes its own xDS resource, and the route
// configuration only says where to get them. A change to one host then sends that host alone, and Envoy parses
// and validates only it (it still merges the table), instead of the whole table of every host.
import { assembleEncodingOf, encodeMessage } from '../proto/proto-json.js';
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
    const name = virtualHostResourceName(table, String(host['name']));
    resource = { '@type': TypeUrl.virtualHost, ...host, name };
    resources.set(host, resource);
    assembleEncodingOf(resource, () => encodeVirtualHost(host, name));
  }
  return resource;
}

/**
 * Per virtual host JSON: the bytes of the first resource encoded from it, and where its fields after the name
 * start. Most hosts are served the same on both tables (the same JSON object), and their resources differ only
 * in the name: the rest is encoded once and copied. Holds the bytes the snapshot cache holds anyway.
 */
const encodedHosts = new WeakMap<ResourceJson, { bytes: Uint8Array; fieldsStart: number }>();

/**
 * A VirtualHost's bytes: `name` is field 1, so the encoder (which writes fields in number order) writes it
 * first, and the message is the name field followed by the bytes of every other field.
 */
function encodeVirtualHost(host: ResourceJson, name: string): Uint8Array {
  const known = encodedHosts.get(host);
  let fields: Uint8Array;
  if (known !== undefined) fields = known.bytes.subarray(known.fieldsStart);
  else {
    const { name: _, ...rest } = host;
    fields = encodeMessage(virtualHostType, rest);
  }
  const nameLength = Buffer.byteLength(name, 'utf8');
  let lengthBytes = 1;
  for (let n = nameLength; n >= 0x80; n = Math.floor(n / 128)) lengthBytes += 1;
  const fieldsStart = 1 + lengthBytes + nameLength;
  const bytes = Buffer.allocUnsafeSlow(fieldsStart + fields.length);
  bytes[0] = 0x0a; // field 1, length-delimited
  let at = 1;
  for (let n = nameLength; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      bytes[at++] = n;
      break;
    }
    bytes[at++] = (n % 128) | 0x80;
  }
  bytes.write(name, at, nameLength, 'utf8');
  bytes.set(fields, fieldsStart);
  if (known === undefined) encodedHosts.set(host, { bytes, fieldsStart });
  return bytes;
}

const virtualHostType = TypeUrl.virtualHost.slice(TypeUrl.virtualHost.lastIndexOf('/') + 1);

/** Splits full route configurations (as the builders make them) into their VHDS form. */
export function splitVirtualHosts(routeConfigurations: readonly NamedResource[]): VirtualHostDiscovery {
  const tables: NamedResource[] = [];
  const virtualHosts: NamedResource[] = [];
  for (const { name, resource } of routeConfigurations) {
    const { virtual_hosts: hosts, ...rest } = resource;
    tables.push({ name, resource: { ...rest, vhds: vhdsConfig } });
    const first = virtualHosts.length;
    for (const host of (hosts ?? []) as ResourceJson[]) {
      const resource = virtualHostResource(name, host);
      virtualHosts.push({ name: String(resource['name']), resource });
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
