import { createHash } from 'node:crypto';
import { encodeAny, encodeMessage } from '../proto/proto-json.js';
import { TypeUrl } from '../proto/type-urls.js';

/** One encoded xDS resource. Encoded once per content change and shared by every stream. */
export interface XdsResource {
  readonly name: string;
  /** Content hash of the encoded bytes: equal content gives an equal version, across restarts too. */
  readonly version: string;
  readonly any: { readonly type_url: string; readonly value: Uint8Array };
  /** The proto3 JSON it was built from (for render, debugging and tests). */
  readonly json: Readonly<Record<string, unknown>>;
}

export function hashOf(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('base64url').slice(0, 16);
}

export function makeResource(name: string, json: Record<string, unknown>): XdsResource {
  const any = encodeAny(json);
  return { name, version: hashOf(any.value), any, json };
}

/** RouteConfiguration.virtual_hosts is field 2, length-delimited: tag byte (2 << 3) | 2. */
const virtualHostsTag = 0x12;
const virtualHostType = 'envoy.config.route.v3.VirtualHost';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/**
 * Encodes RouteConfigurations virtual host by virtual host, reusing the bytes of every virtual host whose JSON did
 * not change. A protobuf message is the concatenation of its fields, so the RouteConfiguration without its
 * virtual hosts followed by one length-delimited field 2 per virtual host is a valid encoding of the whole. The
 * http route table holds every Ingress host: with this, a one-route change re-encodes one virtual host instead
 * of all of them (the resource is still sent whole: see README "Performance").
 */
export class RouteConfigurationEncoder {
  /** Per route configuration name: virtual host JSON text -> encoded bytes, for the last encoding only. */
  #byName = new Map<string, Map<string, Uint8Array>>();
  /** Virtual hosts encoded (not reused) by the last encode call: what a change cost. */
  lastEncodedVirtualHosts = 0;

  /** `texts` are JSON.stringify of each virtual host, in order (the caller has them for change detection). */
  encode(name: string, json: Record<string, unknown>, texts?: readonly string[]): XdsResource {
    const hosts = (json['virtual_hosts'] ?? []) as Record<string, unknown>[];
    const previous = this.#byName.get(name) ?? new Map<string, Uint8Array>();
    const current = new Map<string, Uint8Array>();
    const { virtual_hosts: _hosts, ...rest } = json;
    const head = encodeAny({ ...rest, '@type': TypeUrl.routeConfiguration }).value;
    const parts: Uint8Array[] = [head];
    let size = head.byteLength;
    let encoded = 0;
    hosts.forEach((host, i) => {
      const text = texts?.[i] ?? JSON.stringify(host);
      let bytes = current.get(text) ?? previous.get(text);
      if (bytes === undefined) {
        bytes = encodeMessage(virtualHostType, host);
        encoded += 1;
      }
      current.set(text, bytes);
      const prefix = Uint8Array.from([virtualHostsTag, ...varint(bytes.byteLength)]);
      parts.push(prefix, bytes);
      size += prefix.byteLength + bytes.byteLength;
    });
    this.#byName.set(name, current);
    this.lastEncodedVirtualHosts = encoded;
    const value = Buffer.concat(parts, size);
    return { name, version: hashOf(value), any: { type_url: TypeUrl.routeConfiguration, value }, json };
  }

  /** Forget route configurations no longer served. */
  retain(names: ReadonlySet<string>): void {
    for (const name of this.#byName.keys()) if (!names.has(name)) this.#byName.delete(name);
  }
}
