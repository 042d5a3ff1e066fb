import test from 'ava';
import type { ClusterState, Ingress, IngressClass, Service } from '../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../shared/options.js';
import { Reason } from '../shared/reasons.js';
import { translate } from '../translate.js';
import { enforceHostOwnership, hostOwners } from './host-ownership.js';
import { ingressHttpTableOf } from './ingress-listeners.js';
import { migrationReport } from './nginx/migration-report.js';
import { maxServerAliasesPerIngress } from './nginx/nginx-server-names.js';
import { HostIndex } from './host-index.js';
import { translateIncrementally } from './incremental-translate.js';

const ourClass: IngressClass = { kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } };
const nginxOn: TranslateOptions = { ...defaultTranslateOptions, nginxAnnotations: true };
const service = (namespace: string, name: string): Service => ({ kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'http', port: 80 }] } });
const backend = (name: string) => ({ service: { name, port: { number: 80 } } });

function ingress(namespace: string, name: string, age: number, hosts: string[], extra: { annotations?: Record<string, string>; tls?: string[][]; path?: string } = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, age)).toISOString(), ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: hosts.map((host) => ({ host, http: { paths: [{ path: extra.path ?? '/', pathType: 'Prefix', backend: backend('web') }] } })),
      ...(extra.tls === undefined ? {} : { tls: extra.tls.map((h) => ({ hosts: h, secretName: 'tls' })) }),
    },
  };
}

function state(ingresses: Ingress[]): ClusterState {
  return { ingresses, ingressClasses: [ourClass], services: [service('a', 'web'), service('b', 'web')], endpointSlices: [], endpoints: [], secrets: [] };
}

test('the namespace of the oldest Ingress routing a host owns it; a canary owns a host only when nothing else routes it', (t) => {
  const owners = hostOwners([
    ingress('b', 'canary', 0, ['shop.test', 'alone.test'], { annotations: { 'nginx.ingress.kubernetes.io/canary': 'true' } }),
    ingress('a', 'main', 1, ['shop.test']),
    ingress('b', 'late', 2, ['shop.test', 'b.test']),
  ]);
  t.deepEqual(Object.fromEntries([...owners].map(([host, o]) => [host, `${o.namespace} ${o.ingress.name}`])), { 'shop.test': 'a main', 'b.test': 'b late', 'alone.test': 'b canary' });
});

test('refused rules and TLS hosts leave holes: the rest keep their index, an emptied TLS entry does not become the default certificate', (t) => {
  const owner = ingress('a', 'main', 0, ['shop.test']);
  const other = ingress('b', 'other', 1, ['x.test', 'shop.test', 'y.test'], { tls: [['shop.test'], ['shop.test', 'x.test']] });
  const diagnostics: Parameters<typeof enforceHostOwnership>[1] = [];
  const { ingresses } = enforceHostOwnership([owner, other], diagnostics);
  t.is(ingresses[0], owner, 'an Ingress with nothing refused is the same object');
  const rules = ingresses[1]?.spec?.rules ?? [];
  t.is(rules.length, 3);
  t.false(1 in rules);
  t.is(rules[2]?.host, 'y.test');
  const tls = ingresses[1]?.spec?.tls ?? [];
  t.false(0 in tls);
  t.deepEqual(tls[1]?.hosts, ['x.test']);
  t.deepEqual(other.spec?.rules?.length, 3, 'the input is not changed');
  t.deepEqual(
    diagnostics.map((d) => `${d.object.namespace}/${d.object.name} ${d.reason} ${d.message.split(':')[0]}`),
    [
      'b/other HostOwnedByOtherNamespace rule 1',
      'a/main HostOwnedByOtherNamespace host shop.test',
      'b/other HostOwnedByOtherNamespace tls 0',
      'b/other HostOwnedByOtherNamespace tls 1',
    ],
  );
});

