import test from 'ava';
import { decodeAnyToJson, encodeAny, ProtoJsonError } from './proto-json.js';
import { TypeUrl } from './type-urls.js';

const listener = {
  '@type': TypeUrl.listener,
  name: 'ingress_http',
  address: { socket_address: { address: '127.0.0.1', port_value: 8080 } },
  per_connection_buffer_limit_bytes: 32768,
  listener_filters_timeout: '1.5s',
  filter_chains: [
    {
      filters: [
        {
          name: 'envoy.filters.network.http_connection_manager',
          typed_config: {
            '@type':
              'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
            stat_prefix: 'ingress_http',
            codec_type: 'AUTO',
            rds: { route_config_name: 'http', config_source: { ads: {}, resource_api_version: 'V3' } },
            http_filters: [
              {
                name: 'envoy.filters.http.router',
                typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' },
              },
            ],
            common_http_protocol_options: { idle_timeout: '300s', headers_with_underscores_action: 'REJECT_REQUEST' },
            use_remote_address: true,
          },
        },
      ],
    },
  ],
  metadata: { filter_metadata: { 'envoy-ingress': { source: 'ingress/default/web', n: 3, list: [true, null] } } },
};

test('a listener survives JSON -> binary Any -> JSON unchanged', (t) => {
  const any = encodeAny(listener);
  t.is(any.type_url, TypeUrl.listener);
  t.true(any.value.length > 100);
  t.deepEqual(decodeAnyToJson(any.type_url, any.value), listener);
});

test('wrapper types, durations and enums map to their proto3 JSON forms', (t) => {
  const cluster = {
    '@type': TypeUrl.cluster,
    name: 'default/web/80',
    type: 'EDS',
    connect_timeout: '0.250s',
    per_connection_buffer_limit_bytes: 1024,
    lb_policy: 'LEAST_REQUEST',
  };
  const back = decodeAnyToJson(TypeUrl.cluster, encodeAny(cluster).value);
  t.deepEqual(back, { ...cluster, connect_timeout: '0.25s' });
});

test('an unknown field is an error that names its path', (t) => {
  const bad = { ...listener, filter_chains: [{ filterz: [] }] };
  const err = t.throws(() => encodeAny(bad), { instanceOf: ProtoJsonError });
  t.regex(err.message, /filter_chains\[0\]\.filterz: unknown field/);
});

test('an invalid duration or enum is an error', (t) => {
  t.throws(() => encodeAny({ '@type': TypeUrl.cluster, name: 'c', connect_timeout: '5 seconds' }), {
    message: /connect_timeout: invalid duration/,
  });
  t.throws(() => encodeAny({ '@type': TypeUrl.cluster, name: 'c', lb_policy: 'FASTEST' }), {
    message: /lb_policy: unknown enum value/,
  });
});

test('an unknown @type is an error', (t) => {
  t.throws(() => encodeAny({ '@type': 'type.googleapis.com/envoy.Nope', name: 'x' }), { message: /unknown message type/ });
});

test('lowerCamelCase JSON names are accepted too', (t) => {
  const back = decodeAnyToJson(
    TypeUrl.clusterLoadAssignment,
    encodeAny({ '@type': TypeUrl.clusterLoadAssignment, clusterName: 'a/b/80' }).value,
  );
  t.deepEqual(back, { '@type': TypeUrl.clusterLoadAssignment, cluster_name: 'a/b/80' });
});
