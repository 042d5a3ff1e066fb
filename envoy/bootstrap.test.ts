import { mkdir, writeFile } from 'node:fs/promises';
import test from 'ava';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { createTestCA } from '../test/harness/test-certs.js';
import { buildBootstrap, buildXdsTlsSdsFiles, xdsTlsSds } from './bootstrap.js';
import { inlineIntoStaticBootstrap } from './static-bootstrap.js';
import type { ResourceJson } from './resource-types.js';

const base = {
  nodeId: 'envoy-ingress-test',
  nodeCluster: 'envoy-ingress',
  xdsHost: '127.0.0.1',
  xdsPort: 18000,
  adminAddress: '127.0.0.1',
  adminPort: 0,
} as const;

function adsConfig(bootstrap: ResourceJson): ResourceJson {
  return (bootstrap['dynamic_resources'] as ResourceJson)['ads_config'] as ResourceJson;
}

function xdsCluster(bootstrap: ResourceJson): ResourceJson {
  return ((bootstrap['static_resources'] as ResourceJson)['clusters'] as ResourceJson[])[0] as ResourceJson;
}

for (const xdsProtocol of ['sotw', 'delta'] as const) {
  test(`envoy accepts the ${xdsProtocol} bootstrap`, async (t) => {
    const result = await validateWithEnvoy(buildBootstrap({ ...base, xdsProtocol }));
    t.true(result.ok, result.output);
  });
}

test('the ADS api type follows the protocol', (t) => {
  t.is(adsConfig(buildBootstrap({ ...base, xdsProtocol: 'sotw' }))['api_type'], 'GRPC');
  t.is(adsConfig(buildBootstrap({ ...base, xdsProtocol: 'delta' }))['api_type'], 'DELTA_GRPC');
});

test('node, admin and xDS address come from the options', (t) => {
  const bootstrap = buildBootstrap({ ...base, xdsProtocol: 'sotw', adminPort: 9901, xdsPort: 18001 });
  t.deepEqual(bootstrap['node'], { id: 'envoy-ingress-test', cluster: 'envoy-ingress' });
  t.deepEqual(bootstrap['admin'], { address: { socket_address: { address: '127.0.0.1', port_value: 9901 } } });
  t.regex(JSON.stringify(xdsCluster(bootstrap)['load_assignment']), /"address":"127.0.0.1","port_value":18001/);
});

test('an xDS host given by name is resolved by DNS and still accepted by envoy', async (t) => {
  const bootstrap = buildBootstrap({ ...base, xdsHost: 'localhost', xdsProtocol: 'delta' });
  t.is(xdsCluster(bootstrap)['type'], 'STRICT_DNS');
  t.is(xdsCluster(buildBootstrap({ ...base, xdsProtocol: 'delta' }))['type'], 'STATIC');
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
});

test('with a readiness port, Envoy accepts the bootstrap and answers /ready on that port', async (t) => {
  const bootstrap = buildBootstrap({ ...base, xdsProtocol: 'delta', readinessPort: 19001 });
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
  const listeners = (bootstrap['static_resources'] as ResourceJson)['listeners'] as ResourceJson[];
  t.is(listeners.length, 1);
  t.regex(JSON.stringify(listeners[0]), /"exact":"\/ready"/);
});

// Routes served over xDS must be held to the same limits as `validate` checks them with (see layered-runtime.ts).
test('the served bootstrap has the runtime the validated static bootstrap has', (t) => {
  const served = buildBootstrap({ ...base, xdsProtocol: 'delta' });
  const empty = { listeners: [], routeConfigurations: [], clusters: [], clusterLoadAssignments: [], secrets: [], extensionConfigs: [] };
  t.deepEqual(served['layered_runtime'], inlineIntoStaticBootstrap(empty)['layered_runtime']);
  t.truthy(served['layered_runtime']);
});

