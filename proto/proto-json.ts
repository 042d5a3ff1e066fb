// Note: protobufjs's built-in google.protobuf.Value uses camelCase field names (nullValue, ...).
// Proto3 JSON mapping <-> protobuf binary, over protobufjs reflection.
//
// Builders produce Envoy resources in the proto3 JSON form Envoy itself prints in /config_dump (snake_case
// names, `@type` on Any, "5s" durations, plain numbers for wrapper types). protobufjs's own fromObject/toObject
// do not implement those well-known-type mappings, so this file does, strictly: an unknown field or a value of
// the wrong shape throws with the field path, so a builder bug fails in tests instead of reaching Envoy.
import protobuf from 'protobufjs';
import { envoyApi } from './envoy-api.js';
import { typeUrlPrefix } from './type-urls.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: unknown };

export class ProtoJsonError extends Error {
  constructor(
    readonly fieldPath: string,
    message: string,
  ) {
    super(`${fieldPath || '<root>'}: ${message}`);
    this.name = 'ProtoJsonError';
  }
}

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

// protobufjs computes fullName by walking the parents on every access; encoding asks for it once per message.
const fullNames = new WeakMap<protobuf.Type, string>();

function fullName(type: protobuf.Type): string {
  let name = fullNames.get(type);
  if (name === undefined) {
    name = type.fullName.replace(/^\./, '');
    fullNames.set(type, name);
  }
  return name;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Look up a message type by type URL in the loaded API. */
const typesByUrl = new Map<string, protobuf.Type>();

export function typeOfUrl(typeUrl: string): protobuf.Type {
  const known = typesByUrl.get(typeUrl);
  if (known) return known;
  const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
  try {
    const type = envoyApi().lookupType(name);
    typesByUrl.set(typeUrl, type);
    return type;
  } catch {
    throw new ProtoJsonError('', `unknown message type ${JSON.stringify(typeUrl)} (add its .proto to proto/envoy-api.ts)`);
  }
}

// ---------- JSON -> protobufjs plain object (fromObject input) ----------

const durationPattern = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;

function parseDuration(value: unknown, at: string): { seconds: number; nanos: number } {
  if (typeof value !== 'string') throw new ProtoJsonError(at, `duration must be a string like "1.5s"`);
  const m = durationPattern.exec(value);
  if (!m) throw new ProtoJsonError(at, `invalid duration ${JSON.stringify(value)}`);
  const sign = m[1] ? -1 : 1;
  const seconds = Number(m[2]);
  const nanos = Number((m[3] ?? '').padEnd(9, '0'));
  return { seconds: sign * seconds, nanos: sign * nanos };
}

function parseTimestamp(value: unknown, at: string): { seconds: number; nanos: number } {
  if (typeof value !== 'string') throw new ProtoJsonError(at, 'timestamp must be an RFC 3339 string');
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ProtoJsonError(at, `invalid timestamp ${JSON.stringify(value)}`);
  const frac = /\.(\d{1,9})/.exec(value)?.[1] ?? '';
  return { seconds: Math.floor(ms / 1000), nanos: Number(frac.padEnd(9, '0')) };
}

function structValue(value: unknown, at: string): JsonObject {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map((v, i) => structValue(v, `${at}[${i}]`)) } };
  if (isObject(value)) return { structValue: struct(value, at) };
  throw new ProtoJsonError(at, 'value cannot be represented in google.protobuf.Value');
}

function struct(value: unknown, at: string): JsonObject {
  if (!isObject(value)) throw new ProtoJsonError(at, 'google.protobuf.Struct must be an object');
  const fields: JsonObject = {};
  for (const [k, v] of Object.entries(value)) fields[k] = structValue(v, `${at}.${k}`);
  return { fields };
}

/** Encode an Any from its JSON form `{"@type": url, ...fields}`. */
function anyFromJson(value: unknown, at: string): { type_url: string; value: Uint8Array } {
  if (!isObject(value)) throw new ProtoJsonError(at, 'google.protobuf.Any must be an object');
  const typeUrl = value['@type'];
  if (typeof typeUrl !== 'string') throw new ProtoJsonError(at, 'google.protobuf.Any needs "@type"');
  const inner = typeOfUrl(typeUrl);
  const innerName = fullName(inner);
  const { '@type': _ignored, ...rest } = value;
  // Well-known types with a special JSON form carry it in "value".
  const payload = specialJson(innerName) ? rest['value'] : rest;
  const plain = messageFromJson(inner, payload, `${at}<${innerName}>`);
  return { type_url: typeUrl, value: inner.encode(inner.fromObject(plain)).finish() };
}

