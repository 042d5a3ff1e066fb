import test from 'ava';
import type { DataPlaneIR } from '../ir/index.js';
import { encodeMessage } from '../proto/proto-json.js';
import { TypeUrl } from '../proto/type-urls.js';
import { buildResources } from './build-resources.js';
import { buildRouteConfiguredHttpFilters, routeConfiguredFilterConfigs } from './http-filters.js';
import type { ResourceJson } from './resource-types.js';
import { loadGoldenCases } from './test-helpers/golden-cases.js';

const httpFilterType = 'envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter';

/** The http_filters of every connection manager of these listeners. */
function connectionManagerFilters(listeners: readonly { resource: ResourceJson }[]): ResourceJson[][] {
  const found: ResourceJson[][] = [];
  for (const { resource } of listeners) {
    for (const chain of (resource['filter_chains'] as ResourceJson[] | undefined) ?? []) {
      for (const filter of (chain['filters'] as ResourceJson[] | undefined) ?? []) {
        const config = filter['typed_config'] as ResourceJson;
        if (Array.isArray(config['http_filters'])) found.push(config['http_filters'] as ResourceJson[]);
      }
    }
  }
  return found;
}

test('every connection manager names the Lua scripts over ECDS, disabled, in its filter order; the ECDS resources are exactly the names given, of the types asked for', (t) => {
  const c = loadGoldenCases().find((g) => g.name === 'tls-servers');
  if (c === undefined) return t.fail('tls-servers case missing');
  const resources = buildResources(c.ir, c.endpoints, c.options);
  const managers = connectionManagerFilters(resources.listeners);
  t.true(managers.length >= 3, 'the plain-HTTP listener and each TLS filter chain');
  const configs = new Map(resources.extensionConfigs.map((r) => [r.name, r.resource]));
  const named = new Set<string>();
  for (const filters of managers) {
    t.deepEqual(filters.map((f) => f['name']), buildRouteConfiguredHttpFilters([]).map((f) => f['name']).concat('envoy.filters.http.router'));
    for (const filter of filters) {
      const discovery = filter['config_discovery'] as { config_source: ResourceJson; type_urls: string[] } | undefined;
      if (discovery === undefined) continue;
      const name = String(filter['name']);
      named.add(name);
      t.is(filter['typed_config'], undefined);
      t.true(filter['disabled'], `${name} runs only where a route turns it on`);
      t.deepEqual(discovery.config_source, { ads: {}, resource_api_version: 'V3' });
      const config = configs.get(name);
      t.truthy(config, `${name} is served`);
      t.is(config?.['@type'], TypeUrl.extensionConfig);
      t.is(config?.['name'], name);
      t.deepEqual(discovery.type_urls, [(config?.['typed_config'] as ResourceJson)['@type']]);
    }
  }
  t.deepEqual([...configs.keys()].sort(), [...named].sort(), 'nothing served that no listener asks for');
  t.deepEqual(
    [...named].sort(),
    ['client-certificate-check', 'envoy-ingress.auth_passed', 'envoy-ingress.auth_signin', 'envoy.filters.http.lua', 'proxy-cookie-rewrite'],
  );
  return undefined;
});

// The measurement behind the choice: a config_discovery reference costs its name and the type URL, as an inline
// configuration costs its name, the type URL and the configuration. Only configurations far larger than that gain.
test('what is served over ECDS is large; what stays inline weighs about what a reference would', (t) => {
  const filters = buildRouteConfiguredHttpFilters([]);
  const bytes = (filter: ResourceJson): number => encodeMessage(httpFilterType, filter).byteLength;
  for (const filter of filters) {
    const name = String(filter['name']);
    if (filter['config_discovery'] !== undefined) {
      const config = routeConfiguredFilterConfigs.find((r) => r.name === name)?.resource['typed_config'] as ResourceJson;
      const inline = bytes({ name, typed_config: config, disabled: true });
      t.true(inline > 3 * bytes(filter), `${name}: ${inline} bytes inline, ${bytes(filter)} as a reference`);
    } else {
      t.true(bytes(filter) < 256, `${name} is ${bytes(filter)} bytes inline: serve it over ECDS`);
    }
  }
});

test('no connection manager, no ECDS resource: nothing would ask for one, and the status waits for every served resource to be ACKed', (t) => {
  const ir: DataPlaneIR = {
    listeners: [
      {
        name: 'gateway/tcp/9000',
        port: 9000,
        protocol: 'TCP',
        tcpChains: [{ name: 'tcp', serverNames: [], backends: [{ cluster: 'primary', weight: 1 }] }],
      },
    ],
    clusters: [{ name: 'primary', service: { namespace: 'default', name: 'primary', port: 80 } }],
    secrets: [],
  };
  const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 80, httpsPort: 443 });
  t.is(resources.listeners.length, 1);
  t.deepEqual(resources.extensionConfigs, []);
});

test('the ECDS list is the same object every build, so the snapshot cache skips it', (t) => {
  const c = loadGoldenCases().find((g) => g.name === 'http-only');
  if (c === undefined) return t.fail('http-only case missing');
  t.is(buildResources(c.ir, c.endpoints, c.options).extensionConfigs, buildResources(c.ir, c.endpoints, c.options).extensionConfigs);
  return undefined;
});
