// Proto3 JSON -> protobuf binary in one pass. Builders produce Envoy resources in the proto3 JSON form Envoy
// prints in /config_dump (snake_case or lowerCamel names, `@type` on Any, "5s" durations, plain values for wrapper
// types); this walks that JSON against a per-type plan compiled once from protobufjs's reflection and writes the
// wire bytes directly, with no intermediate plain object or message instance (that detour was most of a full
// build's encoding time and garbage). Strict: an unknown field or a value of the wrong shape throws a
// ProtoJsonError naming the field path. Output is byte-identical to protobufjs's encoder (fields in number order,
// explicitly given defaults written), so content hashes do not change with the implementation.
import protobuf from 'protobufjs';
import { envoyApi } from './envoy-api.js';
import { ProtoWriter } from './proto-writer.js';

export class ProtoJsonError extends Error {
  constructor(
    readonly fieldPath: string,
    message: string,
  ) {
    super(`${fieldPath || '<root>'}: ${message}`);
    this.name = 'ProtoJsonError';
  }
}

/** Thrown inside the walk; path segments are added while it unwinds, so the happy path builds no paths. */
class PathError extends Error {
  readonly segments: string[] = [];
  constructor(readonly reason: string) {
    super(reason);
  }
}

type Special = 'duration' | 'timestamp' | 'struct' | 'value' | 'listValue' | 'fieldMask' | 'any' | 'wrapper';

const specials: Record<string, Special> = {
  'google.protobuf.Duration': 'duration',
  'google.protobuf.Timestamp': 'timestamp',
  'google.protobuf.Struct': 'struct',
  'google.protobuf.Value': 'value',
  'google.protobuf.ListValue': 'listValue',
  'google.protobuf.FieldMask': 'fieldMask',
  'google.protobuf.Any': 'any',
  'google.protobuf.DoubleValue': 'wrapper',
  'google.protobuf.FloatValue': 'wrapper',
  'google.protobuf.Int64Value': 'wrapper',
  'google.protobuf.UInt64Value': 'wrapper',
  'google.protobuf.Int32Value': 'wrapper',
  'google.protobuf.UInt32Value': 'wrapper',
  'google.protobuf.BoolValue': 'wrapper',
  'google.protobuf.StringValue': 'wrapper',
  'google.protobuf.BytesValue': 'wrapper',
};

/** Types whose proto3 JSON is not an object of fields: inside an Any they travel in "value". */
export function hasSpecialJson(fullName: string): boolean {
  const s = specials[fullName];
  return s !== undefined && s !== 'any';
}

const wireTypes: Record<string, number> = {
  double: 1,
  float: 5,
  int32: 0,
  uint32: 0,
  sint32: 0,
  fixed32: 5,
  sfixed32: 5,
  int64: 0,
  uint64: 0,
  sint64: 0,
  fixed64: 1,
  sfixed64: 1,
  bool: 0,
  string: 2,
  bytes: 2,
};

interface FieldPlan {
  readonly name: string;
  readonly id: number;
  /** Tag of one element (wire type of the element), or of the packed run for packed fields. */
  readonly tag: number;
  readonly repeated: boolean;
  readonly packed: boolean;
  readonly map: boolean;
  /** Scalar type name ('int32', 'string', ...); enums are 'enum'; messages 'message'. */
  readonly scalar: string;
  readonly enumValues: Readonly<Record<string, number>> | undefined;
  readonly enumName: string;
  readonly keyScalar: string;
  /** Element tag inside a map entry for the value (field 2). */
  readonly mapValueTag: number;
  readonly type: protobuf.Type | undefined;
  /** The plan of `type`, looked up on first use (a WeakMap lookup per nested message was a hot spot). */
  typePlan: TypePlan | undefined;
}

interface TypePlan {
  readonly fullName: string;
  readonly special: Special | undefined;
  /** By proto name and by lowerCamel JSON name. */
  readonly fields: ReadonlyMap<string, FieldPlan>;
  /** The `value` field of a wrapper type. */
  readonly wrapped: FieldPlan | undefined;
}

const plans = new WeakMap<protobuf.Type, TypePlan>();

