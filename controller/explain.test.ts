import test from 'ava';
import { type PathSpec, ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml } from '../test/fixtures/manifests.js';
import { createTestCA } from '../test/harness/test-certs.js';
import { buildConfig } from './pipeline/build-config.js';
import { explain, formatExplanation, normalizeHost, normalizeRequestPath, type ExplainInput } from './explain.js';
import { clusterStateFromYaml } from './translate/shared/cluster-state-yaml.js';
import { defaultTranslateOptions } from './translate/shared/options.js';
import { ingressPairIR } from '../envoy/test-helpers/ingress-pair-ir.js';

const envoyOptions = { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 };

function inputOf(objects: object[], translate = defaultTranslateOptions): ExplainInput {
  const { state } = clusterStateFromYaml(toYaml(objects));
  const built = buildConfig(state, { translate, envoy: envoyOptions });
  return { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics };
}

const services = [
  ...serviceWithEndpoints('web', [{ address: '10.0.0.1', port: 8000 }]),
  ...serviceWithEndpoints('api', [{ address: '10.0.0.2', port: 9000 }, { address: '10.0.0.3', port: 9000 }]),
  ...serviceWithEndpoints('wild', [{ address: '10.0.0.4', port: 8000 }]),
  ...serviceWithEndpoints('empty', []),
];

const shop = ingress('shop', {
  creationTimestamp: '2026-01-01T00:00:00Z',
  rules: [
    {
      host: 'shop.example.test',
      paths: [
        { path: '/', service: 'web' },
        { path: '/api', service: 'api' },
        { path: '/exact', pathType: 'Exact', service: 'api' },
        { path: '/broken', service: 'missing' },
        { path: '/drained', service: 'empty' },
      ],
    },
    { host: '*.wild.test', paths: [{ path: '/', service: 'wild' }] },
  ],
});

test('the longest matching prefix wins; shorter matching routes are shadowed and named', (t) => {
  const e = explain(inputOf([ingressClass(), ...services, shop]), { host: 'Shop.Example.Test:8080', path: '/api/v1?x=1' });
  t.is(e.virtualHost, 'shop.example.test');
  t.is(e.route?.route, 'ingress/default/shop/rule/0/path/1');
  t.deepEqual([e.route?.rule, e.route?.path], [0, 1]);
  t.deepEqual(e.response.kind === 'forward' ? e.response.service : null, { namespace: 'default', name: 'api', port: 80 });
  t.deepEqual(e.response.kind === 'forward' ? e.response.endpoints.map((x) => x.address) : [], ['10.0.0.2', '10.0.0.3']);
  t.is(e.status, null);
  t.regex(e.verdict, /^served by Ingress default\/shop rule 0 path 1 \(Prefix \/api\) -> Service default\/api port 80 -> 2 ready endpoint/);
  const root = e.routes.find((r) => r.route === 'ingress/default/shop/rule/0/path/0');
  t.is(root?.outcome, 'shadowed');
  t.regex(root?.reason ?? '', /comes first/);
  t.is(e.routes.find((r) => r.route.endsWith('path/2'))?.outcome, 'no-match');
});

test('prefixes match whole segments: /apix is not under /api', (t) => {
  const e = explain(inputOf([ingressClass(), ...services, shop]), { host: 'shop.example.test', path: '/apix' });
  t.is(e.route?.route, 'ingress/default/shop/rule/0/path/0');
  const api = e.routes.find((r) => r.route.endsWith('path/1'));
  t.is(api?.outcome, 'no-match');
  t.regex(api?.reason ?? '', /whole path segments/);
});

