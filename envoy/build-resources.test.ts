import { readFileSync, writeFileSync } from 'node:fs';
import type { DataPlaneIR, ListenerIR, RouteTableIR } from '../ir/index.js';
import test from 'ava';
import { decodeAnyToJson, encodeAny } from '../proto/proto-json.js';
import { buildResources } from './build-resources.js';
import { goldenYaml, loadGoldenCases } from './test-helpers/golden-cases.js';
import { ingressPairIR } from './test-helpers/ingress-pair-ir.js';

// testdata/envoy/<case>.in.yaml -> <case>.out.yaml; UPDATE_GOLDEN=1 rewrites the outputs (review the diff).
const update = process.env['UPDATE_GOLDEN'] === '1';

for (const c of loadGoldenCases()) {
  test(`golden: ${c.name}`, (t) => {
    const actual = goldenYaml(buildResources(c.ir, c.endpoints, c.options));
    if (update) writeFileSync(c.outPath, actual);
    let expected: string;
    try {
      expected = readFileSync(c.outPath, 'utf8');
    } catch {
      t.fail(`${c.outPath} is missing; run with UPDATE_GOLDEN=1 to create it`);
      return;
    }
    t.is(actual, expected);
  });
}

test('both listeners, every TLS filter chain included, use one RouteConfiguration', (t) => {
  const table = { name: 'https/shared', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [] }] };
  const server = (host: string) => ({ name: `https/${host}`, serverNames: [host], secret: 'default/tls', routeTable: table });
  const resources = buildResources(
    ingressPairIR({
      http: { name: 'http', virtualHosts: [] },
      tlsServers: [server('b.example.com'), server('a.example.com')],
      clusters: [],
      secrets: [],
    }),
    [],
    { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 },
  );
  t.deepEqual(
    resources.routeConfigurations.map((r) => r.name),
    ['ingress'],
  );
  t.deepEqual(
    resources.listeners.map((l) => l.name),
    ['ingress_http', 'ingress_https'],
  );
  const rdsNames = [...JSON.stringify(resources.listeners).matchAll(/"route_config_name":"([^"]+)"/g)].map((m) => m[1]);
  t.deepEqual(rdsNames, ['ingress', 'ingress', 'ingress']);
});

test('listeners sharing a port are one Envoy listener: a filter chain per TLS server, each routed by its own listener\'s RouteConfiguration', (t) => {
  const table = (name: string, host: string): RouteTableIR => ({
    name,
    virtualHosts: [{ name: host, hostnames: [host], routes: [{ name: 'r', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'default/app/80' } }] }],
  });
  const https = (name: string, host: string): ListenerIR => ({
    name,
    port: 443,
    protocol: 'HTTPS',
    routeTable: table(`${name}/routes`, host),
    tlsServers: [{ name: `${name}/${host}`, serverNames: [host], secret: `default/${host}` }],
  });
  const ir: DataPlaneIR = {
    listeners: [https('gw-a', 'a.example.com'), https('gw-b', 'b.example.com'), { name: 'gw-plain', port: 80, protocol: 'HTTP', routeTable: table('gw-plain/routes', 'c.example.com') }],
    clusters: [{ name: 'default/app/80', service: { namespace: 'default', name: 'app', port: 80 } }],
    secrets: [],
  };
  const resources = buildResources(ir, [], { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 });
  t.deepEqual(resources.listeners.map((l) => l.name), ['gw-a', 'gw-plain']);
  t.deepEqual(resources.routeConfigurations.map((r) => r.name), ['gw-a/routes', 'gw-b/routes', 'gw-plain/routes']);
  const tls = resources.listeners[0]!.resource as { address: unknown; filter_chains: { name: string; filters: unknown[] }[] };
  t.deepEqual(tls.address, { socket_address: { address: '0.0.0.0', port_value: 443 } });
  const rdsOf = (chain: unknown): string[] => [...JSON.stringify(chain).matchAll(/"route_config_name":"([^"]+)"/g)].map((m) => m[1]!);
  t.deepEqual(tls.filter_chains.map((c) => [c.name, rdsOf(c)]), [['gw-a/a.example.com', ['gw-a/routes']], ['gw-b/b.example.com', ['gw-b/routes']]]);
  // Every resource is one Envoy takes.
  for (const list of Object.values(resources)) for (const { resource } of list) encodeAny(resource);
});

test('a plaintext HTTP listener cannot share its port (one connection manager per plaintext port)', (t) => {
  const plain = (name: string): ListenerIR => ({ name, port: 80, protocol: 'HTTP', routeTable: { name, virtualHosts: [] } });
  const ir: DataPlaneIR = { listeners: [plain('a'), plain('b')], clusters: [], secrets: [] };
  t.throws(() => buildResources(ir, [], { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 }), { message: /port 80: listener a is plaintext HTTP/ });
});