function fieldPlan(field: protobuf.Field): FieldPlan {
  field.resolve();
  const resolved = field.resolvedType;
  const isEnum = resolved instanceof protobuf.Enum;
  const isMessage = resolved instanceof protobuf.Type;
  const scalar = isEnum ? 'enum' : isMessage ? 'message' : field.type;
  const elementWire = isEnum ? 0 : isMessage ? 2 : wireTypes[field.type];
  if (elementWire === undefined) throw new Error(`proto-json-encoder: unsupported field type ${field.type} of ${field.fullName}`);
  const packed = field.repeated && !(field instanceof protobuf.MapField) && field.packed && elementWire !== 2;
  const map = field instanceof protobuf.MapField;
  return {
    name: field.name,
    id: field.id,
    tag: ((field.id << 3) | (packed || map ? 2 : elementWire)) >>> 0,
    repeated: field.repeated,
    packed,
    map,
    scalar,
    enumValues: isEnum ? (resolved as protobuf.Enum).values : undefined,
    enumName: isEnum ? (resolved as protobuf.Enum).name : '',
    keyScalar: map ? (field as protobuf.MapField).keyType : '',
    mapValueTag: ((2 << 3) | (elementWire ?? 2)) >>> 0,
    type: isMessage ? (resolved as protobuf.Type) : undefined,
    typePlan: undefined,
  };
}

function planOf(type: protobuf.Type): TypePlan {
  let plan = plans.get(type);
  if (plan) return plan;
  const fullName = type.fullName.replace(/^\./, '');
  const fields = new Map<string, FieldPlan>();
  for (const field of type.fieldsArray) {
    const fp = fieldPlan(field);
    fields.set(field.name, fp);
    const jsonName = field.name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
    if (!fields.has(jsonName)) fields.set(jsonName, fp);
  }
  const special = specials[fullName];
  plan = { fullName, special, fields, wrapped: special === 'wrapper' ? fields.get('value') : undefined };
  plans.set(type, plan);
  return plan;
}

const typesByUrl = new Map<string, protobuf.Type>();

/** Look up a message type by type URL in the loaded API. */
export function typeOfUrl(typeUrl: string): protobuf.Type {
  try {
    return lookupUrl(typeUrl);
  } catch (err) {
    if (err instanceof PathError) throw new ProtoJsonError('', err.reason);
    throw err;
  }
}

function lookupUrl(typeUrl: string): protobuf.Type {
  const known = typesByUrl.get(typeUrl);
  if (known) return known;
  const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
  let type: protobuf.Type;
  try {
    type = envoyApi().lookupType(name);
  } catch {
    throw new PathError(`unknown message type ${JSON.stringify(typeUrl)} (add its .proto to proto/envoy-api.ts)`);
  }
  typesByUrl.set(typeUrl, type);
  return type;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function within<T>(segment: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PathError) err.segments.push(segment);
    throw err;
  }
}

// ---------- well-known types ----------

const durationPattern = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;

function writeSecondsNanos(w: ProtoWriter, seconds: number, nanos: number): void {
  w.varint(0x08);
  w.signed(seconds);
  w.varint(0x10);
  w.signed(nanos);
}

function writeDuration(w: ProtoWriter, value: unknown): void {
  if (typeof value !== 'string') throw new PathError('duration must be a string like "1.5s"');
  const m = durationPattern.exec(value);
  if (!m) throw new PathError(`invalid duration ${JSON.stringify(value)}`);
  const sign = m[1] ? -1 : 1;
  const nanos = m[3] === undefined ? 0 : Number(m[3].padEnd(9, '0'));
  writeSecondsNanos(w, sign * Number(m[2]), sign * nanos);
}

function writeTimestamp(w: ProtoWriter, value: unknown): void {
  if (typeof value !== 'string') throw new PathError('timestamp must be an RFC 3339 string');
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new PathError(`invalid timestamp ${JSON.stringify(value)}`);
  const frac = /\.(\d{1,9})/.exec(value)?.[1] ?? '';
  writeSecondsNanos(w, Math.floor(ms / 1000), Number(frac.padEnd(9, '0')));
}

