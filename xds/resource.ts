import { hash } from 'node:crypto';
import { decodeAnyToJson, encodeAny } from '../proto/proto-json.js';

/** One encoded xDS resource. Encoded once per content change and shared by every stream. */
export interface XdsResource {
  readonly name: string;
  /** Content hash of the encoded bytes: equal content gives an equal version, across restarts too. */
  readonly version: string;
  readonly any: { readonly type_url: string; readonly value: Uint8Array };
  /**
   * The resource as proto3 JSON (for render, debugging and tests), decoded from the bytes on each access: the
   * served bytes are the only copy kept, which halves what a large snapshot holds in memory.
   */
  readonly json: Readonly<Record<string, unknown>>;
  /**
   * snapshot.ts's digest of name and version, memoised on the resource itself: a WeakMap entry per resource
   * (40,000 virtual hosts at 10,000 Ingresses) cost the garbage collector more than the digest.
   */
  digest?: readonly [number, number] | undefined;
  /**
   * The JSON object this resource was last encoded from (or found equal to), set by the snapshot cache: handed
   * that same object again, the cache skips encoding it. A field, not a WeakMap entry per resource (the JSON is
   * kept alive anyway by the builders' memos, as long as the IR it was built from).
   */
  source?: object | undefined;
}

/** One-shot hashing: a Hash object per resource cost more than hashing its bytes. */
export function hashOf(data: Uint8Array | string): string {
  return hash('sha256', data, 'base64url').slice(0, 16);
}

class EncodedResource implements XdsResource {
  digest: readonly [number, number] | undefined = undefined;
  source: object | undefined = undefined;

  constructor(
    readonly name: string,
    readonly version: string,
    readonly any: { readonly type_url: string; readonly value: Uint8Array },
  ) {}

  get json(): Readonly<Record<string, unknown>> {
    return decodeAnyToJson(this.any.type_url, this.any.value);
  }
}

/** A resource from encoded bytes (hashed here). */
export function resourceOf(name: string, any: { type_url: string; value: Uint8Array }): XdsResource {
  return new EncodedResource(name, hashOf(any.value), any);
}

export function makeResource(name: string, json: Record<string, unknown>): XdsResource {
  return resourceOf(name, encodeAny(json));
}

/** Same bytes as an already served resource: byte comparison is cheaper than hashing, and needs no JSON text. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0;
}