test('plaintext listeners on one port but addresses of their own are Envoy listeners of their own (a Gateway each)', (t) => {
  const plain = (name: string, address?: string): ListenerIR => ({ name, port: 80, protocol: 'HTTP', routeTable: { name, virtualHosts: [] }, ...(address ? { address } : {}) });
  const ir: DataPlaneIR = { listeners: [plain('gw-a', '127.0.0.11'), plain('gw-b', '127.0.0.12'), plain('shared')], clusters: [], secrets: [] };
  const resources = buildResources(ir, [], { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 });
  t.deepEqual(
    resources.listeners.map((l) => [l.name, (l.resource as { address: unknown }).address]),
    [
      ['gw-a', { socket_address: { address: '127.0.0.11', port_value: 80 } }],
      ['gw-b', { socket_address: { address: '127.0.0.12', port_value: 80 } }],
      ['shared', { socket_address: { address: '0.0.0.0', port_value: 80 } }],
    ],
  );
});

test('a wildcard host covers one label (Ingress) unless its virtual host says one or more (Gateway API)', (t) => {
  const routes = [{ name: 'r', match: { kind: 'prefix' as const, path: '/' }, action: { kind: 'direct' as const, status: 200 } }];
  const resourcesFor = (wildcardLabels: 'one-or-more' | undefined): string => {
    const vhost = { name: '*.example.com', hostnames: ['*.example.com'], routes, ...(wildcardLabels === undefined ? {} : { wildcardLabels }) };
    const ir: DataPlaneIR = { listeners: [{ name: 'l', port: 80, protocol: 'HTTP', routeTable: { name: 'l', virtualHosts: [vhost] } }], clusters: [], secrets: [] };
    return JSON.stringify(buildResources(ir, [], { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 }).routeConfigurations);
  };
  // One label: the authority is checked again, as Envoy's own `*.example.com` matches a.b.example.com too.
  t.regex(resourcesFor(undefined), /\[\^\.\]\+/);
  t.notRegex(resourcesFor('one-or-more'), /:authority/);
});

for (const c of loadGoldenCases()) {
  test(`every resource of ${c.name} is a valid, lossless proto3 JSON Any`, (t) => {
    const resources = buildResources(c.ir, c.endpoints, c.options);
    for (const list of Object.values(resources)) {
      for (const { resource } of list) {
        const any = encodeAny(resource);
        t.is(any.type_url, resource['@type']);
        t.deepEqual(decodeAnyToJson(any.type_url, any.value), resource);
      }
    }
  });
}

test('listeners: new IR objects with the same relevant parts give the same JSON object (the cache skips encoding it); any relevant change gives new JSON', (t) => {
  const options = { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 };
  const route = (cors: boolean) => ({
    name: 'r',
    match: { kind: 'prefix' as const, path: '/' },
    action: { kind: 'forward' as const, cluster: 'default/app/80' },
    ...(cors ? { policy: { cors: { allowOrigins: ['https://a.example.com'], allowMethods: [], allowHeaders: [], exposeHeaders: [], allowCredentials: false } } } : {}),
  });
  const ir = (o: { secret?: string; host?: string; cors?: boolean } = {}) => {
    const table = { name: 'https', virtualHosts: [{ name: 'a.example.com', hostnames: ['a.example.com'], routes: [route(o.cors ?? false)] }] };
    const host = o.host ?? 'a.example.com';
    return ingressPairIR({
      http: { name: 'http', virtualHosts: [...table.virtualHosts] },
      tlsServers: [{ name: `https/${host}`, serverNames: [host], secret: o.secret ?? 'default/tls', routeTable: table }],
      clusters: [],
      secrets: [],
    });
  };
  const listeners = (o: Parameters<typeof ir>[0] = {}) => buildResources(ir(o), [], options).listeners.map((l) => l.resource);
  const [http, https] = listeners();
  const again = listeners();
  t.is(again[0], http);
  t.is(again[1], https);
  const otherSecret = listeners({ secret: 'default/other' });
  t.is(otherSecret[0], http);
  t.not(otherSecret[1], https);
  t.regex(JSON.stringify(otherSecret[1]), /default\/other/);
  const otherHost = listeners({ host: 'b.example.com' });
  t.regex(JSON.stringify(otherHost[1]), /b\.example\.com/);
  // A route policy that needs an HTTP filter changes no listener: the filters are carried always (issue 25: a
  // listener update drains every tenant's connections).
  const withCors = listeners({ cors: true });
  t.deepEqual(withCors[0], http);
  t.regex(JSON.stringify(withCors[0]), /envoy\.filters\.http\.cors/);
  t.regex(JSON.stringify(listeners()[0]), /envoy\.filters\.http\.cors/);
});

