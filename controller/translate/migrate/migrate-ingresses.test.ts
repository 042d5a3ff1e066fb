import test from 'ava';
import type { ClusterState, HTTPRoute, Ingress, IngressClass, Secret, Service } from '../shared/kube-objects.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { createTestCA } from '../../../test/harness/test-certs.js';
import { migrateIngresses, type MigrateOptions } from './migrate-ingresses.js';

const ours: IngressClass = { kind: 'IngressClass', metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: defaultTranslateOptions.controllerName } };
const service = (name: string, namespace = 'default'): Service => ({ kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'http', port: 80 }] } });
const options: MigrateOptions = {
  gatewayClassName: 'envoy-ingress',
  gatewayNamespace: 'gateways',
  httpPort: 80,
  httpsPort: 443,
  classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
};

function ingress(name: string, spec: NonNullable<Ingress['spec']>, annotations: Record<string, string> = {}, created = '2024-01-01T00:00:00Z'): Ingress {
  return { kind: 'Ingress', metadata: { name, namespace: 'default', creationTimestamp: created, annotations }, spec };
}
const path = (p: string, backend: string, pathType = 'Prefix') => ({ path: p, pathType, backend: { service: { name: backend, port: { number: 80 } } } });

function state(ingresses: Ingress[], services: Service[], secrets: Secret[] = []): Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets'> {
  return { ingresses, ingressClasses: [ours], services, secrets };
}

const routesOf = (objects: readonly { kind: string }[]): HTTPRoute[] => objects.filter((o): o is HTTPRoute => o.kind === 'HTTPRoute');

test('a multi-rule Ingress keeps every path on its own backend (one rule per path)', (t) => {
  const result = migrateIngresses(
    state([ingress('shop', { rules: [{ host: 'shop.test', http: { paths: [path('/', 'web'), path('/api', 'api'), path('/static', 'static', 'Exact')] } }] })], [service('web'), service('api'), service('static')]),
    options,
  );
  const [route] = routesOf(result.objects);
  t.deepEqual(
    route?.spec?.rules?.map((r) => [r.matches?.[0]?.path?.type, r.matches?.[0]?.path?.value, r.backendRefs?.map((b) => b.name)]),
    [
      ['PathPrefix', '/', ['web']],
      ['PathPrefix', '/api', ['api']],
      ['Exact', '/static', ['static']],
    ],
  );
  t.deepEqual(route?.spec?.hostnames, ['shop.test']);
  t.deepEqual(route?.spec?.parentRefs?.map((p) => `${p.namespace}/${p.name}`), ['gateways/nginx']);
  t.deepEqual(result.report.ingresses[0]?.paths.map((p) => p.result), ['same', 'same', 'same']);
});

test('a TLS host gets an HTTPS listener with its certificateRef, a ReferenceGrant for the Secret, and an https redirect on HTTP', async (t) => {
  const ca = await createTestCA();
  const issued = await ca.issue({ dnsNames: ['shop.test'] });
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  const secret = { kind: 'Secret', type: 'kubernetes.io/tls', metadata: { name: 'shop-tls', namespace: 'default' }, data: { 'tls.crt': b64(issued.certPem), 'tls.key': b64(issued.keyPem) } } as Secret;
  const ing = ingress('shop', { tls: [{ hosts: ['shop.test'], secretName: 'shop-tls' }], rules: [{ host: 'shop.test', http: { paths: [path('/', 'web')] } }] });
  const result = migrateIngresses(state([ing], [service('web')], [secret]), options);
  const gateway = result.objects.find((o) => o.kind === 'Gateway');
  t.deepEqual(
    (gateway?.spec as { listeners: unknown[] }).listeners,
    [
      { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
      {
        name: 'https-shop-test',
        hostname: 'shop.test',
        port: 443,
        protocol: 'HTTPS',
        tls: { mode: 'Terminate', certificateRefs: [{ group: '', kind: 'Secret', name: 'shop-tls', namespace: 'default' }] },
        allowedRoutes: { namespaces: { from: 'All' } },
      },
    ],
  );
  const grant = result.objects.find((o) => o.kind === 'ReferenceGrant');
  t.is(grant?.metadata.namespace, 'default');
  t.deepEqual(grant?.spec, { from: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'gateways' }], to: [{ group: '', kind: 'Secret', name: 'shop-tls' }] });
  const [main, redirect] = routesOf(result.objects);
  t.deepEqual(main?.spec?.parentRefs?.map((p) => p.sectionName), ['https-shop-test']);
  t.deepEqual(redirect?.spec?.parentRefs?.map((p) => p.sectionName), ['http']);
  t.deepEqual(redirect?.spec?.rules?.[0]?.filters, [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 308 } }]);
  // A Secret the Ingress translator refuses (here: missing) leaves the host plain HTTP, as the Ingress's.
  const plain = migrateIngresses(state([ing], [service('web')], []), options);
  t.false(plain.objects.some((o) => o.kind === 'ReferenceGrant'));
  t.deepEqual(routesOf(plain.objects).map((r) => r.spec?.parentRefs?.[0]?.sectionName), [undefined]);
});

