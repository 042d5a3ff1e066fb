// ssl-passthrough, default-backend and custom-http-errors through translate(): what each changes in the IR, and
// that nothing changes without the opt-in. (testdata/translate/nginx-edge is the golden; the e2e test shows Envoy.)
import test from 'ava';
import { buildConfig } from '../../../pipeline/build-config.js';
import { explain } from '../../../explain.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ClusterState, EndpointSlice, Ingress, Secret, Service } from '../../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { translate } from '../../translate.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { mapNginxAnnotations } from './nginx-annotations.js';
import { errorPagesHost, parseStatuses } from './nginx-default-backend.js';
import { nginxEdgeAnnotations } from './nginx-edge.js';
import { ingressHttpTableOf, ingressListenersOf, ingressTlsServersOf } from '../ingress-listeners.js';

const nginx = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));

function service(name: string, ports: { port: number; protocol?: string }[] = [{ port: 80 }]): Service {
  return { kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: ports.map((p, i) => ({ name: `p${i}`, ...p })) } };
}

function slice(serviceName: string): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: { name: `${serviceName}-1`, namespace: 'default', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    ports: [{ name: 'p0', port: 8080 }],
    endpoints: [{ addresses: ['10.0.0.1'] }],
  };
}

function ing(
  name: string,
  annotations: Record<string, string>,
  rules: { host?: string; paths: [string, string][] }[],
  extra: Partial<NonNullable<Ingress['spec']>> = {},
  created = '2024-01-01T00:00:00Z',
): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations, creationTimestamp: created },
    spec: {
      ingressClassName: 'envoy-ingress',
      ...extra,
      rules: rules.map((r) => ({
        ...(r.host === undefined ? {} : { host: r.host }),
        http: { paths: r.paths.map(([path, svc]) => ({ path, pathType: 'Prefix', backend: { service: { name: svc, port: { number: 80 } } } })) },
      })),
    },
  };
}

function state(ingresses: Ingress[], extra: { services?: Service[]; secrets?: Secret[] } = {}): ClusterState {
  const services = extra.services ?? [service('web'), service('secure'), service('errors', [{ port: 53, protocol: 'UDP' }, { port: 8080 }])];
  return {
    ingresses,
    ingressClasses: [{ kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } }],
    services,
    endpointSlices: services.map((s) => slice(s.metadata.name)),
    endpoints: [],
    secrets: extra.secrets ?? [],
  };
}

// The catch-all's default backend comes from the operator's namespace (tenant-default-backends.ts).
const on: TranslateOptions = { ...defaultTranslateOptions, nginxAnnotations: true, defaultBackendNamespace: 'default' };
const off = { ...defaultTranslateOptions, nginxAnnotations: false };

const samples: Record<string, Record<string, string>> = {
  'ssl-passthrough': { 'ssl-passthrough': 'true' },
  'default-backend': { 'default-backend': 'errors' },
  'custom-http-errors': { 'default-backend': 'errors', 'custom-http-errors': '503' },
  'disable-proxy-intercept-errors': { 'default-backend': 'errors', 'custom-http-errors': '503', 'disable-proxy-intercept-errors': 'true' },
};

for (const name of nginxEdgeAnnotations) {
  test(`${name} changes what is served with --nginx-annotations, and nothing without`, (t) => {
    const sample = samples[name] as Record<string, string>;
    const without = Object.fromEntries(Object.entries(sample).filter(([k]) => k !== name));
    const build = (values: Record<string, string>, options = on) => translate(state([ing('app', nginx(values), [{ host: 'app.test', paths: [['/', 'web']] }])]), options);
    const withIt = build(sample);
    t.deepEqual(withIt.diagnostics, []);
    t.notDeepEqual(withIt.ir, build(without).ir);
    t.deepEqual(build(sample, off).ir, translate(state([ing('app', {}, [{ host: 'app.test', paths: [['/', 'web']] }])]), off).ir);
  });
}