/** google.protobuf.Value body: null_value 1, number_value 2, string_value 3, bool_value 4, struct 5, list 6. */
function writeValue(w: ProtoWriter, value: unknown): void {
  if (value === null) {
    w.varint(0x08);
    w.varint(0);
  } else if (typeof value === 'number') {
    w.varint(0x11);
    w.double(value);
  } else if (typeof value === 'string') {
    w.varint(0x1a);
    w.string(value);
  } else if (typeof value === 'boolean') {
    w.varint(0x20);
    w.varint(value ? 1 : 0);
  } else if (Array.isArray(value)) {
    w.varint(0x32);
    const at = w.beginDelimited();
    writeListValue(w, value);
    w.endDelimited(at);
  } else if (isObject(value)) {
    w.varint(0x2a);
    const at = w.beginDelimited();
    writeStruct(w, value);
    w.endDelimited(at);
  } else {
    throw new PathError('value cannot be represented in google.protobuf.Value');
  }
}

function writeListValue(w: ProtoWriter, value: unknown): void {
  if (!Array.isArray(value)) throw new PathError('ListValue must be an array');
  for (let i = 0; i < value.length; i++) {
    w.varint(0x0a);
    const at = w.beginDelimited();
    const item: unknown = value[i];
    within(`[${i}]`, () => writeValue(w, item));
    w.endDelimited(at);
  }
}

function writeStruct(w: ProtoWriter, value: unknown): void {
  if (!isObject(value)) throw new PathError('google.protobuf.Struct must be an object');
  for (const key of Object.keys(value)) {
    w.varint(0x0a); // fields: map<string, Value>, entry = {1: key, 2: value}
    const entry = w.beginDelimited();
    w.varint(0x0a);
    w.string(key);
    w.varint(0x12);
    const at = w.beginDelimited();
    within(`.${key}`, () => writeValue(w, value[key]));
    w.endDelimited(at);
    w.endDelimited(entry);
  }
}

/** An Any from its JSON form `{"@type": url, ...fields}`: type_url 1, value 2 (the inner message's bytes). */
function writeAny(w: ProtoWriter, value: unknown): void {
  if (!isObject(value)) throw new PathError('google.protobuf.Any must be an object');
  const typeUrl = value['@type'];
  if (typeof typeUrl !== 'string') throw new PathError('google.protobuf.Any needs "@type"');
  const inner = lookupUrl(typeUrl);
  const plan = planOf(inner);
  w.varint(0x0a);
  w.string(typeUrl);
  w.varint(0x12);
  const at = w.beginDelimited();
  within(`<${plan.fullName}>`, () => {
    if (plan.special !== undefined && plan.special !== 'any') writeMessage(w, inner, value['value']);
    else writeFields(w, plan, value, true);
  });
  w.endDelimited(at);
}

// ---------- messages and fields ----------

function messagePlanOf(field: FieldPlan): TypePlan {
  return (field.typePlan ??= planOf(field.type!));
}

/** The body (no tag, no length) of a message of `type` given as proto3 JSON. */
function writeMessage(w: ProtoWriter, type: protobuf.Type, value: unknown): void {
  writePlanned(w, planOf(type), value);
}

function writePlanned(w: ProtoWriter, plan: TypePlan, value: unknown): void {
  switch (plan.special) {
    case undefined:
      break;
    case 'duration':
      return writeDuration(w, value);
    case 'timestamp':
      return writeTimestamp(w, value);
    case 'struct':
      return writeStruct(w, value);
    case 'value':
      return writeValue(w, value);
    case 'listValue':
      return writeListValue(w, value);
    case 'fieldMask':
      if (typeof value !== 'string') throw new PathError('FieldMask must be a string');
      if (value !== '') for (const path of value.split(',')) {
        w.varint(0x0a);
        w.string(path);
      }
      return;
    case 'any':
      return writeAny(w, value);
    case 'wrapper':
      w.varint(plan.wrapped!.tag);
      writeScalar(w, plan.wrapped!, value);
      return;
  }
  if (!isObject(value)) throw new PathError(`${plan.fullName} must be an object`);
  writeFields(w, plan, value, false);
}

// Per nesting depth: the fields present in the message being written, reused across messages (no allocation).
const fieldsAt: FieldPlan[][] = [];
const keysAt: string[][] = [];
let depth = 0;

