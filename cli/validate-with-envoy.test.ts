import test from 'ava';
import { buildResources } from '../envoy/build-resources.js';
import type { ResourceJson } from '../envoy/resource-types.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import { findEnvoyBinary, validateWithEnvoy } from './validate-with-envoy.js';
import { ingressPairIR } from '../envoy/test-helpers/ingress-pair-ir.js';

function withRoute(route: ResourceJson): ResourceJson {
  const resources = buildResources(
    ingressPairIR({
      http: { name: 'http', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [] }] },
      tlsServers: [],
      clusters: [],
      secrets: [],
    }),
    [],
    { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 },
  );
  const routeConfig = resources.routeConfigurations[0]?.resource as { virtual_hosts: { routes: ResourceJson[] }[] };
  routeConfig.virtual_hosts[0]?.routes.push(route);
  return inlineIntoStaticBootstrap(resources);
}

test('a valid bootstrap is ok', async (t) => {
  const result = await validateWithEnvoy(withRoute({ match: { prefix: '/' }, direct_response: { status: 404 } }));
  t.true(result.ok, result.output);
});

test('a regex RE2 rejects fails with Envoy message', async (t) => {
  const bootstrap = withRoute({
    match: { prefix: '/', headers: [{ name: ':authority', string_match: { safe_regex: { regex: '^(?=a)' } } }] },
    direct_response: { status: 404 },
  });
  const result = await validateWithEnvoy(bootstrap);
  t.false(result.ok);
  t.regex(result.output, /invalid perl operator: \(\?=/);
});

test('an unknown field fails with Envoy message naming it', async (t) => {
  const result = await validateWithEnvoy(withRoute({ match: { prefix: '/' }, direct_response: { status: 404 }, no_such_field: 1 }));
  t.false(result.ok);
  t.regex(result.output, /no_such_field/);
});

test('an explicit Envoy binary is used', async (t) => {
  const bootstrap = withRoute({ match: { prefix: '/' }, direct_response: { status: 404 } });
  t.true((await validateWithEnvoy(bootstrap, { envoyBin: await findEnvoyBinary() })).ok);
  const missing = await validateWithEnvoy(bootstrap, { envoyBin: '/nonexistent/envoy' });
  t.false(missing.ok);
  t.regex(missing.output, /ENOENT/);
});