test('rewrite-target /$2 on PREFIX(/|$)(.*) becomes PathPrefix with ReplacePrefixMatch, other capture rewrites are reported', (t) => {
  const result = migrateIngresses(
    state(
      [
        ingress('prefix', { rules: [{ host: 'a.test', http: { paths: [path('/app(/|$)(.*)', 'web', 'ImplementationSpecific')] } }] }, { 'nginx.ingress.kubernetes.io/rewrite-target': '/$2', 'nginx.ingress.kubernetes.io/use-regex': 'true' }),
        ingress('other', { rules: [{ host: 'b.test', http: { paths: [path('/x/(.+)/y', 'web', 'ImplementationSpecific')] } }] }, { 'nginx.ingress.kubernetes.io/rewrite-target': '/new/$1' }),
      ],
      [service('web')],
    ),
    options,
  );
  const a = routesOf(result.objects).find((r) => r.metadata.name === 'prefix');
  const b = routesOf(result.objects).find((r) => r.metadata.name === 'other');
  t.deepEqual(a?.spec?.rules?.[0]?.matches?.[0]?.path, { type: 'PathPrefix', value: '/app' });
  t.deepEqual(a?.spec?.rules?.[0]?.filters?.find((f) => f.type === 'URLRewrite')?.urlRewrite, { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } });
  t.deepEqual(b?.spec?.rules?.[0]?.matches?.[0]?.path, { type: 'RegularExpression', value: '(?i)^(?:/x/(.+)/y).*' });
  const other = result.report.ingresses.find((i) => i.name === 'other');
  t.deepEqual(other?.paths[0]?.differences.map((d) => d.id), ['rewrite-capture-groups']);
  t.is(other?.paths[0]?.result, 'different');
});

