import { readFileSync, writeFileSync } from 'node:fs';
import test from 'ava';
import { decodeAnyToJson, encodeAny } from '../proto/proto-json.js';
import { buildResources } from './build-resources.js';
import { goldenYaml, loadGoldenCases } from './test-helpers/golden-cases.js';

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

test('TLS servers sharing a route table give one RouteConfiguration', (t) => {
  const table = { name: 'https/shared', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [] }] };
  const server = (host: string) => ({ name: `https/${host}`, serverNames: [host], secret: 'default/tls', routeTable: table });
  const resources = buildResources(
    {
      http: { name: 'http', virtualHosts: [] },
      tlsServers: [server('b.example.com'), server('a.example.com')],
      clusters: [],
      secrets: [],
    },
    [],
    { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 },
  );
  t.deepEqual(
    resources.routeConfigurations.map((r) => r.name),
    ['http', 'https/shared'],
  );
  t.deepEqual(
    resources.listeners.map((l) => l.name),
    ['ingress_http', 'ingress_https'],
  );
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
