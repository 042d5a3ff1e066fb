import { createHash } from 'node:crypto';
import { encodeAny } from '../proto/proto-json.js';

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
