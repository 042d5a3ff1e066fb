import type { RouteIR, VirtualHostIR } from '../../../../ir/index.js';
import test from 'ava';
import type { ClusterState, Ingress, Service } from '../../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../../shared/options.js';
import { Reason } from '../../shared/reasons.js';
import { explain } from '../../../explain.js';
import { translate } from '../../translate.js';
import { nginxAnnotationPrefix } from './catalog.js';
import { migrationReport } from './migration-report.js';
import { mapNginxAnnotations, mappedNginxAnnotations } from './nginx-annotations.js';
import { ingressHttpTableOf } from '../ingress-listeners.js';

const nginxOn: TranslateOptions = { ...defaultTranslateOptions, nginxAnnotations: true };
const ourClass = { kind: 'IngressClass' as const, metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } };
const service = (name: string): Service => ({ kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });

const nginx = (values: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`${nginxAnnotationPrefix}${k}`, v]));

interface PathSpec {
  path: string;
  pathType?: string;
}

function ingress(name: string, annotations: Record<string, string>, paths: PathSpec[], opts: { host?: string; age?: number; service?: string } = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, opts.age ?? 0)).toISOString() },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [
        {
          host: opts.host ?? 'app.test',
          http: { paths: paths.map((p) => ({ path: p.path, pathType: p.pathType ?? 'ImplementationSpecific', backend: { service: { name: opts.service ?? 'web', port: { number: 80 } } } })) },
        },
      ],
    },
  };
}

function state(ingresses: Ingress[]): ClusterState {
  return { ingresses, ingressClasses: [ourClass], services: [service('web')], endpointSlices: [], endpoints: [], secrets: [] };
}

function vhost(result: ReturnType<typeof translate>, host = 'app.test'): VirtualHostIR {
  const found = ingressHttpTableOf(result.ir).virtualHosts.find((v) => v.name === host);
  if (found === undefined) throw new Error(`no virtual host ${host}`);
  return found;
}

function summary(routes: readonly RouteIR[]): string[] {
  return routes.map((r) => `${r.name.replace('ingress/default/', '')} ${r.match.kind} ${r.match.kind === 'regex' ? r.match.regex : r.match.path}`);
}

test('use-regex makes every path of the Ingress a case-insensitive regex anchored at the start, whatever its pathType', (t) => {
  const result = translate(
    state([ingress('re', nginx({ 'use-regex': 'true' }), [{ path: '/foo/bar/[A-Z0-9]{3}' }, { path: '/foo/bar/bar', pathType: 'Exact' }, { path: '/v1', pathType: 'Prefix' }])]),
    nginxOn,
  );
  t.deepEqual(result.diagnostics, []);
  // ingress-nginx's documented example: longest path first, so /foo/bar/bar goes to the [A-Z0-9]{3} location.
  t.deepEqual(summary(vhost(result).routes), [
    're/rule/0/path/0 regex (?i)^(?:/foo/bar/[A-Z0-9]{3}).*',
    're/rule/0/path/1 regex (?i)^(?:/foo/bar/bar).*',
    're/rule/0/path/2 regex (?i)^(?:/v1).*',
    'fallback prefix /',
  ]);
});

test('without use-regex (or with "false") paths keep their Ingress meaning, even when they look like regexes', (t) => {
  const off = translate(state([ingress('plain', nginx({ 'use-regex': 'false' }), [{ path: '/v1', pathType: 'Prefix' }])]), nginxOn);
  t.deepEqual(summary(vhost(off).routes), ['plain/rule/0/path/0 prefix /v1', 'fallback prefix /']);
  const disabled = translate(state([ingress('plain', nginx({ 'use-regex': 'true' }), [{ path: '/v1', pathType: 'Prefix' }])]), defaultTranslateOptions);
  t.deepEqual(summary(vhost(disabled).routes), ['plain/rule/0/path/0 prefix /v1', 'fallback prefix /']);
});

test('use-regex on one Ingress makes every path of the host a regex, other Ingresses\' too (ingress-nginx enforceRegexModifier)', (t) => {
  const result = translate(
    state([
      ingress('re', nginx({ 'use-regex': 'true' }), [{ path: '/api/.*' }, { path: '/a' }]),
      ingress('plain', {}, [{ path: '/api/v1', pathType: 'Prefix' }, { path: '/health', pathType: 'Exact' }, { path: '/b/' }], { age: 1 }),
      // Another host of the same Ingress name: untouched.
      ingress('other', {}, [{ path: '/api/v1', pathType: 'Prefix' }], { age: 2, host: 'other.test' }),
    ]),
    nginxOn,
  );
  t.deepEqual(result.diagnostics, []);
  // By length of the path as written, then by path descending (ingress-nginx's two stable sorts).
  t.deepEqual(summary(vhost(result).routes), [
    'plain/rule/0/path/1 regex (?i)^(?:/health).*',
    'plain/rule/0/path/0 regex (?i)^(?:/api/v1).*',
    're/rule/0/path/0 regex (?i)^(?:/api/.*).*',
    'plain/rule/0/path/2 regex (?i)^(?:/b/).*',
    're/rule/0/path/1 regex (?i)^(?:/a).*',
    'fallback prefix /',
  ]);
  t.deepEqual(summary(vhost(result, 'other.test').routes), ['other/rule/0/path/0 prefix /api/v1', 'fallback prefix /']);
});

