import type { RouteIR, VirtualHostIR } from '../../../../ir/index.js';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { clusterStateFromYaml } from '../../shared/cluster-state-yaml.js';
import { explain, formatExplanation } from '../../../explain.js';
import { objectsBehind } from '../../../objects-behind.js';
import { ObjectStore } from '../../../store.js';
import { routeRows } from '../../../../cli/status-page.js';
import type { Diagnostic } from '../../shared/diagnostics.js';
import type { ClusterState, Ingress, Service } from '../../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { translate } from '../../translate.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { cookieHeaderMatch, headerPatternRegex, isRe2, parseGoBool } from './nginx-canary-values.js';
import { mapNginxAnnotations } from './nginx-annotations.js';
import { isNginxCanary, readNginxCanary } from './nginx-canary.js';
import { ingressHttpTableOf, ingressHttpsTableOf, ingressTlsServersOf } from '../ingress-listeners.js';
import { isHttpsRedirect } from '../https-redirect.js';

const nginxOn: TranslateOptions = { ...defaultTranslateOptions, nginxAnnotations: true };
const ourClass = { kind: 'IngressClass' as const, metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } };
const service = (name: string): Service => ({ kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });

const nginx = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));

function ingress(name: string, svc: string, annotations: Record<string, string>, opts: { host?: string; path?: string; pathType?: string; age?: number } = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, opts.age ?? 0)).toISOString() },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [{ host: opts.host ?? 'app.test', http: { paths: [{ path: opts.path ?? '/', pathType: opts.pathType ?? 'Prefix', backend: { service: { name: svc, port: { number: 80 } } } }] } }],
    },
  };
}

function state(ingresses: Ingress[]): ClusterState {
  return { ingresses, ingressClasses: [ourClass], services: ['web', 'web-v2', 'web-v3'].map(service), endpointSlices: [], endpoints: [], secrets: [] };
}

function vhost(result: ReturnType<typeof translate>, host = 'app.test'): VirtualHostIR {
  const found = ingressHttpTableOf(result.ir).virtualHosts.find((v) => v.name === host);
  if (found === undefined) throw new Error(`no virtual host ${host}`);
  return found;
}

/** Route names without the common prefix, with their header conditions and target. */
function summary(routes: readonly RouteIR[]): string[] {
  return routes.map((r) => {
    const headers = (r.headers ?? []).map((h) => ` [${h.name} ${h.kind} ${h.value}]`).join('');
    const a = r.action;
    const target = a.kind === 'forward' ? `${a.cluster}${(a.split?.backends ?? []).map((b) => ` + ${b.weight}/${a.split?.totalWeight} ${b.cluster}`).join('')}` : a.kind;
    return `${r.name.replace('ingress/default/', '')}${headers} -> ${target}`;
  });
}

const main = ingress('main', 'web', {}, { age: 0 });

test('header, cookie and weight: extra routes before the main route in ingress-nginx precedence, a split on it', (t) => {
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'canary', 'canary-weight': '20' }), { age: 1 });
  const result = translate(state([canary, main]), nginxOn);
  t.deepEqual(result.diagnostics, []);
  t.deepEqual(summary(vhost(result).routes), [
    'main/rule/0/path/0/canary/header-always [x-canary exact always] -> default/web-v2/80',
    'main/rule/0/path/0/canary/header-never [x-canary exact never] -> default/web/80',
    `main/rule/0/path/0/canary/cookie-always [cookie regex ${cookieHeaderMatch('canary', 'always').value}] -> default/web-v2/80`,
    `main/rule/0/path/0/canary/cookie-never [cookie regex ${cookieHeaderMatch('canary', 'never').value}] -> default/web/80`,
    'main/rule/0/path/0 -> default/web/80 + 20/100 default/web-v2/80',
    'fallback -> direct',
  ]);
  t.deepEqual(result.ir.clusters.map((c) => c.name), ['default/web-v2/80', 'default/web/80']);
  t.deepEqual(result.servedIngresses.map((r) => r.name), ['canary', 'main'], 'the canary still gets its status');
  t.deepEqual(result.references.services, ['default/web', 'default/web-v2'], "events about the canary's Service rebuild");
});

