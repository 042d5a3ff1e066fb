import test from 'ava';
import fc from 'fast-check';
import { envoyApi } from './envoy-api.js';
import { decodeAnyToJson } from './proto-json.js';
import { encodeJsonAny, encodeJsonMessage } from './proto-json-encoder.js';
import { TypeUrl } from './type-urls.js';

/** protobufjs's own encoder, from the plain-object form it understands: an independent oracle for the bytes. */
function protobufjsBytes(typeName: string, plain: Record<string, unknown>): Buffer {
  const type = envoyApi().lookupType(typeName);
  return Buffer.from(type.encode(type.fromObject(plain)).finish());
}

test('scalars, enums, negative numbers, packed repeated fields and wrappers encode as protobufjs does', (t) => {
  const json = {
    name: 'c',
    type: 'EDS',
    lb_policy: 3,
    per_connection_buffer_limit_bytes: 70000,
    connect_timeout: '-1.5s',
    ignore_health_on_host_removal: false,
    dns_lookup_family: 'V4_ONLY',
  };
  const plain = {
    name: 'c',
    type: 'EDS',
    lb_policy: 3,
    per_connection_buffer_limit_bytes: { value: 70000 },
    connect_timeout: { seconds: -1, nanos: -500000000 },
    ignore_health_on_host_removal: false,
    dns_lookup_family: 'V4_ONLY',
  };
  t.deepEqual(encodeJsonMessage('envoy.config.cluster.v3.Cluster', json), protobufjsBytes('envoy.config.cluster.v3.Cluster', plain));

  // A packed repeated uint32 with a multi-byte value, and a wrapper holding its default.
  const policy = { retriable_status_codes: [503, 1, 70000], num_retries: 0 };
  t.deepEqual(
    encodeJsonMessage('envoy.config.route.v3.RetryPolicy', policy),
    protobufjsBytes('envoy.config.route.v3.RetryPolicy', { retriable_status_codes: [503, 1, 70000], num_retries: { value: 0 } }),
  );
});

test('maps, Struct values, Any and long nested bodies (length prefixes of several bytes) encode as protobufjs does', (t) => {
  const long = 'x'.repeat(20000);
  const unicode = 'héllo ✓ 😀';
  const json = {
    '@type': TypeUrl.listener,
    name: unicode,
    metadata: { filter_metadata: { a: { s: long, n: -2.5, b: true, z: null, l: [1, 'two', { x: [] }] } } },
    filter_chains: [
      {
        filters: [{ name: 'f', typed_config: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '3.000000001s' } }],
      },
    ],
  };
  const value = (v: unknown): Record<string, unknown> => {
    if (v === null) return { nullValue: 'NULL_VALUE' };
    if (typeof v === 'number') return { numberValue: v };
    if (typeof v === 'string') return { stringValue: v };
    if (typeof v === 'boolean') return { boolValue: v };
    if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
    return { structValue: { fields: Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, value(x)])) } };
  };
  const durationBytes = protobufjsBytes('google.protobuf.Duration', { seconds: 3, nanos: 1 });
  const plain = {
    name: unicode,
    metadata: { filter_metadata: { a: value(json.metadata.filter_metadata.a)['structValue'] } },
    filter_chains: [{ filters: [{ name: 'f', typed_config: { type_url: 'type.googleapis.com/google.protobuf.Duration', value: durationBytes } }] }],
  };
  const ours = encodeJsonAny(json);
  t.is(ours.type_url, TypeUrl.listener);
  t.deepEqual(ours.value, protobufjsBytes('envoy.config.listener.v3.Listener', plain));
  t.is((decodeAnyToJson(ours.type_url, ours.value)['metadata'] as { filter_metadata: { a: { s: string } } }).filter_metadata.a.s, long);
});

test('any virtual host the builders can produce round-trips and matches protobufjs (property)', (t) => {
  const route = fc.record({
    match: fc.oneof(fc.record({ prefix: fc.string() }), fc.record({ path: fc.string() })),
    route: fc.record({ cluster: fc.string({ minLength: 1 }), timeout: fc.nat(100000).map((n) => `${n / 1000}s`) }),
  });
  const vhost = fc.record({ name: fc.string(), domains: fc.array(fc.string()), routes: fc.array(route, { maxLength: 5 }) });
  fc.assert(
    fc.property(vhost, (v) => {
      const ours = encodeJsonMessage('envoy.config.route.v3.VirtualHost', v);
      const type = envoyApi().lookupType('envoy.config.route.v3.VirtualHost');
      // Re-encoding what protobufjs decoded from our bytes gives protobufjs's bytes for the same message.
      t.deepEqual(ours, Buffer.from(type.encode(type.decode(ours)).finish()));
    }),
    { numRuns: 200 },
  );
});