test('ssl-passthrough: the "/" path\'s backend takes the host\'s TLS connections; other backends are reported', (t) => {
  const { ir, diagnostics } = translate(state([ing('pass', nginx({ 'ssl-passthrough': 'true' }), [{ host: 'pass.test', paths: [['/api', 'web'], ['/', 'secure']] }])]), on);
  t.deepEqual(ingressListenersOf(ir).https?.tlsPassthrough, [{ name: 'passthrough/pass.test', serverNames: ['pass.test'], cluster: 'default/secure/80~tls-passthrough' }]);
  t.true(ir.clusters.some((c) => c.name === 'default/secure/80~tls-passthrough' && c.service.name === 'secure'));
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.SslPassthroughPathsIgnored]);
  t.regex(diagnostics[0]?.message ?? '', /all go to secure:80 .*\/api \(web:80\)/);
  // Plain HTTP still has both routes.
  const vhost = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'pass.test');
  t.deepEqual(vhost?.routes.map((r) => r.match.path), ['/api', '/', '/']);
});

test('ssl-passthrough: without a "/" path the first path decides; the host gets no terminating chain', (t) => {
  const secret: Secret = { kind: 'Secret', metadata: { name: 'x', namespace: 'default' }, type: 'kubernetes.io/tls', data: {} };
  const { ir } = translate(
    state([ing('pass', nginx({ 'ssl-passthrough': 'true' }), [{ host: 'pass.test', paths: [['/b', 'secure'], ['/a', 'web']] }], { tls: [{ hosts: ['pass.test'], secretName: 'x' }] })], { secrets: [secret] }),
    on,
  );
  t.is(ingressListenersOf(ir).https?.tlsPassthrough?.[0]?.cluster, 'default/secure/80~tls-passthrough');
  t.false(ingressTlsServersOf(ir).some((s) => s.serverNames.includes('pass.test')));
});

test('ssl-passthrough: an older Ingress serving the host decides; the newer one is refused', (t) => {
  const older = ing('older', {}, [{ host: 'h.test', paths: [['/', 'web']] }]);
  const newer = ing('newer', nginx({ 'ssl-passthrough': 'true' }), [{ host: 'h.test', paths: [['/x', 'secure']] }], {}, '2024-02-01T00:00:00Z');
  const { ir, diagnostics } = translate(state([newer, older]), on);
  t.is(ingressListenersOf(ir).https?.tlsPassthrough, undefined);
  t.deepEqual(diagnostics.map((d) => [d.object.name, d.reason]), [['newer', Reason.SslPassthroughConflict]]);
});

test('default-backend: forwarding routes get a fallback cluster to the first TCP port; unresolvable backends go to it', (t) => {
  const { ir, diagnostics } = translate(
    state([ing('shop', nginx({ 'default-backend': 'errors' }), [{ host: 'shop.test', paths: [['/', 'web'], ['/gone', 'missing']] }])]),
    on,
  );
  const routes = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'shop.test')?.routes ?? [];
  t.deepEqual(routes.map((r) => r.action), [
    { kind: 'forward', cluster: 'default/errors/8080' },
    { kind: 'forward', cluster: 'default/web/80~default-backend=default/errors/8080' },
    { kind: 'direct', status: 404, body: defaultTranslateOptions.notFoundPage, contentType: 'text/html' },
  ]);
  t.deepEqual(ir.fallbackClusters, [{ name: 'default/web/80~default-backend=default/errors/8080', clusters: ['default/web/80', 'default/errors/8080'] }]);
  t.deepEqual(ir.clusters.map((c) => c.name), ['default/errors/8080', 'default/web/80']);
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.ServiceNotFound]);
});

