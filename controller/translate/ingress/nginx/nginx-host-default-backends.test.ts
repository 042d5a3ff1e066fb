import test from 'ava';
import type { ClusterState, Ingress, IngressClass, Service } from '../../shared/kube-objects.js';
import { defaultTranslateOptions, type TranslateOptions } from '../../shared/options.js';
import { translate } from '../../translate.js';
import { ingressHttpTableOf } from '../ingress-listeners.js';

// The catch-all's default backend comes from the operator's namespace (tenant-default-backends.ts).
const nginxOn: TranslateOptions = { ...defaultTranslateOptions, nginxAnnotations: true, defaultBackendNamespace: 'default' };
const ourClass: IngressClass = { kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } };
const service = (name: string): Service => ({ kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });
const backend = (name: string) => ({ service: { name, port: { number: 80 } } });

function ingress(name: string, age: number, spec: { host?: string; path?: string; defaultBackend?: string }): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, age)).toISOString() },
    spec: {
      ingressClassName: 'envoy-ingress',
      ...(spec.defaultBackend === undefined ? {} : { defaultBackend: backend(spec.defaultBackend) }),
      ...(spec.host === undefined
        ? {}
        : { rules: [{ host: spec.host, ...(spec.path === undefined ? {} : { http: { paths: [{ path: spec.path, pathType: 'Prefix', backend: backend('web') }] } }) }] }),
    },
  };
}

function state(ingresses: Ingress[]): ClusterState {
  return { ingresses, ingressClasses: [ourClass], services: ['web', 'a', 'catch-all'].map(service), endpointSlices: [], endpoints: [], secrets: [] };
}

/** What answers an unmatched path of each host: the cluster, or the status of a direct answer. */
function fallbacks(result: ReturnType<typeof translate>): Record<string, string> {
  return Object.fromEntries(
    ingressHttpTableOf(result.ir).virtualHosts.map((v) => {
      const last = v.routes[v.routes.length - 1];
      return [v.name, last?.action.kind === 'forward' ? last.action.cluster : last?.action.kind === 'direct' ? String(last.action.status) : String(last?.action.kind)];
    }),
  );
}

const scenario = [
  // Oldest: an Ingress with rules and a default backend, then the catch-all one (no rules), then a host without.
  ingress('with-rules', 0, { host: 'a.test', path: '/app', defaultBackend: 'a' }),
  ingress('catch-all', 1, { defaultBackend: 'catch-all' }),
  ingress('plain', 2, { host: 'c.test', path: '/' }),
  // A later Ingress on a.test: the host is the older one's, so its default backend stays.
  ingress('later', 3, { host: 'a.test', path: '/later', defaultBackend: 'web' }),
];

test('with the nginx layer, a default backend serves the hosts its Ingress is the oldest to name; the catch-all one only unknown hosts', (t) => {
  const result = translate(state(scenario), nginxOn);
  t.deepEqual(fallbacks(result), { 'a.test': 'default/a/80', 'c.test': '404', '*': 'default/catch-all/80' });
  // No DefaultBackendConflict: each default backend has its own hosts.
  t.deepEqual(result.diagnostics.map((d) => d.reason), []);
});

test('without the nginx layer, the oldest default backend answers on every host (Ingress-spec reading)', (t) => {
  const result = translate(state(scenario), { ...defaultTranslateOptions, allowCrossNamespaceHosts: true });
  t.deepEqual(fallbacks(result), { 'a.test': 'default/a/80', 'c.test': 'default/a/80', '*': 'default/a/80' });
  t.deepEqual(result.diagnostics.map((d) => `${d.object.name} ${d.reason}`), ['catch-all DefaultBackendConflict', 'later DefaultBackendConflict']);
});

test('without the nginx layer and with hosts owned by namespaces, the namespace default backend answers its hosts, the operator namespace\'s every other host', (t) => {
  const tenant = translate(state(scenario), defaultTranslateOptions);
  t.deepEqual(fallbacks(tenant), { 'a.test': 'default/a/80', 'c.test': 'default/a/80', '*': '404' });
  t.deepEqual(tenant.diagnostics.map((d) => `${d.object.name} ${d.reason}`), ['catch-all DefaultBackendNotClusterWide', 'later DefaultBackendConflict']);
  const operator = translate(state(scenario), { ...defaultTranslateOptions, defaultBackendNamespace: 'default' });
  // In the operator's namespace the Ingress-spec reading holds: the oldest default backend answers every host.
  t.deepEqual(fallbacks(operator), { 'a.test': 'default/a/80', 'c.test': 'default/a/80', '*': 'default/a/80' });
});