test('a route of another namespace for an owned host is refused on both Ingresses; --allow-cross-namespace-hosts merges it', (t) => {
  const objects = state([ingress('a', 'main', 0, ['shop.test']), ingress('b', 'other', 1, ['shop.test'], { path: '/admin' })]);
  const strict = translate(objects, defaultTranslateOptions);
  const shop = ingressHttpTableOf(strict.ir).virtualHosts.find((v) => v.name === 'shop.test');
  t.deepEqual(shop?.routes.map((r) => r.name), ['ingress/a/main/rule/0/path/0', 'fallback']);
  t.deepEqual(strict.diagnostics.map((d) => `${d.object.namespace} ${d.reason}`), ['a HostOwnedByOtherNamespace', 'b HostOwnedByOtherNamespace']);
  const merged = translate(objects, { ...defaultTranslateOptions, allowCrossNamespaceHosts: true });
  t.deepEqual(ingressHttpTableOf(merged.ir).virtualHosts.find((v) => v.name === 'shop.test')?.routes.map((r) => r.name), ['ingress/b/other/rule/0/path/0', 'ingress/a/main/rule/0/path/0', 'fallback']);
});

test("another namespace's canary (weight 100) does not join an owned host's route; a refused join is reported on both Ingresses", (t) => {
  const canary = ingress('b', 'canary', 1, ['shop.test'], { annotations: { 'nginx.ingress.kubernetes.io/canary': 'true', 'nginx.ingress.kubernetes.io/canary-weight': '100' } });
  const objects = state([ingress('a', 'main', 0, ['shop.test']), canary]);
  const strict = translate(objects, nginxOn);
  const route = ingressHttpTableOf(strict.ir).virtualHosts.find((v) => v.name === 'shop.test')?.routes[0];
  t.deepEqual(route?.action, { kind: 'forward', cluster: 'a/web/80' });
  t.deepEqual(strict.diagnostics.map((d) => `${d.object.namespace}/${d.object.name} ${d.reason}`), ['a/main HostOwnedByOtherNamespace', 'b/canary HostOwnedByOtherNamespace']);
  // Merged, ingress-nginx's behaviour: the canary takes the route's traffic.
  const merged = translate(objects, { ...nginxOn, allowCrossNamespaceHosts: true });
  const mergedAction = ingressHttpTableOf(merged.ir).virtualHosts.find((v) => v.name === 'shop.test')?.routes[0]?.action;
  t.true(mergedAction?.kind === 'forward' && mergedAction.split !== undefined);
});

test("another namespace's app-root does not redirect an owned host's /", (t) => {
  const appRoot = ingress('b', 'app-root', 1, ['shop.test', 'b.test'], { path: '/b', annotations: { 'nginx.ingress.kubernetes.io/app-root': '/b' } });
  const strict = translate(state([ingress('a', 'main', 0, ['shop.test']), appRoot]), nginxOn);
  const table = ingressHttpTableOf(strict.ir);
  t.false(table.virtualHosts.find((v) => v.name === 'shop.test')?.routes.some((r) => r.action.kind === 'redirect'));
  t.true(table.virtualHosts.find((v) => v.name === 'b.test')?.routes.some((r) => r.action.kind === 'redirect'));
});

test('migrate-check names the paths refused for a host of another namespace and a rule-less default backend', (t) => {
  const catchAll: Ingress = { kind: 'Ingress', metadata: { name: 'catch', namespace: 'b', creationTimestamp: '2024-01-02T00:00:00Z' }, spec: { defaultBackend: backend('web') } };
  const report = migrationReport([ingress('b', 'other', 1, ['shop.test', 'b.test']), ingress('a', 'main', 0, ['shop.test']), catchAll]);
  const changes = report.ingresses.flatMap((i) => i.routeChanges.map((c) => `${i.namespace}/${i.name} ${c.rule} ${c.host}`));
  t.deepEqual(changes, ['b/catch TenantCatchAllDefaultBackend *', 'b/other HostOfOtherNamespace shop.test']);
});

test("another namespace's server-alias or from-to-www-redirect does not take over an owned host", (t) => {
  const owner = ingress('a', 'main', 0, ['shop.test']);
  const alias = ingress('b', 'alias', 1, ['b.test'], { annotations: { 'nginx.ingress.kubernetes.io/server-alias': 'shop.test' } });
  const www = ingress('b', 'www', 2, ['www.shop.test'], { annotations: { 'nginx.ingress.kubernetes.io/from-to-www-redirect': 'true' } });
  const result = translate(state([owner, alias, www]), nginxOn);
  const shop = ingressHttpTableOf(result.ir).virtualHosts.find((v) => v.hostnames.includes('shop.test'));
  t.deepEqual(shop?.routes.map((r) => r.name), ['ingress/a/main/rule/0/path/0', 'fallback']);
});

