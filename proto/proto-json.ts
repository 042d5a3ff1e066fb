// Proto3 JSON mapping <-> protobuf binary.
//
// Builders produce Envoy resources in the proto3 JSON form Envoy itself prints in /config_dump (snake_case
// names, `@type` on Any, "5s" durations, plain numbers for wrapper types). Encoding walks that JSON straight
// into wire bytes (proto-json-encoder.ts), strictly: an unknown field or a value of the wrong shape throws with
// the field path, so a builder bug fails in tests instead of reaching Envoy. Decoding (tests, debugging,
// render) goes through protobufjs reflection and maps the well-known types back to their JSON forms.
import protobuf from 'protobufjs';
import { envoyApi } from './envoy-api.js';
import { encodeJsonAny, encodeJsonMessage, hasSpecialJson, typeOfUrl } from './proto-json-encoder.js';
import { typeUrlPrefix } from './type-urls.js';

export { ProtoJsonError, typeOfUrl } from './proto-json-encoder.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: unknown };

const wrapperTypes = new Set([
  'google.protobuf.DoubleValue',
  'google.protobuf.FloatValue',
  'google.protobuf.Int64Value',
  'google.protobuf.UInt64Value',
  'google.protobuf.Int32Value',
  'google.protobuf.UInt32Value',
  'google.protobuf.BoolValue',
  'google.protobuf.StringValue',
  'google.protobuf.BytesValue',
]);

// protobufjs computes fullName by walking the parents on every access.
const fullNames = new WeakMap<protobuf.Type, string>();

function fullName(type: protobuf.Type): string {
  let name = fullNames.get(type);
  if (name === undefined) {
    name = type.fullName.replace(/^\./, '');
    fullNames.set(type, name);
  }
  return name;
}

/** Encode a resource given in proto3 JSON form (with its `@type`) as a google.protobuf.Any. */
export function encodeAny(resource: { [key: string]: unknown }): { type_url: string; value: Uint8Array } {
  return encodeJsonAny(resource);
}

/** Encode a message of the given type from proto3 JSON. */
export function encodeMessage(typeName: string, json: unknown): Uint8Array {
  return encodeJsonMessage(typeName, json);
}

// ---------- protobuf -> proto3 JSON (for tests, debugging and render) ----------

const toObjectOptions: protobuf.IConversionOptions = { longs: String, enums: String, bytes: String, defaults: false };

function formatDuration(seconds: number, nanos: number): string {
  if (nanos === 0) return `${seconds}s`;
  const negative = seconds < 0 || nanos < 0;
  const frac = String(Math.abs(nanos)).padStart(9, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${Math.abs(seconds)}.${frac}s`;
}

function valueToJson(value: JsonObject): unknown {
  if ('nullValue' in value) return null;
  if ('numberValue' in value) return value['numberValue'];
  if ('stringValue' in value) return value['stringValue'];
  if ('boolValue' in value) return value['boolValue'];
  if ('listValue' in value) {
    const list = value['listValue'] as { values?: JsonObject[] };
    return (list.values ?? []).map(valueToJson);
  }
  if ('structValue' in value) return structToJson(value['structValue'] as JsonObject);
  return null;
}

function structToJson(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries((value['fields'] ?? {}) as Record<string, JsonObject>)) out[k] = valueToJson(v);
  return out;
}

function plainToJson(type: protobuf.Type, plain: JsonObject): unknown {
  const name = fullName(type);
  switch (name) {
    case 'google.protobuf.Duration':
      return formatDuration(Number(plain['seconds'] ?? 0), Number(plain['nanos'] ?? 0));
    case 'google.protobuf.Timestamp': {
      const ms = Number(plain['seconds'] ?? 0) * 1000 + Math.floor(Number(plain['nanos'] ?? 0) / 1e6);
      return new Date(ms).toISOString();
    }
    case 'google.protobuf.Struct':
      return structToJson(plain);
    case 'google.protobuf.Value':
      return valueToJson(plain);
    case 'google.protobuf.ListValue':
      return ((plain['values'] ?? []) as JsonObject[]).map(valueToJson);
    case 'google.protobuf.FieldMask':
      return ((plain['paths'] ?? []) as string[]).join(',');
    case 'google.protobuf.Any':
      return decodeAnyToJson(String(plain['type_url'] ?? ''), Buffer.from(String(plain['value'] ?? ''), 'base64'));
    default:
      if (wrapperTypes.has(name)) {
        const v = plain['value'];
        const t = type.fields['value']!.type;
        return v ?? (t === 'bool' ? false : t === 'string' || t === 'bytes' ? '' : 0);
      }
  }
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(plain)) {
    const field = type.fields[key];
    if (!field) continue;
    const resolved = field.resolvedType;
    if (!(resolved instanceof protobuf.Type)) {
      out[key] = v;
      continue;
    }
    if (field instanceof protobuf.MapField) {
      const m: JsonObject = {};
      for (const [mk, mv] of Object.entries(v as JsonObject)) m[mk] = plainToJson(resolved, mv as JsonObject);
      out[key] = m;
    } else if (field.repeated) {
      out[key] = (v as JsonObject[]).map((item) => plainToJson(resolved, item));
    } else {
      out[key] = plainToJson(resolved, v as JsonObject);
    }
  }
  return out;
}

/** Decode an Any's bytes into proto3 JSON with `@type`. */
export function decodeAnyToJson(typeUrl: string, value: Uint8Array): { [key: string]: unknown } {
  const type = typeOfUrl(typeUrl);
  const json = plainToJson(type, type.toObject(type.decode(value), toObjectOptions));
  if (hasSpecialJson(fullName(type))) return { '@type': typeUrl, value: json };
  return { '@type': typeUrl, ...(json as JsonObject) };
}

/** Decode a message of the given type into proto3 JSON. */
export function decodeMessage(typeName: string, bytes: Uint8Array): unknown {
  const type = envoyApi().lookupType(typeName);
  return plainToJson(type, type.toObject(type.decode(bytes), toObjectOptions));
}

/** The type URL for a message name. */
export function typeUrlOf(messageName: string): string {
  return typeUrlPrefix + messageName;
}
