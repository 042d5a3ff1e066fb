// State-of-the-world streams cannot use VHDS (Envoy supports it over delta xDS only): they are served each route
// configuration with its virtual hosts inside, as it was before the split. Built from the bytes already encoded
// (protobuf messages concatenate: the table's fields minus `vhds`, then one `virtual_hosts` entry per host), once
// per pair of maps, and only when a state-of-the-world stream asks.
import { routeConfigurationOf } from '../proto/type-urls.js';
import { readVarint, writeVarint } from '../proto/varint.js';
import { resourceOf, type XdsResource } from './resource.js';
import type { ResourceMap } from './snapshot.js';

/** RouteConfiguration field numbers. */
const virtualHostsField = 2;
const vhdsField = 9;
const lengthDelimited = 2;

/** What an embedded route configuration was made of: the ACK of it is an ACK of these snapshot resources. */
export interface EmbeddedParts {
  routeConfiguration: XdsResource;
  virtualHosts: readonly XdsResource[];
}

const parts = new WeakMap<XdsResource, EmbeddedParts>();
const memo = new WeakMap<ResourceMap, WeakMap<ResourceMap, ResourceMap>>();

export function embeddedParts(resource: XdsResource): EmbeddedParts | undefined {
  return parts.get(resource);
}

/** The message's bytes without the top-level field `field` (a length-delimited one). */
export function withoutField(bytes: Uint8Array, field: number): Uint8Array {
  const kept: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const start = at;
    const [tag, afterTag] = readVarint(bytes, at);
    const wireType = tag & 7;
    let end: number;
    if (wireType === 0) end = readVarint(bytes, afterTag)[1];
    else if (wireType === 1) end = afterTag + 8;
    else if (wireType === 5) end = afterTag + 4;
    else if (wireType === lengthDelimited) {
      const [length, afterLength] = readVarint(bytes, afterTag);
      end = afterLength + length;
    } else throw new Error(`unsupported wire type ${wireType}`);
    if (tag >>> 3 !== field) kept.push(bytes.subarray(start, end));
    at = end;
  }
  return Buffer.concat(kept);
}

function embed(routeConfiguration: XdsResource, virtualHosts: readonly XdsResource[]): XdsResource {
  const chunks: Uint8Array[] = [withoutField(routeConfiguration.any.value, vhdsField)];
  for (const host of virtualHosts) {
    const header: number[] = [];
    writeVarint((virtualHostsField << 3) | lengthDelimited, header);
    writeVarint(host.any.value.length, header);
    chunks.push(Uint8Array.from(header), host.any.value);
  }
  const made = resourceOf(routeConfiguration.name, { type_url: routeConfiguration.any.type_url, value: Buffer.concat(chunks) });
  parts.set(made, { routeConfiguration, virtualHosts });
  return made;
}

/** The route configurations with their virtual hosts embedded (no `vhds`), in the same name order. */
export function embedVirtualHosts(routeConfigurations: ReadonlyMap<string, XdsResource>, virtualHosts: ResourceMap): ReadonlyMap<string, XdsResource> {
  let byHosts = memo.get(routeConfigurations as ResourceMap);
  const known = byHosts?.get(virtualHosts);
  if (known !== undefined) return known;
  const hostsOf = new Map<string, XdsResource[]>();
  for (const [name, host] of virtualHosts) {
    const table = routeConfigurationOf(name);
    let list = hostsOf.get(table);
    if (list === undefined) hostsOf.set(table, (list = []));
    list.push(host);
  }
  const out = new Map<string, XdsResource>();
  for (const [name, table] of routeConfigurations) out.set(name, embed(table, hostsOf.get(name) ?? []));
  if (byHosts === undefined) memo.set(routeConfigurations as ResourceMap, (byHosts = new WeakMap()));
  byHosts.set(virtualHosts, out);
  return out;
}