test('a rewrite-target without capture groups makes the host\'s paths regexes too; one equal to the path does not', (t) => {
  const rewritten = translate(
    state([
      ingress('rw', nginx({ 'rewrite-target': '/new/backend' }), [{ path: '/', pathType: 'Prefix' }]),
      ingress('acme', {}, [{ path: '/.well-known/acme/challenge', pathType: 'Prefix' }], { age: 1 }),
    ]),
    nginxOn,
  );
  t.deepEqual(summary(vhost(rewritten).routes), [
    'acme/rule/0/path/0 regex (?i)^(?:/.well-known/acme/challenge).*',
    'rw/rule/0/path/0 regex (?i)^(?:/).*',
    'fallback prefix /',
  ]);
  const same = translate(state([ingress('rw', nginx({ 'rewrite-target': '/app' }), [{ path: '/app', pathType: 'Prefix' }])]), nginxOn);
  t.deepEqual(summary(vhost(same).routes), ['rw/rule/0/path/0 prefix /app', 'fallback prefix /']);
  // A value ingress-nginx's validator drops ("defaulting to empty") makes nothing a regex either.
  const dropped = translate(state([ingress('rw', nginx({ 'rewrite-target': '/a,b' }), [{ path: '/app', pathType: 'Prefix' }])]), nginxOn);
  t.deepEqual(summary(vhost(dropped).routes), ['rw/rule/0/path/0 prefix /app', 'fallback prefix /']);
  t.deepEqual(dropped.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
});

test('the spill-over stays among Ingresses with the nginx layer: an Ingress of a class without it keeps its paths', (t) => {
  const plainClass = { kind: 'IngressClass' as const, metadata: { name: 'plain', annotations: { 'envoy-ingress.io/nginx-annotations': 'false' } }, spec: { controller: defaultTranslateOptions.controllerName } };
  const ours = ingress('ours', {}, [{ path: '/v1', pathType: 'Prefix' }], { age: 1 });
  const s = state([ingress('re', nginx({ 'use-regex': 'true' }), [{ path: '/v[0-9]+/x' }]), { ...ours, spec: { ...ours.spec, ingressClassName: 'plain' } }]);
  const result = translate({ ...s, ingressClasses: [...s.ingressClasses, plainClass] }, nginxOn);
  t.deepEqual(summary(vhost(result).routes), ['re/rule/0/path/0 regex (?i)^(?:/v[0-9]+/x).*', 'ours/rule/0/path/0 prefix /v1', 'fallback prefix /']);
});

test('a regex path RE2 would compile too large is refused with a diagnostic naming it; the rest is served', (t) => {
  const result = translate(state([ingress('big', nginx({ 'use-regex': 'true' }), [{ path: '/id/[a-z]{1000}' }, { path: '/id/[0-9]+' }])]), nginxOn);
  t.deepEqual(result.diagnostics.map((d) => `${d.object.name} ${d.reason}`), ['big InvalidPath']);
  t.regex(result.diagnostics[0]?.message ?? '', /^rule 0 path 0: regex path "\/id\/\[a-z\]\{1000\}" is too large: RE2 would compile it to about \d+ instructions, more than the 2000 allowed/);
  t.deepEqual(summary(vhost(result).routes), ['big/rule/0/path/1 regex (?i)^(?:/id/[0-9]+).*', 'fallback prefix /']);
});

test('rewrite-target with capture groups implies regex paths and rewrites with the route\'s own regex (issue 7 example)', (t) => {
  const result = translate(state([ingress('rw', nginx({ 'rewrite-target': '/$2' }), [{ path: '/something(/|$)(.*)' }])]), nginxOn);
  t.deepEqual(result.diagnostics, []);
  const [route] = vhost(result).routes;
  t.deepEqual(route?.match, { kind: 'regex', path: '/something(/|$)(.*)', regex: '(?i)^(?:/something(/|$)(.*)).*' });
  t.deepEqual(route?.policy?.rewrite, { kind: 'regex', pattern: '(?i)^(?:/something(/|$)(.*)).*', substitution: '/\\2' });
});

test('our rewrite-prefix wins over a capture-group rewrite-target', (t) => {
  const result = translate(
    state([ingress('rw', { ...nginx({ 'rewrite-target': '/$1' }), 'envoy-ingress.io/rewrite-prefix': '/v2' }, [{ path: '/api/(.*)' }])]),
    nginxOn,
  );
  t.deepEqual(vhost(result).routes[0]?.policy?.rewrite, { kind: 'prefix', replacement: '/v2' });
});

test('a target using more groups than a path has is reported, and the missing group is empty there (as nginx)', (t) => {
  const result = translate(state([ingress('rw', nginx({ 'rewrite-target': '/x/$2/$1' }), [{ path: '/a/(.*)/(.*)' }, { path: '/b/(.*)' }])]), nginxOn);
  t.deepEqual(result.diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  t.regex(result.diagnostics[0]?.message ?? '', /uses \$2 but rule 0 path 1 "\/b\/\(\.\*\)" has 1 capture group/);
  const routes = vhost(result).routes;
  t.deepEqual(routes.find((r) => r.match.path === '/a/(.*)/(.*)')?.policy?.rewrite, { kind: 'regex', pattern: '(?i)^(?:/a/(.*)/(.*)).*', substitution: '/x/\\2/\\1' });
  t.deepEqual(routes.find((r) => r.match.path === '/b/(.*)')?.policy?.rewrite, { kind: 'regex', pattern: '(?i)^(?:/b/(.*)).*', substitution: '/x//\\1' });
});

test('bad values are reported on the Ingress and leave the rest of it served', (t) => {
  const result = translate(
    state([
      ingress('bad', nginx({ 'use-regex': 'yes', 'rewrite-target': '/$host/$1', 'app-root': 'https://elsewhere.test/' }), [{ path: '/ok/(.*)' }, { path: '/broken(' }]),
      ingress('root', nginx({ 'app-root': '/' }), [{ path: '/' }], { host: 'root.test', age: 2 }),
    ]),
    nginxOn,
  );
  const messages = result.diagnostics.map((d) => `${d.object.name} ${d.reason} ${d.message}`);
  t.is(messages.length, 5, messages.join('\n'));
  t.regex(messages[0] ?? '', /^bad InvalidAnnotation annotation nginx.ingress.kubernetes.io\/use-regex has invalid value "yes"/);
  t.regex(messages[1] ?? '', /^bad InvalidAnnotation .*rewrite-target has invalid value "\/\$host\/\$1"; accepted values: only \$1..\$9 .*, not \$host/);
  t.regex(messages[2] ?? '', /^bad InvalidAnnotation .*app-root has invalid value "https:\/\/elsewhere.test\/"/);
  t.regex(messages[3] ?? '', /^bad InvalidPath rule 0 path 1: regex path "\/broken\(" is not valid RE2: missing \)/);
  t.regex(messages[4] ?? '', /^root InvalidAnnotation .*app-root has invalid value "\/"/);
  // The good path of "bad" is still served (without a rewrite: its target was refused).
  t.deepEqual(summary(vhost(result).routes), ['bad/rule/0/path/0 regex (?i)^(?:/ok/(.*)).*', 'fallback prefix /']);
  t.is(vhost(result).routes[0]?.policy?.rewrite, undefined);
});

test('rewrite-target "$0" is refused ($0 is not a capture group in nginx)', (t) => {
  const diagnostics: import('../../shared/diagnostics.js').Diagnostic[] = [];
  mapNginxAnnotations(ingress('zero', nginx({ 'rewrite-target': '/$0' }), [{ path: '/z/(.*)' }]), diagnostics);
  t.deepEqual(diagnostics.map((d) => d.reason), [Reason.InvalidAnnotation]);
  t.regex(diagnostics[0]?.message ?? '', /\$0 is not a capture group/);
});

test('app-root: exactly / redirects 302 to the app root, first on every host the Ingress has rules for', (t) => {
  const re = ingress('approot', nginx({ 'app-root': '/app1', 'use-regex': 'true' }), [{ path: '/.*' }]);
  const result = translate(state([re]), nginxOn);
  t.deepEqual(result.diagnostics, []);
  const routes = vhost(result).routes;
  // Before the regex `/.*`, which is longer and also matches `/`.
  t.deepEqual(summary(routes), ['approot/app-root exact /', 'approot/rule/0/path/0 regex (?i)^(?:/.*).*', 'fallback prefix /']);
  t.deepEqual(routes[0]?.action, { kind: 'redirect', statusCode: 302, path: { kind: 'replace', path: '/app1' }, query: { kind: 'drop' } });
  const withQuery = translate(state([ingress('approot', nginx({ 'app-root': '/app1?from=root' }), [{ path: '/', pathType: 'Prefix' }])]), nginxOn);
  t.deepEqual(vhost(withQuery).routes[0]?.action, { kind: 'redirect', statusCode: 302, path: { kind: 'replace', path: '/app1' }, query: { kind: 'replace', query: 'from=root' } });
});

test('app-root of two Ingresses on one host: the older wins, the other gets RuleConflict', (t) => {
  const result = translate(
    state([
      ingress('newer', nginx({ 'app-root': '/b' }), [{ path: '/b', pathType: 'Prefix' }], { age: 5 }),
      ingress('older', nginx({ 'app-root': '/a' }), [{ path: '/a', pathType: 'Prefix' }], { age: 1 }),
    ]),
    nginxOn,
  );
  t.deepEqual(result.diagnostics.map((d) => `${d.object.name} ${d.reason}`), ['newer RuleConflict']);
  t.regex(result.diagnostics[0]?.message ?? '', /app-root ignored on host app.test: Ingress default\/older is older/);
  const roots = vhost(result).routes.filter((r) => r.name.endsWith('/app-root'));
  t.deepEqual(roots.map((r) => r.action), [{ kind: 'redirect', statusCode: 302, path: { kind: 'replace', path: '/a' }, query: { kind: 'drop' } }]);
});

test('use-regex and app-root are mapped, no longer reported as unsupported', (t) => {
  t.true(mappedNginxAnnotations.has('use-regex'));
  t.true(mappedNginxAnnotations.has('app-root'));
  const diagnostics: import('../../shared/diagnostics.js').Diagnostic[] = [];
  mapNginxAnnotations(ingress('x', nginx({ 'use-regex': 'true', 'app-root': '/app', 'rewrite-target': '/$1' }), [{ path: '/(.*)' }]), diagnostics);
  t.deepEqual(diagnostics, []);
});

test('a canary joins the regex route of a main Ingress with use-regex by the path as written', (t) => {
  const main = ingress('main', nginx({ 'use-regex': 'true' }), [{ path: '/api/v[0-9]+' }]);
  const canary = ingress('canary', nginx({ canary: 'true', 'canary-weight': '20' }), [{ path: '/api/v[0-9]+' }], { age: 1, service: 'web-v2' });
  const s = state([main, canary]);
  const result = translate({ ...s, services: [...s.services, service('web-v2')] }, nginxOn);
  const canaryIngress = result.diagnostics.filter((d) => d.object.name === 'canary');
  t.deepEqual(canaryIngress, []);
  const [route] = vhost(result).routes;
  t.is(route?.match.kind, 'regex');
  t.like(route?.action, { kind: 'forward', cluster: 'default/web/80', split: { backends: [{ cluster: 'default/web-v2/80', weight: 20 }], totalWeight: 100 } });
});

test('explain predicts regex routes and the app-root redirect', (t) => {
  const result = translate(state([ingress('rw', nginx({ 'rewrite-target': '/$2', 'app-root': '/app1' }), [{ path: '/something(/|$)(.*)' }])]), nginxOn);
  const input = { ir: result.ir, endpoints: [], diagnostics: result.diagnostics };
  const matched = explain(input, { host: 'app.test', path: '/SOMETHING/new?x=1' });
  t.is(matched.route?.route, 'ingress/default/rw/rule/0/path/0');
  t.is(matched.route?.match, 'Regex /something(/|$)(.*)');
  const missed = explain(input, { host: 'app.test', path: '/somethingelse' });
  t.is(missed.status, 404);
  t.regex(missed.routes.find((r) => r.route === 'ingress/default/rw/rule/0/path/0')?.reason ?? '', /does not match the regex/);
  const root = explain(input, { host: 'app.test:8080', path: '/?q=1' });
  t.deepEqual(root.response, { kind: 'redirect', status: 302, location: 'http://app.test:8080/app1' });
});

test('migrate-check: every path of a regex host matches as in ingress-nginx; paths RE2 refuses or finds too large are listed', (t) => {
  const report = migrationReport([
    ingress('re', nginx({ 'use-regex': 'true' }), [{ path: '/api/v[0-9]+' }, { path: '/look(?=ahead)' }]),
    ingress('plain', {}, [{ path: '/health', pathType: 'Exact' }, { path: '/x/.{1000}' }], { age: 1 }),
  ]);
  const changes = report.ingresses.flatMap((i) => i.routeChanges.map((c) => `${i.name} ${c.rule} ${c.path}`));
  t.deepEqual(changes, ['plain RegexTooLarge /x/.{1000}', 're RegexNotRe2 /look(?=ahead)']);
  t.regex(report.ingresses.find((i) => i.name === 're')?.routeChanges[0]?.difference ?? '', /not served: regex path "\/look\(\?=ahead\)" is not valid RE2: invalid perl operator/);
});