test('a split over several backends: each takes its weight of the total, the route\'s own cluster the rest', (t) => {
  const route = {
    name: 'r',
    match: { kind: 'prefix' as const, path: '/' },
    action: {
      kind: 'forward' as const,
      cluster: 'default/a/80',
      split: { backends: [{ cluster: 'default/b/80', weight: 30 }, { cluster: 'default/c/80', weight: 50 }], totalWeight: 100 },
    },
  };
  const ir: DataPlaneIR = {
    listeners: [{ name: 'l', port: 80, protocol: 'HTTP', routeTable: { name: 'l', virtualHosts: [{ name: 'a.test', hostnames: ['a.test'], routes: [route] }] } }],
    clusters: ['a', 'b', 'c'].map((name) => ({ name: `default/${name}/80`, service: { namespace: 'default', name, port: 80 } })),
    secrets: [],
  };
  const table = buildResources(ir, [], { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 }).routeConfigurations[0]!.resource;
  encodeAny(table);
  const built = ((table['virtual_hosts'] as { routes: { route: { weighted_clusters: unknown } }[] }[])[0]!.routes[0]!).route;
  t.deepEqual(built.weighted_clusters, {
    clusters: [
      { name: 'default/a/80', weight: 20 },
      { name: 'default/b/80', weight: 30 },
      { name: 'default/c/80', weight: 50 },
    ],
  });
});

test('TCP proxy chains: a TCP port gets no listener filter and its weighted chain; a TLS port chains by SNI, terminating where a certificate is named; a TLS port without a chain is not opened', (t) => {
  const cluster = (name: string) => ({ name, service: { namespace: 'default', name, port: 80 } });
  const ir: DataPlaneIR = {
    listeners: [
      {
        name: 'gateway/tcp/9000',
        port: 9000,
        protocol: 'TCP',
        tcpChains: [{ name: 'tcp', serverNames: [], backends: [{ cluster: 'primary', weight: 3 }, { cluster: 'replica', weight: 1 }], errorWeight: 1 }],
      },
      {
        name: 'gateway/tls/9443',
        port: 9443,
        protocol: 'TLS',
        tcpChains: [
          { name: 'pass', serverNames: ['pass.example.com'], backends: [{ cluster: 'primary', weight: 1 }] },
          { name: 'db', serverNames: ['db.example.com'], secret: 'default/db', backends: [] },
        ],
      },
      { name: 'gateway/tls/9444', port: 9444, protocol: 'TLS' },
    ],
    clusters: [cluster('primary'), cluster('replica')],
    secrets: [],
  };
  const resources = buildResources(ir, [], { listenAddress: '127.0.0.1', httpPort: 80, httpsPort: 443 });
  t.deepEqual(resources.listeners.map((l) => l.name), ['gateway/tcp/9000', 'gateway/tls/9443']);
  const [tcp, tls] = resources.listeners.map((l) => JSON.parse(JSON.stringify(l.resource)));
  t.is(tcp.listener_filters, undefined, 'a server may speak first: nothing waits for the client');
  t.deepEqual(tcp.filter_chains[0].filters[0].typed_config.weighted_clusters.clusters, [
    { name: 'primary', weight: 3 },
    { name: 'replica', weight: 1 },
    { name: 'envoy-ingress/invalid-backend', weight: 1 },
  ]);
  t.is(tcp.filter_chains[0].filter_chain_match, undefined);
  t.is(tls.listener_filters[0].name, 'envoy.filters.listener.tls_inspector');
  const [pass, db] = tls.filter_chains;
  t.deepEqual(pass.filter_chain_match.server_names, ['pass.example.com']);
  t.is(pass.transport_socket, undefined, 'passed through: no handshake in Envoy');
  t.is(pass.filters[0].typed_config.cluster, 'primary');
  t.deepEqual(db.filter_chain_match.server_names, ['db.example.com']);
  t.is(db.transport_socket.typed_config.common_tls_context.tls_certificate_sds_secret_configs[0].name, 'default/db');
  t.is(db.transport_socket.typed_config.common_tls_context.alpn_protocols, undefined, 'TCP after termination: no HTTP ALPN offered');
  t.is(db.filters[0].typed_config.cluster, 'envoy-ingress/invalid-backend', 'no backend: every connection is closed');
});