test('server-alias: at most maxServerAliasesPerIngress aliases per Ingress are served, the rest reported', (t) => {
  const aliases = Array.from({ length: maxServerAliasesPerIngress + 3 }, (_, i) => `alias-${i}.test`);
  const result = translate(state([ingress('a', 'main', 0, ['shop.test'], { annotations: { 'nginx.ingress.kubernetes.io/server-alias': aliases.join(',') } })]), nginxOn);
  const names = ingressHttpTableOf(result.ir).virtualHosts.flatMap((v) => v.hostnames);
  t.is(names.length, maxServerAliasesPerIngress + 2); // the host, its aliases, the catch-all
  const reported = result.diagnostics.filter((d) => d.reason === Reason.InvalidAnnotation);
  t.is(reported.length, 1);
  // The ignored ones are the last of the (sorted) list, and none of them is served.
  const ignored = (reported[0]?.message.split('served; ')[1] ?? '').replace(/ ignored$/, '').split(', ');
  t.is(ignored.length, 3);
  t.false(ignored.some((alias) => names.includes(alias)));
});

test('server-alias names are more domains of the host\'s one virtual host: no route is copied per alias', (t) => {
  const paths = Array.from({ length: 20 }, (_, i) => `/p${i}`);
  const aliases = Array.from({ length: maxServerAliasesPerIngress }, (_, i) => `alias-${i}.test`);
  const one = ingress('a', 'main', 0, ['shop.test'], { annotations: { 'nginx.ingress.kubernetes.io/server-alias': aliases.join(',') } });
  const main: Ingress = { ...one, spec: { ...one.spec, rules: [{ host: 'shop.test', http: { paths: paths.map((path) => ({ path, pathType: 'Prefix', backend: backend('web') })) } }] } };
  const result = translate(state([main]), nginxOn);
  const vhosts = ingressHttpTableOf(result.ir).virtualHosts;
  t.is(vhosts.length, 2); // the host (with its aliases) and the catch-all
  const shop = vhosts.find((v) => v.name === 'shop.test');
  t.deepEqual(shop?.hostnames, ['shop.test', ...[...aliases].sort()]);
  t.is(shop?.routes.length, paths.length + 1); // the paths and the fallback
  t.true(vhosts.reduce((sum, v) => sum + v.routes.length, 0) <= paths.length + 2); // and at most the catch-all's fallback
});

test('a namespace past its route budget loses its newest Ingresses whole; other namespaces and its older ones are served', (t) => {
  const objects = state([
    ingress('a', 'first', 0, ['one.test', 'two.test']),
    ingress('b', 'other', 1, ['b.test', 'b2.test', 'b3.test']),
    ingress('a', 'second', 2, ['three.test']),
    ingress('a', 'third', 3, ['four.test']),
  ]);
  const result = translate(objects, { ...defaultTranslateOptions, namespaceRouteBudget: 3 });
  const names = ingressHttpTableOf(result.ir).virtualHosts.map((v) => v.name);
  t.deepEqual(names, ['b.test', 'b2.test', 'b3.test', 'one.test', 'three.test', 'two.test', '*']);
  t.deepEqual(result.diagnostics.map((d) => `${d.object.namespace}/${d.object.name} ${d.reason}`), ['a/third NamespaceRouteBudgetExceeded']);
  // The splice declines while a namespace is past its budget (the refused Ingress may be on any host).
  const before = { ...objects, ingresses: objects.ingresses.slice(0, 3) };
  const base = { state: before, result: translate(before, { ...defaultTranslateOptions, namespaceRouteBudget: 3 }), index: HostIndex.of(before.ingresses) };
  t.is(translateIncrementally(base, objects, { ...defaultTranslateOptions, namespaceRouteBudget: 3 }), undefined);
});
