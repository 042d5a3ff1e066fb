// Every golden case, inlined into a static bootstrap, must be accepted by the real Envoy in validate mode.
import { type DataPlaneIR, PrivateKey, type RouteIR } from '../ir/index.js';
import test from 'ava';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { buildResources } from './build-resources.js';
import { buildCluster } from './cluster.js';
import type { NamedResource, ResourceJson } from './resource-types.js';
import { inlineIntoStaticBootstrap } from './static-bootstrap.js';
import { loadGoldenCases } from './test-helpers/golden-cases.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

for (const c of loadGoldenCases()) {
  test(`envoy accepts the resources of ${c.name}`, async (t) => {
    const bootstrap = inlineIntoStaticBootstrap(buildResources(c.ir, c.endpoints, c.options));
    const result = await validateWithEnvoy(bootstrap);
    t.true(result.ok, result.output);
  });
}

test('envoy really loads the inlined certificates: a broken private key is rejected', async (t) => {
  const c = loadGoldenCases().find((g) => g.name === 'tls-servers');
  if (c === undefined) return t.fail('tls-servers case missing');
  const broken = { ...c.ir, secrets: c.ir.secrets.map((s) => ({ ...s, privateKey: new PrivateKey('not a key') })) };
  const result = await validateWithEnvoy(inlineIntoStaticBootstrap(buildResources(broken, c.endpoints, c.options)));
  t.false(result.ok);
  t.regex(result.output, /private key/i);
  return undefined;
});

/** A resource without its Any `@type`, as static resources hold it. */
/** `envoy --mode validate` on a config with one plain-HTTP virtual host `host` holding `route`. */
function validatePlainHttpHost(host: string, route: RouteIR): ReturnType<typeof validateWithEnvoy> {
  const ir: DataPlaneIR = ingressPairIR({
    http: { name: 'http', virtualHosts: [{ name: host, hostnames: [host], routes: [route] }] },
    tlsServers: [],
    clusters: [],
    secrets: [],
  });
  const options = { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 };
  return validateWithEnvoy(inlineIntoStaticBootstrap(buildResources(ir, [], options)));
}

function message(named: NamedResource | undefined): ResourceJson | undefined {
  if (named === undefined) return undefined;
  const { '@type': _type, ...rest } = named.resource;
  return rest;
}

function staticResources(bootstrap: ResourceJson): { listeners: ResourceJson[]; clusters: ResourceJson[]; secrets: ResourceJson[] } {
  return bootstrap['static_resources'] as { listeners: ResourceJson[]; clusters: ResourceJson[]; secrets: ResourceJson[] };
}

test('inlining replaces RDS, EDS and SDS references by the resources they name', (t) => {
  const c = loadGoldenCases().find((g) => g.name === 'tls-servers');
  if (c === undefined) return t.fail('tls-servers case missing');
  const resources = buildResources(c.ir, c.endpoints, c.options);
  const inlined = staticResources(inlineIntoStaticBootstrap(resources));
  const text = JSON.stringify(inlined);
  t.false(text.includes('"rds"'));
  t.false(text.includes('"ads"'));
  t.false(text.includes('eds_cluster_config'));
  const https = inlined.listeners.find((l) => l['name'] === 'ingress_https') as ResourceJson;
  const chain = (https['filter_chains'] as ResourceJson[])[0] as ResourceJson;
  const hcm = ((chain['filters'] as ResourceJson[])[0] as ResourceJson)['typed_config'] as ResourceJson;
  t.deepEqual(hcm['route_config'], message(resources.routeConfigurations.find((r) => r.name === 'ingress')));
  const tls = (chain['transport_socket'] as ResourceJson)['typed_config'] as ResourceJson;
  t.deepEqual((tls['common_tls_context'] as ResourceJson)['tls_certificate_sds_secret_configs'], [{ name: 'default/bar-tls' }]);
  const cluster = inlined.clusters.find((cl) => cl['name'] === 'default/foo/80') as ResourceJson;
  t.is(cluster['type'], 'STATIC');
  t.deepEqual(cluster['load_assignment'], message(resources.clusterLoadAssignments.find((a) => a.name === 'default/foo/80')));
  t.deepEqual(inlined.secrets, resources.secrets.map(message));
  // The builders' own output is untouched.
  t.truthy(resources.clusters[0]?.resource['eds_cluster_config']);
  return undefined;
});

test('a cluster without assignment is inlined with no endpoints', (t) => {
  const bootstrap = inlineIntoStaticBootstrap({
    listeners: [],
    routeConfigurations: [],
    clusters: [{ name: 'a/b/80', resource: buildCluster({ name: 'a/b/80', service: { namespace: 'a', name: 'b', port: 80 } }) }],
    clusterLoadAssignments: [],
    secrets: [],
    extensionConfigs: [],
  });
  t.deepEqual(staticResources(bootstrap).clusters, [
    { name: 'a/b/80', type: 'STATIC', connect_timeout: '5s', lb_policy: 'ROUND_ROBIN', load_assignment: { cluster_name: 'a/b/80' } },
  ]);
});

test('inlining a listener whose route configuration is missing throws', (t) => {
  const c = loadGoldenCases().find((g) => g.name === 'empty');
  if (c === undefined) return t.fail('empty case missing');
  const resources = buildResources(c.ir, c.endpoints, c.options);
  t.throws(() => inlineIntoStaticBootstrap({ ...resources, routeConfigurations: [] }), {
    message: /RouteConfiguration "ingress" is referenced but missing/,
  });
  return undefined;
});

// A wildcard virtual host checks :authority with a regex as long as the host name; RE2's default program size
// limit in Envoy (100) would reject the whole RouteConfiguration for a valid wildcard host of about 90 characters.
test('envoy accepts the authority check of a wildcard host of the longest valid length', async (t) => {
  const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
  t.is(domain.length, 253); // the longest DNS name, as the translator accepts it
  const host = `*.${domain}`;
  const route = { name: 'ok', match: { kind: 'prefix' as const, path: '/' }, action: { kind: 'direct' as const, status: 200 } };
  const result = await validatePlainHttpHost(host, route);
  t.true(result.ok, result.output);
});

// Envoy refuses a RouteConfiguration holding a direct response body over 4096 bytes unless it raises
// max_direct_response_body_size_bytes; a custom 404 page (--not-found-page) easily is that large.
test('envoy accepts direct response bodies over 4 KiB (counted in UTF-8 bytes)', async (t) => {
  const page = `<html><body>${'é'.repeat(3000)}</body></html>`; // 3025 characters, 6025 bytes
  const route = {
    name: 'fallback',
    match: { kind: 'prefix' as const, path: '/' },
    action: { kind: 'direct' as const, status: 404, body: page, contentType: 'text/html' },
  };
  const result = await validatePlainHttpHost('*', route);
  t.true(result.ok, result.output);
});