/** Writes the given fields in field-number order (the order protobufjs and protoc use). */
function writeFields(w: ProtoWriter, plan: TypePlan, value: Record<string, unknown>, skipType: boolean): void {
  const fields = (fieldsAt[depth] ??= []);
  const keys = (keysAt[depth] ??= []);
  let n = 0;
  for (const key in value) {
    if (skipType && key === '@type') continue;
    const field = plan.fields.get(key);
    if (field === undefined) {
      const err = new PathError(`unknown field in ${plan.fullName}`);
      err.segments.push(key);
      throw err;
    }
    const v = value[key];
    if (v === null || v === undefined) {
      // proto3 JSON: null means default, except for google.protobuf.Value, where it is null_value.
      if (v === undefined || field.type === undefined || messagePlanOf(field).special !== 'value') continue;
    }
    // Insertion sort by field number: builders list fields in a readable order, the wire wants number order.
    let i = n;
    while (i > 0 && fields[i - 1]!.id > field.id) {
      fields[i] = fields[i - 1]!;
      keys[i] = keys[i - 1]!;
      i -= 1;
    }
    fields[i] = field;
    keys[i] = key;
    n += 1;
  }
  depth += 1;
  try {
    for (let i = 0; i < n; i++) {
      const key = keys[i]!;
      try {
        writeField(w, fields[i]!, value[key]);
      } catch (err) {
        if (err instanceof PathError) err.segments.push(key);
        throw err;
      }
    }
  } finally {
    depth -= 1;
  }
}

function writeField(w: ProtoWriter, field: FieldPlan, value: unknown): void {
  if (field.map) return writeMap(w, field, value);
  if (!field.repeated) {
    w.varint(field.tag);
    return writeSingle(w, field, value);
  }
  if (!Array.isArray(value)) throw new PathError('repeated field must be an array');
  if (value.length === 0) return;
  if (field.packed) {
    w.varint(field.tag);
    const at = w.beginDelimited();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      within(`[${i}]`, () => writeSingle(w, field, item));
    }
    w.endDelimited(at);
    return;
  }
  for (let i = 0; i < value.length; i++) {
    w.varint(field.tag);
    const item: unknown = value[i];
    try {
      writeSingle(w, field, item);
    } catch (err) {
      if (err instanceof PathError) err.segments.push(`[${i}]`);
      throw err;
    }
  }
}

function writeMap(w: ProtoWriter, field: FieldPlan, value: unknown): void {
  if (!isObject(value)) throw new PathError('map field must be an object');
  const keyTag = (8 | (wireTypes[field.keyScalar] ?? 0)) >>> 0;
  const keyPlan = { ...field, scalar: field.keyScalar };
  for (const key of Object.keys(value)) {
    w.varint(field.tag);
    const entry = w.beginDelimited();
    w.varint(keyTag);
    within(`.${key}`, () => {
      writeScalar(w, keyPlan, field.keyScalar === 'string' ? key : field.keyScalar === 'bool' ? key === 'true' : key);
      w.varint(field.mapValueTag);
      writeSingle(w, field, value[key]);
    });
    w.endDelimited(entry);
  }
}

/** One value of a field (after its tag). */
function writeSingle(w: ProtoWriter, field: FieldPlan, value: unknown): void {
  if (field.type !== undefined) {
    const at = w.beginDelimited();
    writePlanned(w, messagePlanOf(field), value);
    w.endDelimited(at);
    return;
  }
  if (field.enumValues !== undefined) {
    if (typeof value === 'string') {
      const n = field.enumValues[value];
      if (n === undefined || !Object.hasOwn(field.enumValues, value)) {
        throw new PathError(`unknown enum value ${JSON.stringify(value)} of ${field.enumName}`);
      }
      w.signed(n);
      return;
    }
    if (typeof value === 'number' && Number.isInteger(value)) {
      w.signed(value);
      return;
    }
    throw new PathError(`enum ${field.enumName} must be a name or number`);
  }
  writeScalar(w, field, value);
}