test('with xDS mutual TLS, the certificates come from SDS files that watch the Secret volume; Envoy accepts them', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const ca = await createTestCA();
  const client = await ca.issue({ dnsNames: ['envoy.test'], clientAuth: true });
  await mkdir(tmp.file('xds-tls'));
  await writeFile(tmp.file('xds-tls/tls.crt'), client.certPem);
  await writeFile(tmp.file('xds-tls/tls.key'), client.keyPem);
  await writeFile(tmp.file('xds-tls/ca.crt'), ca.certPem);
  const tls = { certFile: tmp.file('xds-tls/tls.crt'), keyFile: tmp.file('xds-tls/tls.key'), caFile: tmp.file('xds-tls/ca.crt'), sdsDir: tmp.path, serverName: 'xds.test' };
  const files = buildXdsTlsSdsFiles(tls);
  t.deepEqual(Object.keys(files).sort(), [xdsTlsSds.certificate.file, xdsTlsSds.trustedCa.file].sort());
  // The kubelet updates a Secret volume by moving a new `..data` symlink into the directory: that is what is watched.
  t.regex(JSON.stringify(files), new RegExp(`"watched_directory":\\{"path":"${tmp.path}/xds-tls"\\}`));
  for (const [name, doc] of Object.entries(files)) await writeFile(tmp.file(name), JSON.stringify(doc));
  const bootstrap = buildBootstrap({ ...base, xdsProtocol: 'delta', xdsTls: tls });
  const context = JSON.stringify(xdsCluster(bootstrap)['transport_socket']);
  t.notRegex(context, /"filename"/, 'no certificate file is read once at start');
  t.regex(context, new RegExp(`"path_config_source":\\{"path":"${tmp.path}/${xdsTlsSds.certificate.file}"`));
  t.regex(context, /"match_typed_subject_alt_names":\[\{"san_type":"DNS","matcher":\{"exact":"xds.test"\}\}\]/);
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
});

function overloadManager(bootstrap: ResourceJson): ResourceJson | undefined {
  return bootstrap['overload_manager'] as ResourceJson | undefined;
}

const monitorNames = (bootstrap: ResourceJson): string[] =>
  ((overloadManager(bootstrap)?.['resource_monitors'] ?? []) as ResourceJson[]).map((m) => m['name'] as string);

const triggerNames = (bootstrap: ResourceJson): string[] =>
  ((overloadManager(bootstrap)?.['actions'] ?? []) as ResourceJson[]).flatMap((a) => (a['triggers'] as ResourceJson[]).map((t) => t['name'] as string));

test("by default Envoy's memory limit is its cgroup's (the container's): no fixed heap size anywhere; Envoy accepts it", async (t) => {
  const bootstrap = buildBootstrap({ ...base, xdsProtocol: 'delta' });
  t.deepEqual(monitorNames(bootstrap), ['envoy.resource_monitors.cgroup_memory', 'envoy.resource_monitors.global_downstream_max_connections']);
  t.deepEqual(new Set(triggerNames(bootstrap)), new Set(['envoy.resource_monitors.cgroup_memory']));
  t.notRegex(JSON.stringify(bootstrap), /max_heap_size_bytes|max_memory_bytes/, 'the limit is read from the cgroup, not written here');
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
});

test('a fixed heap limit, or no memory limit at all, as asked', async (t) => {
  const heap = buildBootstrap({ ...base, xdsProtocol: 'delta', overload: { memory: { source: 'heap', maxBytes: 1 << 30 }, maxDownstreamConnections: 10 } });
  t.deepEqual(monitorNames(heap), ['envoy.resource_monitors.fixed_heap', 'envoy.resource_monitors.global_downstream_max_connections']);
  t.deepEqual(new Set(triggerNames(heap)), new Set(['envoy.resource_monitors.fixed_heap']));
  t.true((await validateWithEnvoy(heap)).ok);
  const none = buildBootstrap({ ...base, xdsProtocol: 'delta', overload: { memory: { source: 'none' }, maxDownstreamConnections: 10 } });
  t.deepEqual(monitorNames(none), ['envoy.resource_monitors.global_downstream_max_connections']);
  t.deepEqual(triggerNames(none), []);
  t.is(overloadManager(none)?.['buffer_factory_config'], undefined, 'no stream accounting without a memory action');
  t.is(overloadManager(buildBootstrap({ ...base, xdsProtocol: 'delta', overload: { memory: { source: 'none' }, maxDownstreamConnections: 0 } })), undefined);
});
