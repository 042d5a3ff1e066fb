// Loads the Envoy v3 API (and the xds/udpa/validate/googleapis protos it imports) from the npm package
// @grpc/grpc-js-xds, once per process. Nothing is copied into this repository.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);

/** Entry files; their imports are loaded too. Add a file here when a builder uses a new extension type. */
const entryFiles = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/config/bootstrap/v3/bootstrap.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/transport_sockets/tls/v3/secret.proto',
  'envoy/extensions/transport_sockets/tls/v3/tls.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/cors/v3/cors.proto',
  'envoy/extensions/filters/http/rbac/v3/rbac.proto',
  'envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto',
  'envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto',
  // auth-url: one match-delegate filter around the composite filter; routes name the ext_authz to run (ext-authz.ts).
  'envoy/extensions/common/matching/v3/extension_matcher.proto',
  'envoy/extensions/filters/http/composite/v3/composite.proto',
  'envoy/service/auth/v3/external_auth.proto',
  'envoy/extensions/filters/http/basic_auth/v3/basic_auth.proto',
  'envoy/extensions/filters/http/buffer/v3/buffer.proto',
  'envoy/extensions/filters/http/compressor/v3/compressor.proto',
  'envoy/extensions/compression/gzip/compressor/v3/gzip.proto',
  'envoy/extensions/filters/http/lua/v3/lua.proto',
  'envoy/extensions/filters/http/header_mutation/v3/header_mutation.proto',
  'envoy/extensions/filters/http/upstream_codec/v3/upstream_codec.proto',
  'envoy/extensions/filters/http/stateful_session/v3/stateful_session.proto',
  'envoy/extensions/http/stateful_session/header/v3/header.proto',
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/extensions/filters/http/health_check/v3/health_check.proto',
  'envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto',
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/extensions/access_loggers/stream/v3/stream.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  'envoy/extensions/access_loggers/filters/cel/v3/cel.proto',
  'envoy/extensions/load_balancing_policies/round_robin/v3/round_robin.proto',
  'envoy/extensions/load_balancing_policies/least_request/v3/least_request.proto',
  'envoy/extensions/load_balancing_policies/ring_hash/v3/ring_hash.proto',
  'envoy/extensions/resource_monitors/fixed_heap/v3/fixed_heap.proto',
  'envoy/extensions/path/match/uri_template/v3/uri_template_match.proto',
  'envoy/extensions/http/original_ip_detection/xff/v3/xff.proto',
  'envoy/extensions/filters/http/custom_response/v3/custom_response.proto',
  'envoy/extensions/filters/http/header_mutation/v3/header_mutation.proto',
  'envoy/extensions/http/custom_response/redirect_policy/v3/redirect_policy.proto',
  'envoy/type/matcher/v3/status_code_input.proto',
  'envoy/type/matcher/v3/http_inputs.proto',
  'envoy/extensions/clusters/aggregate/v3/cluster.proto',
  'google/rpc/status.proto',
];

function depsDir(): string {
  const pkg = require.resolve('@grpc/grpc-js-xds/package.json');
  return path.join(path.dirname(pkg), 'deps');
}

/**
 * Fields of the Envoy we run (1.40) that the protos bundled with @grpc/grpc-js-xds predate, added to the loaded
 * types so builders can set them. Numbers and types are those of Envoy's own descriptors (in its binary).
 */
const newerFields: readonly { message: string; name: string; id: number; type: string }[] = [
  // Envoy >= 1.35: how many per-value (wildcard descriptor) token buckets are kept; default 20.
  { message: 'envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit', name: 'max_dynamic_descriptors', id: 18, type: '.google.protobuf.UInt32Value' },
  // Envoy 1.40 (newer than the bundled protos): a Struct the route gives the Lua script (handle:filterContext()).
  { message: 'envoy.extensions.filters.http.lua.v3.LuaPerRoute', name: 'filter_context', id: 4, type: '.google.protobuf.Struct' },
];

let cached: protobuf.Root | undefined;

/** The loaded, resolved Envoy API. Field names are kept as in the .proto files (snake_case). */
export function envoyApi(): protobuf.Root {
  if (cached) return cached;
  const deps = depsDir();
  const includeDirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => path.join(deps, d));
  // descriptor.proto is imported by the validate/udpa annotations but is not among protobufjs's built-ins.
  const descriptor = require('protobufjs/google/protobuf/descriptor.json') as {
    nested: { google: { nested: { protobuf: { nested: protobuf.INamespace['nested'] } } } };
  };
  protobuf.common('descriptor', descriptor.nested.google.nested.protobuf.nested as Record<string, protobuf.AnyNestedObject>);
  const root = new protobuf.Root();
  root.resolvePath = (_origin: string, target: string): string => {
    if (target.startsWith('google/protobuf/')) return target; // protobufjs built-ins
    for (const dir of includeDirs) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    return target;
  };
  root.loadSync(entryFiles, { keepCase: true });
  for (const field of newerFields) {
    const type = root.lookupType(field.message);
    // A newer @grpc/grpc-js-xds may bundle the field already: then its own definition is used.
    if (type.fields[field.name] === undefined && type.fieldsById[field.id] === undefined) {
      type.add(new protobuf.Field(field.name, field.id, field.type));
    }
  }
  root.resolveAll();
  cached = root;
  return root;
}

/** A message type by full name (without leading dot), e.g. `envoy.config.cluster.v3.Cluster`. */
export function messageType(fullName: string): protobuf.Type {
  return envoyApi().lookupType(fullName);
}