test('default-backend naming a missing Service or one without a TCP port is reported and changes nothing', (t) => {
  const plain = translate(state([ing('a', {}, [{ host: 'a.test', paths: [['/', 'web']] }])]), on).ir;
  const missing = translate(state([ing('a', nginx({ 'default-backend': 'nope' }), [{ host: 'a.test', paths: [['/', 'web']] }])]), on);
  t.deepEqual(missing.ir, plain);
  t.deepEqual(missing.diagnostics.map((d) => d.reason), [Reason.ServiceNotFound]);
  const udp = state([ing('a', nginx({ 'default-backend': 'dns' }), [{ host: 'a.test', paths: [['/', 'web']] }])], { services: [service('web'), service('dns', [{ port: 53, protocol: 'UDP' }])] });
  const noPort = translate(udp, on);
  t.deepEqual(noPort.diagnostics.map((d) => d.reason), [Reason.ServicePortNotFound]);
  t.is(noPort.ir.fallbackClusters, undefined);
});

test('custom-http-errors: error pages go to the annotation\'s default backend, else the spec.defaultBackend', (t) => {
  const own = translate(state([ing('a', nginx({ 'default-backend': 'errors', 'custom-http-errors': '503,404' }), [{ host: 'a.test', paths: [['/', 'web']] }])]), on).ir;
  const route = ingressHttpTableOf(own).virtualHosts.find((v) => v.name === 'a.test')?.routes[0];
  t.deepEqual(route?.policy?.errorPages, {
    statuses: [404, 503],
    host: errorPagesHost,
    path: '/default/errors/8080',
    headers: [
      { name: 'X-Namespace', value: 'default' },
      { name: 'X-Ingress-Name', value: 'a' },
      { name: 'X-Service-Name', value: 'web' },
      { name: 'X-Service-Port', value: '80' },
    ],
  });
  const pages = ingressHttpTableOf(own).virtualHosts.find((v) => v.name === errorPagesHost);
  t.deepEqual(pages?.routes[0]?.action, { kind: 'forward', cluster: 'default/errors/8080' });
  t.deepEqual(pages?.routes[0]?.policy, { rewrite: { kind: 'regex', pattern: '^.*$', substitution: '/' }, hostRewriteFromHeader: 'x-forwarded-host' });

  const global = ing('catch-all', {}, [], { defaultBackend: { service: { name: 'secure', port: { number: 80 } } } });
  const viaGlobal = translate(state([global, ing('b', nginx({ 'custom-http-errors': '502' }), [{ host: 'b.test', paths: [['/', 'web']] }])]), on);
  t.deepEqual(viaGlobal.diagnostics, []);
  t.is(ingressHttpTableOf(viaGlobal.ir).virtualHosts.find((v) => v.name === 'b.test')?.routes[0]?.policy?.errorPages?.path, '/default/secure/80');

  const none = translate(state([ing('c', nginx({ 'custom-http-errors': '502' }), [{ host: 'c.test', paths: [['/', 'web']] }])]), on);
  t.deepEqual(none.diagnostics.map((d) => d.reason), [Reason.CustomHttpErrorsWithoutBackend]);
  t.is(ingressHttpTableOf(none.ir).virtualHosts.find((v) => v.name === errorPagesHost), undefined);
});

test('custom-http-errors statuses: a comma-separated list of 300-599, sorted without duplicates', (t) => {
  t.deepEqual(parseStatuses(' 503, 404,404 '), [404, 503]);
  t.deepEqual(parseStatuses('300,599'), [300, 599]);
  for (const bad of ['', '200', '600', '404,', 'abc', '40x', '404;503']) t.is(parseStatuses(bad), undefined, bad);
});

test('unreadable values are reported by the nginx layer (what migrate-check shows) and ignored', (t) => {
  const ingress = ing('x', nginx({ 'ssl-passthrough': 'yes', 'default-backend': 'other/errors', 'custom-http-errors': '200' }), [{ host: 'x.test', paths: [['/', 'web']] }]);
  const diagnostics: Diagnostic[] = [];
  mapNginxAnnotations(ingress, diagnostics);
  t.deepEqual(
    diagnostics.map((d) => [d.reason, d.message.split(' has invalid value')[0]]),
    [
      [Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}ssl-passthrough`],
      [Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}default-backend`],
      [Reason.InvalidAnnotation, `annotation ${nginxAnnotationPrefix}custom-http-errors`],
    ],
  );
  const { ir, diagnostics: all } = translate(state([ingress]), on);
  t.deepEqual(all.map((d) => d.reason), [Reason.InvalidAnnotation, Reason.InvalidAnnotation, Reason.InvalidAnnotation]);
  t.deepEqual(ir, translate(state([ing('x', {}, [{ host: 'x.test', paths: [['/', 'web']] }])]), on).ir);
});