test('a canary joins the main path: header rules before it, its weight as a share of the main rule', (t) => {
  const result = migrateIngresses(
    state(
      [
        ingress('main', { rules: [{ host: 'c.test', http: { paths: [path('/', 'web')] } }] }),
        ingress(
          'canary',
          { rules: [{ host: 'c.test', http: { paths: [path('/', 'web-canary')] } }] },
          { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-by-header': 'X-Canary', 'nginx.ingress.kubernetes.io/canary-weight': '20' },
          '2024-01-02T00:00:00Z',
        ),
      ],
      [service('web'), service('web-canary')],
    ),
    options,
  );
  const routes = routesOf(result.objects);
  t.is(routes.length, 1, 'the canary has no route of its own');
  t.deepEqual(
    routes[0]?.spec?.rules?.map((r) => [r.matches?.[0]?.headers?.map((h) => `${h.name}=${h.value}`) ?? [], r.backendRefs?.map((b) => `${b.name}:${b.weight ?? '-'}`)]),
    [
      [['x-canary=always'], ['web-canary:-']],
      [['x-canary=never'], ['web:-']],
      [[], ['web:80', 'web-canary:20']],
    ],
  );
  const canary = result.report.ingresses.find((i) => i.name === 'canary');
  t.is(canary?.paths[0]?.result, 'same');
  t.is(canary?.paths[0]?.route, 'default/main');
});

test('annotations the Gateway API cannot say are named in the report with an action, never dropped silently', (t) => {
  const result = migrateIngresses(
    state([ingress('limited', { rules: [{ host: 'l.test', http: { paths: [path('/', 'web')] } }] }, { 'nginx.ingress.kubernetes.io/limit-connections': '5', 'nginx.ingress.kubernetes.io/upstream-vhost': 'internal.test' })], [service('web')]),
    options,
  );
  const reported = result.report.ingresses[0]?.paths[0];
  t.is(reported?.result, 'different');
  t.deepEqual(reported?.differences.map((d) => d.id), ['limit-connections']);
  t.true(reported?.differences.every((d) => d.action !== '' && d.message !== ''));
  const [route] = routesOf(result.objects);
  t.deepEqual(route?.spec?.rules?.[0]?.filters?.find((f) => f.type === 'URLRewrite')?.urlRewrite, { hostname: 'internal.test' });
});

test('a regex path shorter than a prefix path it matches is named (the Gateway API tries regexes first)', (t) => {
  const result = migrateIngresses(
    state([ingress('mixed', { rules: [{ host: 'm.test', http: { paths: [path('/api', 'impl', 'ImplementationSpecific'), path('/api/v1', 'v1')] } }] })], [service('impl'), service('v1')]),
    options,
  );
  t.deepEqual(result.report.ingresses[0]?.paths.map((p) => [p.path, p.differences.map((d) => d.id)]), [
    ['/api', ['regex-precedence']],
    ['/api/v1', ['regex-precedence']],
  ]);
});

test('Ingresses of another controller are not converted', (t) => {
  const other = { ...ingress('other', { ingressClassName: 'traefik', rules: [{ host: 'o.test', http: { paths: [path('/', 'web')] } }] }) };
  const result = migrateIngresses(state([other], [service('web')]), options);
  t.deepEqual(result.converted, []);
  t.deepEqual(routesOf(result.objects), []);
});

test('an Ingress host with more than 16 paths becomes several HTTPRoutes of at most 16 rules (the CRD limit)', (t) => {
  const paths = Array.from({ length: 20 }, (_, i) => path(`/p${i}`, 'web'));
  const result = migrateIngresses(state([ingress('many', { rules: [{ host: 'many.test', http: { paths } }] })], [service('web')]), options);
  const routes = routesOf(result.objects);
  t.deepEqual(routes.map((r) => [r.metadata.name, r.spec?.rules?.length]), [['many', 16], ['many-2', 4]]);
  const reported = result.report.ingresses[0]?.paths;
  t.deepEqual([reported?.[15]?.route, reported?.[15]?.rule, reported?.[16]?.route, reported?.[16]?.rule], ['default/many', 15, 'default/many-2', 0]);
});

test('backend-protocol GRPC: paths a method match can say become GRPCRoute rules; the rest stays on the HTTPRoute, reported', (t) => {
  const grpcAnnotations = { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPC' };
  const result = migrateIngresses(
    state(
      [
        ingress('rpc', { rules: [{ host: 'rpc.test', http: { paths: [path('/', 'all'), path('/pkg.Echo', 'echo'), path('/pkg.Echo/Say', 'say', 'Exact'), path('/pkg.Files/', 'files', 'ImplementationSpecific'), path('/a/b', 'deep')] } }] }, grpcAnnotations),
        ingress('web', { rules: [{ host: 'web.test', http: { paths: [path('/', 'web')] } }] }),
      ],
      ['all', 'echo', 'say', 'files', 'deep', 'web'].map((n) => service(n)),
    ),
    options,
  );
  const grpcRoutes = result.objects.filter((o) => o.kind === 'GRPCRoute');
  t.deepEqual(grpcRoutes.map((r) => `${r.metadata.namespace}/${r.metadata.name}`), ['default/rpc-grpc']);
  const rules = (grpcRoutes[0]?.spec as { rules: { matches?: unknown; backendRefs?: { name: string }[] }[] }).rules;
  t.deepEqual(
    rules.map((r) => [r.matches, r.backendRefs?.map((b) => b.name)]),
    [
      [undefined, ['all']],
      [[{ method: { type: 'Exact', service: 'pkg.Echo' } }], ['echo']],
      [[{ method: { type: 'Exact', service: 'pkg.Echo', method: 'Say' } }], ['say']],
      [[{ method: { type: 'Exact', service: 'pkg.Files' } }], ['files']],
    ],
  );
  t.deepEqual((grpcRoutes[0]?.spec as { hostnames: string[] }).hostnames, ['rpc.test']);
  // /a/b names no whole service: an HTTPRoute rule, reported.
  const [httpRoute] = routesOf(result.objects).filter((r) => r.metadata.name === 'rpc');
  t.deepEqual(httpRoute?.spec?.rules?.map((r) => r.matches?.[0]?.path?.value), ['/a/b']);
  const reported = result.report.ingresses.find((i) => i.name === 'rpc')?.paths ?? [];
  t.deepEqual(reported.map((p) => [p.path, p.route, p.rule, p.result]), [
    ['/', 'default/rpc-grpc', 0, 'same'],
    ['/pkg.Echo', 'default/rpc-grpc', 1, 'same'],
    ['/pkg.Echo/Say', 'default/rpc-grpc', 2, 'same'],
    ['/pkg.Files/', 'default/rpc-grpc', 3, 'same'],
    ['/a/b', 'default/rpc', 0, 'different'],
  ]);
  t.deepEqual(reported[4]?.differences.map((d) => d.id), ['backend-protocol']);
  // Another Ingress without the annotation: HTTPRoute only.
  t.is(result.report.ingresses.find((i) => i.name === 'web')?.paths[0]?.route, 'default/web');
});

test('backend-protocol GRPCS and HTTPS are reported (TLS to the backend needs a BackendTLSPolicy); GRPC with upstream-vhost stays an HTTPRoute', (t) => {
  const result = migrateIngresses(
    state(
      [
        ingress('tls', { rules: [{ host: 'tls.test', http: { paths: [path('/', 'a')] } }] }, { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPCS' }, '2024-01-01T00:00:00Z'),
        ingress('https', { rules: [{ host: 'https.test', http: { paths: [path('/', 'a')] } }] }, { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' }, '2024-01-02T00:00:00Z'),
        ingress('vhost', { rules: [{ host: 'vhost.test', http: { paths: [path('/', 'a')] } }] }, { 'nginx.ingress.kubernetes.io/backend-protocol': 'GRPC', 'nginx.ingress.kubernetes.io/upstream-vhost': 'inner' }, '2024-01-03T00:00:00Z'),
      ],
      [service('a')],
    ),
    options,
  );
  const byName = new Map(result.report.ingresses.map((i) => [i.name, i.paths[0]]));
  t.is(byName.get('tls')?.route, 'default/tls-grpc');
  t.regex(byName.get('tls')?.differences.find((d) => d.id === 'backend-protocol')?.message ?? '', /without TLS/);
  t.is(byName.get('https')?.route, 'default/https');
  t.regex(byName.get('https')?.differences.find((d) => d.id === 'backend-protocol')?.message ?? '', /without TLS/);
  t.is(byName.get('vhost')?.route, 'default/vhost');
  t.regex(byName.get('vhost')?.differences.find((d) => d.id === 'backend-protocol')?.message ?? '', /URLRewrite/);
});

test('ssl-passthrough: a TLS listener in Passthrough mode on the HTTPS port and a TLSRoute to the "/" path\'s backend; plain HTTP keeps the HTTPRoute', (t) => {
  const result = migrateIngresses(
    state(
      [
        ingress('pass', { rules: [{ host: 'pass.test', http: { paths: [path('/plain', 'web'), path('/', 'secure')] } }] }, { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' }),
        // A newer Ingress of the same host does not decide its TLS connections (nginx-passthrough.ts).
        ingress('late', { rules: [{ host: 'late.test', http: { paths: [path('/', 'web')] } }, { host: 'pass.test', http: { paths: [path('/x', 'web')] } }] }, { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' }, '2024-02-01T00:00:00Z'),
        ingress('late-owner', { rules: [{ host: 'late.test', http: { paths: [path('/y', 'web')] } }] }, {}, '2023-01-01T00:00:00Z'),
      ],
      [service('web'), service('secure')],
    ),
    options,
  );
  const gateway = result.objects.find((o) => o.kind === 'Gateway');
  t.deepEqual(
    (gateway?.spec as { listeners: { name: string; protocol: string; tls?: unknown; hostname?: string; port: number }[] }).listeners.filter((l) => l.protocol === 'TLS'),
    [{ name: 'tls-passthrough-pass-test', hostname: 'pass.test', port: 443, protocol: 'TLS', tls: { mode: 'Passthrough' }, allowedRoutes: { namespaces: { from: 'All' } } }] as never,
  );
  const tlsRoutes = result.objects.filter((o) => o.kind === 'TLSRoute');
  t.deepEqual(tlsRoutes.map((r) => [r.metadata.name, r.spec]), [
    ['pass-tls-passthrough', { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'nginx', namespace: 'gateways', sectionName: 'tls-passthrough-pass-test' }], hostnames: ['pass.test'], rules: [{ backendRefs: [{ name: 'secure', port: 80 }] }] }],
  ] as never);
  t.true(routesOf(result.objects).some((r) => r.metadata.name === 'pass' && r.spec?.rules?.length === 2), 'plain HTTP keeps both paths');
  t.false(result.report.ingresses.some((i) => i.paths.some((p) => p.differences.some((d) => d.id === 'ssl-passthrough'))), 'ssl-passthrough is carried, not reported');
});

test('mirror-target to a Service of the namespace becomes a RequestMirror filter on each rule; https, other namespaces and outside hosts are reported', (t) => {
  const mirrored = (name: string, target: string, created: string): Ingress =>
    ingress(name, { rules: [{ host: `${name}.test`, http: { paths: [path('/', 'web'), path('/b', 'web')] } }] }, { 'nginx.ingress.kubernetes.io/mirror-target': target }, created);
  const result = migrateIngresses(
    state(
      [
        mirrored('svc', 'http://recorder.default.svc.cluster.local:8080/copy', '2024-01-01T00:00:00Z'),
        mirrored('tls', 'https://recorder.default.svc/copy', '2024-01-02T00:00:00Z'),
        mirrored('other', 'http://recorder.elsewhere.svc/copy', '2024-01-03T00:00:00Z'),
        mirrored('outside', 'http://mirror.example.com/copy', '2024-01-04T00:00:00Z'),
      ],
      [service('web'), { kind: 'Service', metadata: { name: 'recorder', namespace: 'default' }, spec: { ports: [{ port: 8080 }] } }],
    ),
    options,
  );
  const routes = new Map(routesOf(result.objects).map((r) => [r.metadata.name, r]));
  t.deepEqual(
    routes.get('svc')?.spec?.rules?.map((r) => r.filters?.find((f) => f.type === 'RequestMirror')),
    [1, 2].map(() => ({ type: 'RequestMirror', requestMirror: { backendRef: { name: 'recorder', port: 8080 } } })),
  );
  for (const name of ['tls', 'other', 'outside']) {
    t.false(routes.get(name)?.spec?.rules?.some((r) => r.filters?.some((f) => f.type === 'RequestMirror')), name);
  }
  const message = (name: string): string => result.report.ingresses.find((i) => i.name === name)?.paths[0]?.differences.find((d) => d.id === 'mirror-target')?.message ?? '';
  t.regex(message('svc'), /Host recorder\.default\.svc\.cluster\.local and the path \/copy/);
  t.regex(message('tls'), /not converted: a RequestMirror backendRef is reached without TLS/);
  t.regex(message('other'), /not converted: the Service elsewhere\/recorder is in another namespace/);
  t.regex(message('outside'), /not converted: it names no in-cluster Service/);
});

test('backend-protocol HTTPS with proxy-ssl-secret becomes a BackendTLSPolicy on the Service port (CA: the Secret, hostname: proxy-ssl-name); what a policy does otherwise is reported', (t) => {
  const tlsService: Service = { kind: 'Service', metadata: { name: 'secure', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443 }] } };
  const caSecret = { kind: 'Secret', metadata: { name: 'proxy-ca', namespace: 'default' }, data: { 'ca.crt': 'Y2E=' } } as Secret;
  const tlsPath = { path: '/', pathType: 'Prefix', backend: { service: { name: 'secure', port: { number: 443 } } } };
  const p = (name: string): string => `nginx.ingress.kubernetes.io/${name}`;
  const result = migrateIngresses(
    state(
      [
        ingress('verified', { rules: [{ host: 'verified.test', http: { paths: [tlsPath] } }] }, { [p('backend-protocol')]: 'HTTPS', [p('proxy-ssl-secret')]: 'default/proxy-ca', [p('proxy-ssl-verify')]: 'on', [p('proxy-ssl-name')]: 'secure.internal', [p('proxy-ssl-server-name')]: 'on' }),
        ingress('other-name', { rules: [{ host: 'other.test', http: { paths: [tlsPath] } }] }, { [p('backend-protocol')]: 'HTTPS', [p('proxy-ssl-secret')]: 'default/proxy-ca', [p('proxy-ssl-name')]: 'other.internal' }, '2024-02-01T00:00:00Z'),
        ingress('no-ca', { rules: [{ host: 'no-ca.test', http: { paths: [tlsPath] } }] }, { [p('backend-protocol')]: 'HTTPS' }, '2024-03-01T00:00:00Z'),
      ],
      [tlsService],
      [caSecret],
    ),
    options,
  );
  const policies = result.objects.filter((o) => o.kind === 'BackendTLSPolicy');
  t.deepEqual(policies.map((o) => [o.metadata.namespace, o.metadata.name, o.spec]), [
    ['default', 'secure-https-backend-tls', { targetRefs: [{ group: '', kind: 'Service', name: 'secure', sectionName: 'https' }], validation: { caCertificateRefs: [{ group: '', kind: 'Secret', name: 'proxy-ca' }], hostname: 'secure.internal' } }],
  ] as never);
  const ids = (name: string): string[] => [...new Set(result.report.ingresses.find((i) => i.name === name)?.paths[0]?.differences.map((d) => d.id))];
  t.deepEqual(ids('verified'), ['backend-tls-policy']);
  t.deepEqual(ids('other-name'), ['backend-tls-policy', 'proxy-ssl-verify', 'proxy-ssl-server-name']);
  t.true(result.report.ingresses.find((i) => i.name === 'other-name')?.paths[0]?.differences.some((d) => d.id === 'backend-tls-policy' && d.message.includes('of an older Ingress')), 'one policy per port: the older Ingress\'s applies');
  t.regex(result.report.ingresses.find((i) => i.name === 'no-ca')?.paths[0]?.differences.find((d) => d.id === 'backend-protocol')?.message ?? '', /no proxy-ssl-secret/);
});

test('proxy-read-timeout / proxy-send-timeout become timeouts.backendRequest (the larger), reported as a whole-exchange bound', (t) => {
  const result = migrateIngresses(
    state([ingress('slow', { rules: [{ host: 'slow.test', http: { paths: [path('/', 'web')] } }] }, { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '20', 'nginx.ingress.kubernetes.io/proxy-send-timeout': '30', 'nginx.ingress.kubernetes.io/proxy-connect-timeout': '5' })], [service('web')]),
    options,
  );
  const [route] = routesOf(result.objects);
  t.deepEqual(route?.spec?.rules?.map((r) => r.timeouts), [{ backendRequest: '30s' }]);
  const ids = result.report.ingresses[0]?.paths[0]?.differences.map((d) => d.id) ?? [];
  t.true(ids.includes('proxy-read-timeout'));
  t.true(ids.includes('proxy-connect-timeout'), 'the connect timeout has no Gateway API field: still reported');
  t.false(ids.includes('proxy-send-timeout'));
});

test('source ranges and authentication become a RoutePolicy on the Ingress\'s HTTPRoutes, named in the report; an authentication that cannot be set up denies every client instead of opening the route', (t) => {
  const users = { kind: 'Secret', type: 'Opaque', metadata: { name: 'users', namespace: 'default' }, data: { auth: Buffer.from('alice:{SHA}KqYKj72gdPXGUqeMVjFl78OQGCA=\n').toString('base64') } } as Secret;
  const n = (name: string): string => `nginx.ingress.kubernetes.io/${name}`;
  const result = migrateIngresses(
    state(
      [
        ingress('guarded', { rules: [{ host: 'a.test', http: { paths: [path('/', 'web')] } }, { host: 'b.test', http: { paths: [path('/', 'web')] } }] }, {
          [n('whitelist-source-range')]: '10.0.0.0/8, 192.168.1.7',
          [n('denylist-source-range')]: '10.9.0.0/16',
          [n('auth-type')]: 'basic',
          [n('auth-secret')]: 'users',
          [n('auth-realm')]: 'Team area',
          [n('auth-url')]: 'http://authz.default.svc.cluster.local:80/verify',
          [n('auth-response-headers')]: 'X-Auth-User',
        }),
        ingress('elsewhere', { rules: [{ host: 'c.test', http: { paths: [path('/', 'web')] } }] }, { [n('auth-url')]: 'http://authz.other.svc/verify' }),
      ],
      [service('web'), service('authz')],
      [users],
    ),
    options,
  );
  const policies = result.objects.filter((o) => o.kind === 'RoutePolicy');
  t.deepEqual(
    policies.map((p) => ({ name: p.metadata.name, spec: p.spec })).sort((a, b) => (a.name < b.name ? 1 : -1)),
    [
      {
        name: 'guarded-policy',
        spec: {
          targetRefs: ['guarded-a-test', 'guarded-b-test'].map((name) => ({ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name })),
          sourceRanges: { allow: ['10.0.0.0/8', '192.168.1.7'], deny: ['10.9.0.0/16'] },
          basicAuth: { secretRef: { name: 'users' }, realm: 'Team area' },
          externalAuth: { backendRef: { name: 'authz', port: 80 }, path: '/verify', responseHeaders: ['x-auth-user'] },
        },
      },
      { name: 'elsewhere-policy', spec: { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'elsewhere' }], sourceRanges: { deny: ['0.0.0.0/0', '::/0'] } } },
    ],
  );
  const guarded = result.report.ingresses.find((i) => i.name === 'guarded');
  t.deepEqual(guarded?.paths.map((p) => [p.result, p.policy]), [['same', 'default/guarded-policy'], ['same', 'default/guarded-policy']]);
  const elsewhere = result.report.ingresses.find((i) => i.name === 'elsewhere');
  t.deepEqual(elsewhere?.paths.flatMap((p) => p.differences.map((d) => d.id)), ['auth-url']);
});

test('cookie affinity becomes the RoutePolicy sessionAffinity (session-cookie-* as the nginx layer reads them)', (t) => {
  const n = (name: string): string => `nginx.ingress.kubernetes.io/${name}`;
  const result = migrateIngresses(
    state([ingress('sticky', { rules: [{ host: 's.test', http: { paths: [path('/app', 'web')] } }] }, { [n('affinity')]: 'cookie', [n('session-cookie-name')]: 'SERVERID', [n('session-cookie-max-age')]: '172800', [n('session-cookie-samesite')]: 'bogus' })], [service('web')]),
    options,
  );
  const policy = result.objects.find((o) => o.kind === 'RoutePolicy');
  // The invalid samesite is left out on both sides.
  t.deepEqual(policy?.spec, { targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'sticky' }], sessionAffinity: { cookie: { name: 'SERVERID', maxAgeSeconds: 172800 } } });
  t.deepEqual(result.report.ingresses[0]?.paths.map((p) => [p.result, p.policy]), [['same', 'default/sticky-policy']]);
});

test('gRPC paths of an Ingress with source ranges, basic auth and affinity are a GRPCRoute the RoutePolicy targets, nothing reported of backend-protocol or route-policy', (t) => {
  const n = (name: string): string => `nginx.ingress.kubernetes.io/${name}`;
  const users: Secret = { kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, type: 'Opaque', data: { auth: Buffer.from('alice:{SHA}x\n').toString('base64') } } as Secret;
  const annotations = { [n('backend-protocol')]: 'GRPC', [n('whitelist-source-range')]: '10.0.0.0/8', [n('auth-type')]: 'basic', [n('auth-secret')]: 'users', [n('affinity')]: 'cookie' };
  const result = migrateIngresses(
    { ...state([ingress('grpc', { rules: [{ host: 'g.test', http: { paths: [path('/', 'web'), path('/pkg.Echo', 'web'), path('/pkg.Files/', 'web', 'ImplementationSpecific')] } }] }, annotations)], [service('web')]), secrets: [users] },
    options,
  );
  t.deepEqual(result.objects.filter((o) => o.kind === 'GRPCRoute').map((o) => o.metadata.name), ['grpc-grpc']);
  const policy = result.objects.find((o) => o.kind === 'RoutePolicy');
  t.deepEqual((policy?.spec as { targetRefs: unknown[] }).targetRefs, [{ group: 'gateway.networking.k8s.io', kind: 'GRPCRoute', name: 'grpc-grpc' }]);
  const paths = result.report.ingresses[0]?.paths ?? [];
  t.deepEqual(paths.map((p) => [p.path, p.route, p.policy]), [['/', 'default/grpc-grpc', 'default/grpc-policy'], ['/pkg.Echo', 'default/grpc-grpc', 'default/grpc-policy'], ['/pkg.Files/', 'default/grpc-grpc', 'default/grpc-policy']]);
  t.deepEqual(paths.flatMap((p) => p.differences.map((d) => d.id)).filter((id) => id === 'backend-protocol' || id === 'route-policy'), []);
  // The one path whose cookie Path differs (the rule's method match /pkg.Files, nginx's /pkg.Files/ as written).
  t.deepEqual(paths.map((p) => p.differences.some((d) => d.id === 'session-cookie-path')), [false, false, true]);
});

test("this controller's own annotations migrate does not carry are named on every path; the https redirects are carried", (t) => {
  const annotated = ingress('own', { rules: [{ host: 'own.test', http: { paths: [path('/', 'web'), path('/api', 'web')] } }] }, {
    'envoy-ingress.io/request-timeout': '5s',
    'envoy-ingress.io/cors-allow-origins': 'https://a.test',
    'envoy-ingress.io/ssl-redirect': 'false',
  });
  const result = migrateIngresses(state([annotated], [service('web')]), { ...options, classes: { ...options.classes, nginxAnnotations: false } });
  for (const reported of result.report.ingresses[0]?.paths ?? []) {
    t.is(reported.result, 'different');
    t.deepEqual(reported.differences.filter((d) => d.id === 'own-annotation').map((d) => d.message.split(' ')[0]), ['envoy-ingress.io/cors-allow-origins', 'envoy-ingress.io/request-timeout']);
  }
  const plain = migrateIngresses(state([ingress('plain', { rules: [{ host: 'own.test', http: { paths: [path('/', 'web')] } }] }, { 'envoy-ingress.io/ssl-redirect': 'false' })], [service('web')]), options);
  t.deepEqual(plain.report.ingresses[0]?.paths.map((p) => p.result), ['same']);
});