test('with the nginx layer an ImplementationSpecific path is a character prefix: /apix is under /api, /api/ does not take /api', (t) => {
  const build = (paths: PathSpec[]): ExplainInput => {
    const { state } = clusterStateFromYaml(toYaml([ingressClass(), ...services, ingress('nginx', { rules: [{ host: 'n.test', paths }] })]));
    const built = buildConfig(state, { translate: { ...defaultTranslateOptions, nginxAnnotations: true }, envoy: envoyOptions });
    return { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics };
  };
  const input = build([{ path: '/', pathType: 'Prefix', service: 'web' }, { path: '/api', pathType: 'ImplementationSpecific', service: 'api' }, { path: '/docs/', pathType: 'ImplementationSpecific', service: 'api' }]);
  t.is(explain(input, { host: 'n.test', path: '/apix' }).route?.route, 'ingress/default/nginx/rule/0/path/1');
  const docs = explain(input, { host: 'n.test', path: '/docs' });
  t.is(docs.route?.route, 'ingress/default/nginx/rule/0/path/0');
  t.regex(docs.routes.find((r) => r.route.endsWith('path/2'))?.reason ?? '', /does not start with \/docs\/ \(ImplementationSpecific/);
});

test('Exact matches only the very path', (t) => {
  const input = inputOf([ingressClass(), ...services, shop]);
  t.is(explain(input, { host: 'shop.example.test', path: '/exact' }).route?.route, 'ingress/default/shop/rule/0/path/2');
  t.is(explain(input, { host: 'shop.example.test', path: '/exact/' }).route?.route, 'ingress/default/shop/rule/0/path/0');
});

test('the path is normalised as Envoy does before matching', (t) => {
  t.is(normalizeRequestPath('/a/../api//v1/./x?q=/b'), '/api/v1/x');
  t.is(normalizeRequestPath('//b'), '/b');
  t.is(normalizeRequestPath('/a/..'), '/');
  t.is(normalizeHost('FOO.example.test.:443'), 'foo.example.test');
  const e = explain(inputOf([ingressClass(), ...services, shop]), { host: 'shop.example.test', path: '/x/../api' });
  t.is(e.request.path, '/api');
  t.is(e.route?.route, 'ingress/default/shop/rule/0/path/1');
});

test('a wildcard host covers exactly one label; deeper names fall to the catch-all', (t) => {
  const input = inputOf([ingressClass(), ...services, shop]);
  const one = explain(input, { host: 'a.wild.test', path: '/' });
  t.is(one.virtualHost, '*.wild.test');
  t.regex(one.verdict, /Service default\/wild/);
  const two = explain(input, { host: 'a.b.wild.test', path: '/' });
  t.is(two.virtualHost, '*');
  t.is(two.status, 404);
  t.regex(two.virtualHosts.find((v) => v.virtualHost === '*.wild.test')?.reason ?? '', /exactly one label/);
  t.regex(two.verdict, /^404 because no rule of host \* matches \/ and no Ingress has a default backend/);
  const bare = explain(input, { host: 'wild.test', path: '/' });
  t.is(bare.virtualHost, '*');
});

test('404 because nothing matches, naming the rules that were tried', (t) => {
  const only = ingress('only', { rules: [{ host: 'a.test', paths: [{ path: '/app', service: 'web' }] }] });
  const e = explain(inputOf([ingressClass(), ...services, only]), { host: 'a.test', path: '/other' });
  t.is(e.status, 404);
  t.is(e.route?.route, 'fallback');
  t.is(e.verdict, '404 because no rule of host a.test matches /other and no Ingress has a default backend; rules tried: Prefix /app (default/only)');
  t.regex(formatExplanation(e), /404 because/);
});

test('the default backend answers what no rule matches', (t) => {
  const fallback = ingress('fallback', { defaultBackend: 'web' });
  // The default backend of every host: the operator's namespace's (tenant-default-backends.ts).
  const e = explain(inputOf([ingressClass(), ...services, fallback], { ...defaultTranslateOptions, defaultBackendNamespace: 'default' }), { host: 'unknown.test', path: '/x' });
  t.is(e.route?.route, 'ingress/default/fallback/default-backend');
  t.regex(e.verdict, /^served by the default backend of Ingress default\/fallback -> Service default\/web port 80/);
});

test('503 for a backend that cannot be resolved names the problem; 503 for no ready endpoints', (t) => {
  const input = inputOf([ingressClass(), ...services, shop]);
  const broken = explain(input, { host: 'shop.example.test', path: '/broken' });
  t.is(broken.status, 503);
  t.regex(broken.verdict, /^503 because the backend of Ingress default\/shop rule 0 path 3 .* service default\/missing not found/);
  t.true(broken.diagnostics.some((d) => d.reason === 'ServiceNotFound'));
  const drained = explain(input, { host: 'shop.example.test', path: '/drained/x' });
  t.is(drained.status, 503);
  t.regex(drained.verdict, /^503 because Service default\/empty port 80 .* has no ready endpoints/);
});

test('a rule that lost a conflict for the host is shown as a problem', (t) => {
  const late = ingress('late', {
    creationTimestamp: '2026-02-01T00:00:00Z',
    rules: [{ host: 'shop.example.test', paths: [{ path: '/api', service: 'web' }] }],
  });
  const e = explain(inputOf([ingressClass(), ...services, shop, late]), { host: 'shop.example.test', path: '/api' });
  t.is(e.route?.source?.name, 'shop');
  const conflict = e.diagnostics.find((d) => d.reason === 'RuleConflict');
  t.is(conflict?.object.name, 'late');
});

test('TLS: plain HTTP redirects, HTTPS picks the chain by SNI, an unknown SNI is reset', async (t) => {
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['secure.test'] });
  const secure = ingress('secure', {
    rules: [{ host: 'secure.test', paths: [{ path: '/', service: 'web' }] }],
    tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
  });
  const input = inputOf([ingressClass(), ...services, secure, tlsSecret('secure-tls', cert.certPem, cert.keyPem)]);
  const plain = explain(input, { host: 'secure.test', path: '/a?b' });
  t.deepEqual(plain.response, { kind: 'redirect', status: 301, location: 'https://secure.test/a?b' });
  const tls = explain(input, { host: 'secure.test', path: '/a', scheme: 'https' });
  t.is(tls.tlsServer, 'https/secure.test');
  t.regex(tls.verdict, /^served by Ingress default\/secure rule 0 path 0/);
  const unknown = explain(input, { host: 'other.test', path: '/', scheme: 'https' });
  t.is(unknown.response.kind, 'reset');
  t.regex(unknown.verdict, /no TLS certificate is configured for SNI other.test \(TLS hosts: secure.test\)/);
});