function specialJson(name: string): boolean {
  return (
    wrapperTypes.has(name) ||
    name === 'google.protobuf.Duration' ||
    name === 'google.protobuf.Timestamp' ||
    name === 'google.protobuf.Struct' ||
    name === 'google.protobuf.Value' ||
    name === 'google.protobuf.ListValue' ||
    name === 'google.protobuf.FieldMask'
  );
}

function messageFromJson(type: protobuf.Type, value: unknown, at: string): JsonObject {
  const name = fullName(type);
  switch (name) {
    case 'google.protobuf.Duration':
      return parseDuration(value, at);
    case 'google.protobuf.Timestamp':
      return parseTimestamp(value, at);
    case 'google.protobuf.Struct':
      return struct(value, at);
    case 'google.protobuf.Value':
      return structValue(value, at);
    case 'google.protobuf.ListValue':
      if (!Array.isArray(value)) throw new ProtoJsonError(at, 'ListValue must be an array');
      return { values: value.map((v, i) => structValue(v, `${at}[${i}]`)) };
    case 'google.protobuf.FieldMask':
      if (typeof value !== 'string') throw new ProtoJsonError(at, 'FieldMask must be a string');
      return { paths: value === '' ? [] : value.split(',') };
    case 'google.protobuf.Any':
      return anyFromJson(value, at);
    default:
      if (wrapperTypes.has(name)) return { value: scalarFromJson(type.fields['value']!, value, at) };
  }
  if (!isObject(value)) throw new ProtoJsonError(at, `${name} must be an object`);
  const out: JsonObject = {};
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = type.fields[key] ?? fieldByJsonName(type, key);
    const fieldAt = at ? `${at}.${key}` : key;
    if (!field) throw new ProtoJsonError(fieldAt, `unknown field in ${name}`);
    if (fieldValue === null && !(field.resolvedType instanceof protobuf.Type && fullName(field.resolvedType) === 'google.protobuf.Value')) {
      continue; // proto3 JSON: null means default
    }
    out[field.name] = fieldFromJson(field, fieldValue, fieldAt);
  }
  return out;
}

const jsonNameIndex = new WeakMap<protobuf.Type, Map<string, protobuf.Field>>();

function fieldByJsonName(type: protobuf.Type, key: string): protobuf.Field | undefined {
  let index = jsonNameIndex.get(type);
  if (!index) {
    index = new Map();
    for (const f of type.fieldsArray) index.set(f.name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()), f);
    jsonNameIndex.set(type, index);
  }
  return index.get(key);
}

function fieldFromJson(field: protobuf.Field, value: unknown, at: string): unknown {
  if (field instanceof protobuf.MapField) {
    if (!isObject(value)) throw new ProtoJsonError(at, 'map field must be an object');
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = singleFromJson(field, v, `${at}.${k}`);
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw new ProtoJsonError(at, 'repeated field must be an array');
    return value.map((v, i) => singleFromJson(field, v, `${at}[${i}]`));
  }
  return singleFromJson(field, value, at);
}

function singleFromJson(field: protobuf.Field, value: unknown, at: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageFromJson(resolved, value, at);
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === 'string') {
      if (!(value in resolved.values)) throw new ProtoJsonError(at, `unknown enum value ${JSON.stringify(value)} of ${resolved.name}`);
      return value;
    }
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    throw new ProtoJsonError(at, `enum ${resolved.name} must be a name or number`);
  }
  return scalarFromJson(field, value, at);
}

function scalarFromJson(field: protobuf.Field, value: unknown, at: string): unknown {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new ProtoJsonError(at, 'must be a string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtoJsonError(at, 'must be a boolean');
      return value;
    case 'bytes':
      if (typeof value !== 'string') throw new ProtoJsonError(at, 'bytes must be a base64 string');
      return Buffer.from(value, 'base64');
    case 'double':
    case 'float':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
      throw new ProtoJsonError(at, 'must be a number');
    default: {
      // integer types; 64-bit ones may come as strings
      const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n)) throw new ProtoJsonError(at, `must be an integer (${field.type})`);
      if (n < 0 && (field.type.startsWith('uint') || field.type.startsWith('fixed'))) {
        throw new ProtoJsonError(at, `must not be negative (${field.type})`);
      }
      return typeof value === 'string' ? value : n;
    }
  }
}

/** Encode a resource given in proto3 JSON form (with its `@type`) as a google.protobuf.Any. */
export function encodeAny(resource: { [key: string]: unknown }): { type_url: string; value: Uint8Array } {
  return anyFromJson(resource, '');
}

/** Encode a message of the given type from proto3 JSON. */
export function encodeMessage(typeName: string, json: unknown): Uint8Array {
  const type = envoyApi().lookupType(typeName);
  return type.encode(type.fromObject(messageFromJson(type, json, ''))).finish();
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
  if (specialJson(fullName(type))) return { '@type': typeUrl, value: json };
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