test('canary-by-header-value and -pattern: one route to the canary; value wins over pattern', (t) => {
  const byValue = translate(state([main, ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Region', 'canary-by-header-value': 'eu west' }), { age: 1 })]), nginxOn);
  t.deepEqual(summary(vhost(byValue).routes).slice(0, 2), ['main/rule/0/path/0/canary/header-value [x-region exact eu west] -> default/web-v2/80', 'main/rule/0/path/0 -> default/web/80']);
  const byPattern = translate(state([main, ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Region', 'canary-by-header-pattern': '^eu-(west|north)$' }), { age: 1 })]), nginxOn);
  t.deepEqual(summary(vhost(byPattern).routes).slice(0, 1), ['main/rule/0/path/0/canary/header-pattern [x-region regex .*(?:^eu-(west|north)$).*] -> default/web-v2/80']);
  const both = translate(
    state([main, ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Region', 'canary-by-header-value': 'eu', 'canary-by-header-pattern': 'x' }), { age: 1 })]),
    nginxOn,
  );
  t.is(vhost(both).routes[0]?.headers?.[0]?.kind, 'exact');
  t.deepEqual(both.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  t.regex(both.diagnostics[0]?.message ?? '', /canary-by-header-pattern ignored/);
});

test('the canary inherits the main route: its policy and its cluster settings', (t) => {
  const annotatedMain = ingress('main', 'web', nginx({ 'backend-protocol': 'GRPC', 'proxy-read-timeout': '7' }));
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Canary', 'canary-weight': '5', 'proxy-read-timeout': '99' }), { age: 1 });
  const result = translate(state([annotatedMain, canary]), nginxOn);
  const routes = vhost(result).routes;
  t.deepEqual(summary(routes).slice(0, 3), [
    'main/rule/0/path/0/canary/header-always [x-canary exact always] -> default/web-v2/80~h2c',
    'main/rule/0/path/0/canary/header-never [x-canary exact never] -> default/web/80~h2c',
    'main/rule/0/path/0 -> default/web/80~h2c + 5/100 default/web-v2/80~h2c',
  ]);
  t.true(routes.slice(0, 3).every((r) => r.policy?.idleTimeoutMs === 7000), "the main Ingress's timeout, not the canary's");
  t.is(result.ir.clusters.find((c) => c.name === 'default/web-v2/80~h2c')?.protocol, 'http2');
  t.deepEqual(result.diagnostics.map((d) => [d.object.name, d.reason]), [['canary', Reason.NginxCanaryAnnotationsIgnored]]);
  t.regex(result.diagnostics[0]?.message ?? '', /ignored: nginx\.ingress\.kubernetes\.io\/proxy-read-timeout$/);
});

test('weight: 0 adds no split, the total may be raised, a weight of the whole total takes everything', (t) => {
  const split = (values: Record<string, string>) => {
    const result = translate(state([main, ingress('canary', 'web-v2', nginx({ canary: 'true', ...values }), { age: 1 })]), nginxOn);
    const action = vhost(result).routes.find((r) => r.name.endsWith('/rule/0/path/0'))?.action;
    return { split: action?.kind === 'forward' ? action.split : 'not forward', reasons: result.diagnostics.map((d) => d.reason) };
  };
  t.deepEqual(split({ 'canary-weight': '0' }), { split: undefined, reasons: [] });
  t.deepEqual(split({}), { split: undefined, reasons: [] });
  t.deepEqual(split({ 'canary-weight': '100' }), { split: { backends: [{ cluster: 'default/web-v2/80', weight: 100 }], totalWeight: 100 }, reasons: [] });
  t.deepEqual(split({ 'canary-weight': '25', 'canary-weight-total': '1000' }), { split: { backends: [{ cluster: 'default/web-v2/80', weight: 25 }], totalWeight: 1000 }, reasons: [] });
  // Invalid values: reported, and the safe reading (nothing by weight; total 100, as ingress-nginx does below 100).
  t.deepEqual(split({ 'canary-weight': '101' }), { split: undefined, reasons: [Reason.InvalidAnnotation] });
  t.deepEqual(split({ 'canary-weight': '-5' }), { split: undefined, reasons: [Reason.InvalidAnnotation] });
  t.deepEqual(split({ 'canary-weight': '12.5' }), { split: undefined, reasons: [Reason.InvalidAnnotation] });
  t.deepEqual(split({ 'canary-weight': '10', 'canary-weight-total': '50' }), { split: { backends: [{ cluster: 'default/web-v2/80', weight: 10 }], totalWeight: 100 }, reasons: [Reason.InvalidAnnotation] });
});

test('a canary without a main route, a second canary, a canary of the main backend: reported, the main route unchanged', (t) => {
  const plain = summary(vhost(translate(state([main]), nginxOn)).routes);
  const orphan = ingress('orphan', 'web-v2', nginx({ canary: 'true', 'canary-weight': '50' }), { path: '/other', age: 1 });
  const otherType = ingress('exact', 'web-v2', nginx({ canary: 'true', 'canary-weight': '50' }), { pathType: 'Exact', age: 2 });
  const otherHost = ingress('elsewhere', 'web-v2', nginx({ canary: 'true', 'canary-weight': '50' }), { host: 'nobody.test', age: 3 });
  const first = ingress('first', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-A' }), { age: 4 });
  const second = ingress('second', 'web-v3', nginx({ canary: 'true', 'canary-weight': '50' }), { age: 5 });
  const self = ingress('self', 'web', nginx({ canary: 'true', 'canary-weight': '50' }), { host: 'self.test', age: 6 });
  const selfMain = ingress('self-main', 'web', {}, { host: 'self.test', age: 0 });
  const missing = ingress('missing', 'nope', nginx({ canary: 'true', 'canary-weight': '50' }), { host: 'self.test', age: 7 });
  const result = translate(state([main, orphan, otherType, otherHost, first, second, self, selfMain, missing]), nginxOn);
  t.deepEqual(
    result.diagnostics.map((d) => [d.object.name, d.reason]),
    [
      ['elsewhere', Reason.NginxCanaryWithoutMain],
      ['exact', Reason.NginxCanaryWithoutMain],
      ['missing', Reason.ServiceNotFound],
      ['orphan', Reason.NginxCanaryWithoutMain],
      ['second', Reason.NginxCanaryConflict],
      ['self', Reason.NginxCanaryConflict],
    ],
  );
  t.regex(result.diagnostics.find((d) => d.object.name === 'second')?.message ?? '', /already has the canary Ingress default\/first/);
  // Only the first canary's header routes were added; no canary made a route of its own anywhere.
  t.deepEqual(summary(vhost(result).routes), [
    'main/rule/0/path/0/canary/header-always [x-a exact always] -> default/web-v2/80',
    'main/rule/0/path/0/canary/header-never [x-a exact never] -> default/web/80',
    ...plain,
  ]);
  t.deepEqual(summary(vhost(result, 'self.test').routes), ['self-main/rule/0/path/0 -> default/web/80', 'fallback -> direct']);
  t.false(ingressHttpTableOf(result.ir).virtualHosts.some((v) => v.name === 'nobody.test'));
  t.false(result.ir.clusters.some((c) => c.name === 'default/web-v3/80'));
});

test('canary-* without canary "true" do nothing and are reported; without --nginx-annotations the canary is an ordinary Ingress', (t) => {
  const notEnabled = translate(state([main, ingress('late', 'web-v2', nginx({ 'canary-weight': '50', canary: 'false' }), { path: '/v2', age: 1 })]), nginxOn);
  t.deepEqual(notEnabled.diagnostics.map((d) => [d.reason, d.message.replace(nginxAnnotationPrefix, '')]), [
    [Reason.InvalidAnnotation, 'annotation canary-weight ignored: it needs nginx.ingress.kubernetes.io/canary "true" (configured but not enabled)'],
  ]);
  t.true(vhost(notEnabled).routes.some((r) => r.name === 'ingress/default/late/rule/0/path/0'), 'served as an ordinary Ingress');
  const off = translate(state([main, ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-weight': '50' }), { age: 1 })]), defaultTranslateOptions);
  t.deepEqual(off.diagnostics.map((d) => d.reason), [Reason.RuleConflict]);
  t.deepEqual(summary(vhost(off).routes), ['main/rule/0/path/0 -> default/web/80', 'fallback -> direct']);
});

test('invalid canary values are reported each, the rest of the canary still applies', (t) => {
  const diagnostics: Diagnostic[] = [];
  const canary = ingress('canary', 'web-v2', {
    ...nginx({ canary: 'True', 'canary-by-header': 'bad header', 'canary-by-header-value': 'x', 'canary-by-cookie': 'a;b', 'canary-weight': '30', 'server-snippet': 'x' }),
    'envoy-ingress.io/request-timeout': '5s',
  });
  t.true(isNginxCanary(canary));
  const config = readNginxCanary(canary, diagnostics);
  t.deepEqual(config, { weight: 30, totalWeight: 100, affinityBehavior: 'sticky' });
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.NginxSnippetRefused, Reason.NginxCanaryAnnotationsIgnored, Reason.InvalidAnnotation, Reason.InvalidAnnotation]);
  t.regex(diagnostics[1]?.message ?? '', /ignored: envoy-ingress\.io\/request-timeout$/);
  // migrate-check reads the same verdicts through mapNginxAnnotations.
  const mapped: Diagnostic[] = [];
  t.deepEqual(mapNginxAnnotations(canary, mapped), { own: {} });
  t.deepEqual(mapped, diagnostics);
  const pattern = readNginxCanary(ingress('p', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-A', 'canary-by-header-pattern': '(?=a)b' })), diagnostics);
  t.is(pattern.header, undefined, 'a PCRE-only pattern routes nothing by header');
  // ingress-nginx refuses the characters `<` and `,` in a pattern: the pattern is then not set at all.
  const refused = readNginxCanary(ingress('p', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-A', 'canary-by-header-pattern': '(?<=a)b' })), diagnostics);
  t.deepEqual(refused.header, { name: 'x-a' });
  // A pattern no engine compiles: requests with the header go to the main backend (ngx.re.match fails).
  const broken = readNginxCanary(ingress('p', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-A', 'canary-by-header-pattern': '[][**da?$&*' })), diagnostics);
  t.deepEqual(broken.header, { name: 'x-a', brokenPattern: true });
});

test('values: Go booleans, RE2 header patterns, the Cookie regex', (t) => {
  t.deepEqual(['1', 't', 'TRUE', 'True', ' true ', '0', 'F', 'yes', ''].map(parseGoBool), [true, true, true, true, true, false, false, undefined, undefined]);
  t.deepEqual(headerPatternRegex('beta|gamma'), { valid: true, regex: '.*(?:beta|gamma).*' });
  for (const bad of ['(', '(?=x)', '\\1', 'a)|(b', '', '\\u0041']) t.false(headerPatternRegex(bad).valid, bad);
  t.true(isRe2(cookieHeaderMatch('Canary.v-1', 'always').value), 'Envoy runs it (RE2)');
  const always = new RegExp(cookieHeaderMatch('canary.v', 'always').value);
  // The name case-insensitively, blanks before "=" allowed (nginx's $cookie_NAME); the value exactly.
  for (const header of ['canary.v=always', 'a=1; canary.v=always', 'a=1;canary.v=always; b=2', 'canary.v=always ;x=y', 'Canary.V=always', 'a=1; CANARY.v =always']) {
    t.true(always.test(header), header);
  }
  for (const header of ['canary.v=alwaysx', 'xcanary.v=always', 'canaryxv=always', 'a=canary.v=always', 'canary.v=never', 'canary.v= always', 'canary.v=Always']) {
    t.false(always.test(header), header);
  }
});

test('explain: a request without the canary header passes the header routes; the main route names its canary split', (t) => {
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Canary', 'canary-weight': '20' }), { age: 1 });
  const result = translate(state([main, canary]), nginxOn);
  const e = explain({ ir: result.ir, endpoints: [{ cluster: 'default/web/80', endpoints: [{ address: '10.0.0.1', port: 8080 }] }], diagnostics: result.diagnostics }, { host: 'app.test', path: '/x' });
  t.is(e.route?.route, 'ingress/default/main/rule/0/path/0');
  t.deepEqual(e.routes.slice(0, 2).map((r) => r.outcome), ['no-match', 'no-match']);
  t.regex(e.routes[0]?.reason ?? "", /needs header x-canary = "always" and the request has no x-canary header \(a canary\)/);
  t.deepEqual(e.response.kind === 'forward' ? e.response.canary : undefined, { cluster: 'default/web-v2/80', service: { namespace: 'default', name: 'web-v2', port: 80 }, weight: 20, totalWeight: 100 });
  t.regex(e.verdict, /canary: 20 of every 100 requests go to Service default\/web-v2 port 80 instead/);
  t.regex(formatExplanation(e), /^canary: 20 of 100 requests to Service default\/web-v2 port 80 \(cluster default\/web-v2\/80\)$/m);
  // A NACK of the canary's cluster names the Ingress whose route uses it.
  t.deepEqual(objectsBehind(result.ir, 'cluster', ['default/web-v2/80']).map((r) => `${r.kind}/${r.name}`), ['Ingress/main', 'Service/web-v2']);
});

test('status page: the header conditions of canary routes and the canary share of the main route are shown', (t) => {
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-by-header': 'X-Canary', 'canary-weight': '20' }), { age: 1 });
  const rows = routeRows(translate(state([main, canary]), nginxOn).ir, new ObjectStore()).filter((r) => r.host === 'app.test');
  t.deepEqual(
    rows.map((r) => [r.match, r.target]),
    [
      ['Prefix / + x-canary = "always"', 'Service default/web-v2:80'],
      ['Prefix / + x-canary = "never"', 'Service default/web:80'],
      ['Prefix /', 'Service default/web:80 (canary 20/100: Service default/web-v2:80)'],
      ['Prefix /', '404 from Envoy'],
    ],
  );
});

test('over TLS the canary routes are the same (the HTTPS route table is a copy); plain HTTP redirects them with the rest', (t) => {
  const tlsCase = clusterStateFromYaml(readFileSync(new URL('../../../../../testdata/translate/tls-valid.in.yaml', import.meta.url), 'utf8')).state;
  const canary: Ingress = {
    kind: 'Ingress',
    metadata: { name: 'canary', namespace: 'default', annotations: nginx({ canary: 'true', 'canary-by-cookie': 'beta', 'canary-weight': '10' }), creationTimestamp: '2030-01-01T00:00:00Z' },
    spec: { ingressClassName: 'envoy-ingress', rules: [{ host: 'secure.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'api', port: { number: 80 } } } }] } }] },
  };
  const result = translate({ ...tlsCase, ingresses: [...tlsCase.ingresses, canary] }, nginxOn);
  t.deepEqual(result.diagnostics, []);
  const https = ingressHttpsTableOf(result.ir)?.virtualHosts.find((v) => v.name === 'secure.example.com');
  const routes = summary(https?.routes ?? []);
  t.deepEqual(routes.filter((r) => r.includes('/canary/') || r.includes('+ 10/100')).length, 3, routes.join('\n'));
  t.true(routes.some((r) => r.startsWith('secure/rule/0/path/0/canary/cookie-always [cookie regex') && r.endsWith('-> default/api/80')));
  t.true(routes.some((r) => r === 'secure/rule/0/path/0 -> default/web/80 + 10/100 default/api/80'));
  const http = ingressHttpTableOf(result.ir).virtualHosts.find((v) => v.name === 'secure.example.com');
  // ingress-nginx's redirect: exactly / goes to https://host, without a path (nginx-redirect.ts).
  t.true(http?.routes.every((r) => isHttpsRedirect(r.action) || (r.action.kind === 'direct' && r.action.headers?.[0]?.value === 'https://secure.example.com')));
});

test('a canary rule with an invalid host is reported and skipped, as any Ingress rule; the main route is unchanged', (t) => {
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-weight': '50' }), { age: 1, host: 'Bad_Host!' });
  const result = translate(state([main, canary]), nginxOn);
  t.deepEqual(
    result.diagnostics.map((d) => `${d.object.name} ${d.reason} ${d.message.replace(/^(rule 0: ).*(; rule skipped)$/, '$1…$2')}`),
    ['canary InvalidHost rule 0: …; rule skipped'],
  );
  t.deepEqual(summary(vhost(result).routes), ['main/rule/0/path/0 -> default/web/80', 'fallback -> direct']);
});

test('a canary joins only a main path with the same path and pathType as written (ingress-nginx), else it is reported and not served', (t) => {
  const weighted = nginx({ canary: 'true', 'canary-weight': '50' });
  const cases: { main: { path: string; pathType?: string }; canary: { path: string; pathType?: string }; joins: boolean; message?: RegExp }[] = [
    { main: { path: '/app', pathType: 'Prefix' }, canary: { path: '/app', pathType: 'Prefix' }, joins: true },
    { main: { path: '/app', pathType: 'ImplementationSpecific' }, canary: { path: '/app', pathType: 'ImplementationSpecific' }, joins: true },
    // Not the same location in ingress-nginx (and, with the nginx layer, not the same match here either: an
    // ImplementationSpecific path is a character prefix).
    { main: { path: '/app', pathType: 'Prefix' }, canary: { path: '/app', pathType: 'ImplementationSpecific' }, joins: false },
    { main: { path: '/app', pathType: 'ImplementationSpecific' }, canary: { path: '/app', pathType: 'Prefix' }, joins: false, message: /no main Ingress serves host app\.test Prefix \/app;/ },
    // Another path (/app/ is placed before /app, the spec's longest path), so no main route has it at all.
    { main: { path: '/app', pathType: 'Prefix' }, canary: { path: '/app/', pathType: 'Prefix' }, joins: false, message: /no main Ingress serves host app\.test Prefix \/app\// },
  ];
  for (const c of cases) {
    const label = `main ${c.main.pathType} ${c.main.path}, canary ${c.canary.pathType} ${c.canary.path}`;
    const result = translate(state([ingress('main', 'web', {}, { ...c.main, age: 0 }), ingress('canary', 'web-v2', weighted, { ...c.canary, age: 1 })]), nginxOn);
    const mainRoute = vhost(result).routes.find((r) => r.name === 'ingress/default/main/rule/0/path/0');
    const split = mainRoute?.action.kind === 'forward' ? mainRoute.action.split : undefined;
    const reported = result.diagnostics.filter((d) => d.reason === Reason.NginxCanaryWithoutMain && d.object.name === 'canary');
    if (c.joins) {
      t.like(split, { backends: [{ cluster: 'default/web-v2/80', weight: 50 }] }, label);
      t.deepEqual(reported, [], label);
    } else {
      t.is(split, undefined, label);
      t.is(reported.length, 1, label);
      t.regex(reported[0]?.message ?? '', c.message ?? /as in ingress-nginx a canary joins only the same path and pathType as written/, label);
    }
  }
});

test('an absent pathType is ImplementationSpecific for the comparison, as in ingress-nginx', (t) => {
  const withoutType = (name: string, svc: string, annotations: Record<string, string>, age: number): Ingress => {
    const i = ingress(name, svc, annotations, { path: '/app', age });
    delete (i.spec!.rules![0]!.http!.paths[0] as { pathType?: string }).pathType;
    return i;
  };
  const weighted = nginx({ canary: 'true', 'canary-weight': '50' });
  const joined = translate(state([withoutType('main', 'web', {}, 0), ingress('canary', 'web-v2', weighted, { path: '/app', pathType: 'ImplementationSpecific', age: 1 })]), nginxOn);
  const route = vhost(joined).routes.find((r) => r.name === 'ingress/default/main/rule/0/path/0');
  t.like(route?.action, { kind: 'forward', split: { backends: [{ cluster: 'default/web-v2/80' }] } });
});

test("a canary's spec.tls is ignored, as in ingress-nginx: no TLS server, no missing-Secret report", (t) => {
  const canary = ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-weight': '10' }), { age: 1 });
  canary.spec!.tls = [{ hosts: ['app.test'], secretName: 'canary-cert' }];
  const result = translate(state([main, canary]), nginxOn);
  t.deepEqual(ingressTlsServersOf(result.ir), []);
  t.false(result.diagnostics.some((d) => d.reason === Reason.SecretNotFound));
  // The canary itself still joins.
  t.like(vhost(result).routes.find((r) => r.name === 'ingress/default/main/rule/0/path/0')?.action, { kind: 'forward', split: { backends: [{ weight: 10 }] } });
});

test("a canary's balancer: the main Ingress's with a sticky affinity cookie, else its own load-balance, as ingress-nginx keeps the canary upstream's", (t) => {
  const clusterOf = (mainValues: Record<string, string>, canaryValues: Record<string, string>): { name: string; loadBalancer?: string; routes: string[] } => {
    const result = translate(
      state([ingress('main', 'web', nginx(mainValues), { age: 0 }), ingress('canary', 'web-v2', nginx({ canary: 'true', 'canary-weight': '10', ...canaryValues }), { age: 1 })]),
      nginxOn,
    );
    const split = vhost(result).routes.find((r) => r.action.kind === 'forward' && r.action.split !== undefined)?.action;
    const name = split?.kind === 'forward' ? (split.split?.backends[0]?.cluster ?? '') : '';
    const cluster = result.ir.clusters.find((c) => c.name === name);
    return { name, ...(cluster?.loadBalancer === undefined ? {} : { loadBalancer: cluster.loadBalancer }), routes: summary(vhost(result).routes) };
  };
  // Sticky (the default): the cookie's key picks the canary's endpoint too; both sides pin their clients.
  const sticky = clusterOf({ affinity: 'cookie' }, {});
  t.is(sticky.loadBalancer, 'ring-hash');
  t.is(sticky.routes.filter((r) => r.includes('/canary/affinity-')).length, 2);
  // Legacy: round robin, and only the main side pins its clients.
  const legacy = clusterOf({ affinity: 'cookie' }, { 'affinity-canary-behavior': 'legacy' });
  t.is(legacy.loadBalancer, undefined);
  t.deepEqual(legacy.routes.filter((r) => r.includes('/canary/affinity-')).map((r) => r.replace(/ \[.*$/, '')), ['main/rule/0/path/0/canary/affinity-main']);
  // The main Ingress's upstream-hash-by or load-balance are not the canary's; its own load-balance is.
  t.is(clusterOf({ 'upstream-hash-by': '$request_uri' }, {}).loadBalancer, undefined);
  t.is(clusterOf({ 'load-balance': 'ewma' }, {}).loadBalancer, undefined);
  t.is(clusterOf({}, { 'load-balance': 'ewma' }).loadBalancer, 'least-request');
});