test('TLS: an SNI no certificate names gets the default certificate (a tls entry without hosts)', async (t) => {
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['other.test'] });
  const site = ingress('site', {
    rules: [{ host: 'other.test', paths: [{ path: '/', service: 'web' }] }],
    tls: [{ hosts: [], secretName: 'default-tls' }],
  });
  const input = inputOf([ingressClass(), ...services, site, tlsSecret('default-tls', cert.certPem, cert.keyPem)]);
  const e = explain(input, { host: 'other.test', path: '/', scheme: 'https' });
  t.is(e.tlsServer, 'https/*');
  t.deepEqual(e.certificate, { secret: 'default/default-tls', coversSni: true });
  t.regex(e.verdict, /^served by Ingress default\/site rule 0 path 0/);
  // A name the default certificate does not cover: Envoy still routes, but name-checking clients refuse.
  const other = explain(input, { host: 'other.test', sni: 'elsewhere.test', path: '/', scheme: 'https' });
  t.deepEqual(other.certificate, { secret: 'default/default-tls', coversSni: false });
  t.regex(other.verdict, /^TLS session refused by clients that check the server name: Secret default\/default-tls does not cover elsewhere.test; a client that does not check gets: served by/);
  // No SNI at all: the default certificate, nothing to check it against.
  t.is(explain(input, { host: 'other.test', sni: '', path: '/', scheme: 'https' }).certificate?.coversSni, null);
});

test('rule and path numbers come from the route IR, not from the route name', (t) => {
  const source = { kind: 'Ingress' as const, namespace: 'shop', name: 'orders' };
  const input: ExplainInput = {
    ir: ingressPairIR({
      http: {
        name: 'http',
        virtualHosts: [
          {
            name: 'orders.test',
            hostnames: ['orders.test'],
            routes: [
              // A name that says nothing of the rule: the fields do.
              { name: 'orders-api', match: { kind: 'prefix', path: '/api' }, action: { kind: 'forward', cluster: 'shop/api/80' }, source, rulePath: { rule: 2, path: 3 } },
              // A name that looks like a rule route's, on a route that serves no Ingress path.
              { name: 'ingress/shop/orders/rule/0/path/0', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'shop/api/80' }, source },
            ],
          },
        ],
      },
      tlsServers: [],
      clusters: [{ name: 'shop/api/80', service: { namespace: 'shop', name: 'api', port: 80 } }],
      secrets: [],
    }),
    endpoints: [{ cluster: 'shop/api/80', endpoints: [{ address: '10.0.0.9', port: 8080 }] }],
    diagnostics: [],
  };
  const api = explain(input, { host: 'orders.test', path: '/api/x' });
  t.deepEqual([api.route?.rule, api.route?.path], [2, 3]);
  t.regex(api.verdict, /^served by Ingress shop\/orders rule 2 path 3 \(Prefix \/api\)/);
  t.regex(formatExplanation(api), /orders-api \[Ingress shop\/orders rule 2 path 3\]/);
  const root = explain(input, { host: 'orders.test', path: '/' });
  t.deepEqual([root.route?.rule, root.route?.path], [undefined, undefined]);
  t.regex(root.verdict, /^served by Ingress shop\/orders route ingress\/shop\/orders\/rule\/0\/path\/0 ->/);
});

test('explain names the namespace that owns a host; merged namespaces under --allow-cross-namespace-hosts', (t) => {
  const objects = [
    ingressClass(),
    ...serviceWithEndpoints('web', [{ address: '10.0.0.1', port: 8000 }], 'a'),
    ...serviceWithEndpoints('web', [{ address: '10.0.0.2', port: 8000 }], 'b'),
    ingress('site', { namespace: 'a', creationTimestamp: '2024-01-01T00:00:00Z', rules: [{ host: 'owned.test', paths: [{ path: '/', service: 'web' }] }] }),
    ingress('late', { namespace: 'b', creationTimestamp: '2024-02-01T00:00:00Z', rules: [{ host: 'owned.test', paths: [{ path: '/b', service: 'web' }] }] }),
  ];
  const owned = explain(inputOf(objects), { host: 'owned.test', path: '/b' });
  t.deepEqual(owned.hostOwner, { namespaces: ['a'] });
  t.is(owned.route?.source?.namespace, 'a');
  t.regex(formatExplanation(owned), /host owned by namespace a/);
  t.true(owned.diagnostics.some((d) => d.reason === 'HostOwnedByOtherNamespace'));
  const merged = explain(inputOf(objects, { ...defaultTranslateOptions, allowCrossNamespaceHosts: true }), { host: 'owned.test', path: '/b' });
  t.deepEqual(merged.hostOwner, { namespaces: ['a', 'b'] });
  t.regex(formatExplanation(merged), /host merged from namespaces a, b/);
});