function integer(value: unknown, type: string): number | bigint {
  let n: unknown = value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    const big = BigInt(value);
    n = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  if (typeof n === 'bigint') {
    if (n < 0n && (type.startsWith('uint') || type.startsWith('fixed'))) throw new PathError(`must not be negative (${type})`);
    return n;
  }
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new PathError(`must be an integer (${type})`);
  if (n < 0 && (type.startsWith('uint') || type.startsWith('fixed'))) throw new PathError(`must not be negative (${type})`);
  return n;
}

function writeScalar(w: ProtoWriter, field: Pick<FieldPlan, 'scalar'>, value: unknown): void {
  switch (field.scalar) {
    case 'string':
      if (typeof value !== 'string') throw new PathError('must be a string');
      w.string(value);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw new PathError('must be a boolean');
      w.varint(value ? 1 : 0);
      return;
    case 'bytes':
      if (typeof value !== 'string') throw new PathError('bytes must be a base64 string');
      w.bytesField(Buffer.from(value, 'base64'));
      return;
    case 'double':
    case 'float': {
      let n: number;
      if (typeof value === 'number') n = value;
      else if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) n = Number(value);
      else throw new PathError('must be a number');
      if (field.scalar === 'double') w.double(n);
      else w.float(n);
      return;
    }
  }
  const n = integer(value, field.scalar);
  switch (field.scalar) {
    case 'int32':
      w.signed(typeof n === 'number' && n >= -0x80000000 && n <= 0x7fffffff ? n : Number(BigInt.asIntN(32, BigInt(n))));
      return;
    case 'uint32':
      w.varint(typeof n === 'number' && n >= 0 && n <= 0xffffffff ? n : Number(BigInt.asUintN(32, BigInt(n))));
      return;
    case 'sint32': {
      const v = Number(BigInt.asIntN(32, BigInt(n)));
      w.varint(((v << 1) ^ (v >> 31)) >>> 0);
      return;
    }
    case 'fixed32':
    case 'sfixed32':
      w.fixed32(Number(n));
      return;
    case 'int64':
    case 'uint64':
      if (typeof n === 'number' && n >= 0) w.varint(n);
      else w.varint64(BigInt(n));
      return;
    case 'sint64': {
      const v = BigInt.asIntN(64, BigInt(n));
      w.varint64((v << 1n) ^ (v >> 63n));
      return;
    }
    case 'fixed64':
    case 'sfixed64':
      w.fixed64(BigInt(n));
      return;
    default:
      throw new PathError(`unsupported scalar type ${field.scalar}`);
  }
}

// ---------- entry points ----------

const scratch = new ProtoWriter(1024 * 1024);

function run(fn: (w: ProtoWriter) => void): Buffer {
  scratch.reset();
  try {
    fn(scratch);
  } catch (err) {
    if (err instanceof PathError) throw new ProtoJsonError(pathOf(err.segments), err.reason);
    throw err;
  }
  return scratch.bytes();
}

function pathOf(reversed: readonly string[]): string {
  let path = '';
  for (let i = reversed.length - 1; i >= 0; i--) {
    const s = reversed[i]!;
    path += path === '' || s.startsWith('[') || s.startsWith('<') || s.startsWith('.') ? s : `.${s}`;
  }
  return path.startsWith('.') ? path.slice(1) : path;
}

/** Encode a resource given in proto3 JSON form (with its `@type`): the Any's type URL and the message bytes. */
export function encodeJsonAny(resource: Record<string, unknown>): { type_url: string; value: Buffer } {
  const typeUrl = resource['@type'];
  if (typeof typeUrl !== 'string') throw new ProtoJsonError('', 'google.protobuf.Any needs "@type"');
  const type = typeOfUrl(typeUrl);
  const plan = planOf(type);
  const value = run((w) => {
    if (plan.special !== undefined && plan.special !== 'any') writeMessage(w, type, resource['value']);
    else writeFields(w, plan, resource, true);
  });
  return { type_url: typeUrl, value };
}

/** Encode a message of the given type (full name, no leading dot) from proto3 JSON. */
export function encodeJsonMessage(typeName: string, json: unknown): Buffer {
  const type = envoyApi().lookupType(typeName);
  return run((w) => writeMessage(w, type, json));
}