test('ssl-passthrough: a tls entry without secretName for passed-through hosts is not reported; one with other hosts is', (t) => {
  const build = (hosts: string[]) =>
    translate(state([ing('p', nginx({ 'ssl-passthrough': 'true' }), [{ host: 'p.test', paths: [['/', 'secure']] }], { tls: [{ hosts }] })]), on).diagnostics;
  t.deepEqual(build(['p.test']), []);
  t.deepEqual(build(['p.test', 'other.test']).map((d) => d.reason), [Reason.UnsupportedTls]);
  const off = translate(state([ing('p', {}, [{ host: 'p.test', paths: [['/', 'secure']] }], { tls: [{ hosts: ['p.test'] }] })]), on).diagnostics;
  t.deepEqual(off.map((d) => d.reason), [Reason.UnsupportedTls]);
});

test('explain follows a default-backend fallback cluster to the cluster Envoy uses', (t) => {
  const build = (withEndpoints: boolean) => {
    const s = state([ing('shop', nginx({ 'default-backend': 'pages' }), [{ host: 'shop.test', paths: [['/', 'web']] }])], { services: [service('web'), service('pages', [{ port: 8080 }])] });
    const cut = { ...s, endpointSlices: withEndpoints ? s.endpointSlices : s.endpointSlices.filter((e) => e.metadata.name !== 'web-1') };
    const built = buildConfig(cut, { translate: on, envoy: { listenAddress: '0.0.0.0', httpPort: 80, httpsPort: 443 } });
    const input = { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics };
    return explain(input, { host: 'shop.test', path: '/x' });
  };
  const up = build(true);
  t.is(up.response.kind === 'forward' ? up.response.service?.name : undefined, 'web');
  const down = build(false);
  t.is(down.status, null);
  t.is(down.response.kind === 'forward' ? down.response.service?.name : undefined, 'pages');
  t.regex(down.verdict, /Service default\/pages port 8080 -> 1 ready endpoint/);
});

test('a default-backend Service is a reference (its creation rebuilds), even before it exists', (t) => {
  const { references } = translate(state([ing('a', nginx({ 'default-backend': 'later' }), [{ host: 'a.test', paths: [['/', 'web']] }])]), on);
  t.deepEqual(references.services, ['default/later', 'default/web']);
  const without = translate(state([ing('a', nginx({ 'default-backend': 'later' }), [{ host: 'a.test', paths: [['/', 'web']] }])]), off);
  t.deepEqual(without.references.services, ['default/web']);
});

test('disable-proxy-intercept-errors: only the proxy\'s own errors get the error pages; a missing Service goes to the default backend with what ingress-nginx tells it', (t) => {
  const values = { 'default-backend': 'errors', 'custom-http-errors': '503', 'disable-proxy-intercept-errors': 'true' };
  const { ir } = translate(state([ing('app', nginx(values), [{ host: 'app.test', paths: [['/', 'web'], ['/gone', 'missing']] }])]), on);
  const routes = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'app.test')?.routes ?? [];
  t.is(routes.find((r) => r.match.path === '/')?.policy?.errorPages?.proxyErrorsOnly, true);
  t.deepEqual(routes.find((r) => r.match.path === '/gone')?.policy?.defaultBackendHeaders, [
    { name: 'X-Namespace', value: 'default' },
    { name: 'X-Ingress-Name', value: 'app' },
    { name: 'X-Service-Name', value: 'missing' },
    { name: 'X-Service-Port', value: '80' },
  ]);
});
