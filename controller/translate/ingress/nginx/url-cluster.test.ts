import test from 'ava';
import { indexServices } from '../../shared/backend.js';
import type { Ingress, Service } from '../../shared/kube-objects.js';
import { Reason } from '../../shared/reasons.js';
import { clusterForUrl, urlTargetAllowed } from './url-cluster.js';

const service = (namespace: string, name: string): Service => ({ kind: 'Service', metadata: { namespace, name }, spec: { ports: [{ port: 80 }] } });
const services = indexServices([service('a', 'authz'), service('b', 'authz')]);
const ingressOf = (namespace: string): Ingress => ({ kind: 'Ingress', metadata: { namespace, name: 'web' } });
const resolve = (namespace: string, url: string, policy = {}) => clusterForUrl(ingressOf(namespace), new URL(url), services, 'auth-url', Reason.AuthUrlRefused, policy);

test("a URL target is a Service of the Ingress's own namespace by default", (t) => {
  const own = resolve('a', 'http://authz.a.svc.cluster.local/check');
  t.true('cluster' in own && own.cluster.service?.namespace === 'a');
});

test("another namespace's Service is refused without the cross-namespace opt-in or an allow-list entry", (t) => {
  const foreign = resolve('a', 'http://authz.b.svc.cluster.local/check');
  t.true('error' in foreign && foreign.reason === Reason.AuthUrlRefused && /namespace b/.test(foreign.error));
  t.true('cluster' in resolve('a', 'http://authz.b.svc.cluster.local/check', { crossNamespace: true }));
  t.true('cluster' in resolve('a', 'http://authz.b.svc.cluster.local/check', { allowedHosts: ['authz.b.svc'] }));
});

test('a host outside the cluster is refused unless the allow-list names it (exactly or by a wildcard)', (t) => {
  const external = resolve('a', 'https://auth.example.com/check');
  t.true('error' in external && /outside the cluster/.test(external.error));
  // The cross-namespace opt-in is about Services, not the internet.
  t.true('error' in resolve('a', 'https://auth.example.com/check', { crossNamespace: true }));
  t.true('cluster' in resolve('a', 'https://auth.example.com/check', { allowedHosts: ['auth.example.com'] }));
  t.true('cluster' in resolve('a', 'https://auth.example.com/check', { allowedHosts: ['*.example.com'] }));
  t.true('error' in resolve('a', 'https://example.com/check', { allowedHosts: ['*.example.com'] }));
});

test('an allow-listed name that resolves locally is still refused', (t) => {
  const local = resolve('a', 'http://localhost:9901/quitquitquit', { allowedHosts: ['localhost'] });
  t.true('error' in local);
});

test('urlTargetAllowed: Service names with or without .cluster.local, case-insensitive, wildcards need a label', (t) => {
  t.true(urlTargetAllowed('AUTHZ.b.svc.cluster.local', ['authz.b.svc']));
  t.true(urlTargetAllowed('authz.b.svc', ['authz.b.svc.cluster.local']));
  t.true(urlTargetAllowed('x.y.example.com', ['*.example.com']));
  t.false(urlTargetAllowed('evilexample.com', ['*.example.com']));
  t.false(urlTargetAllowed('example.com', ['*.example.com']));
});

test('migrate-check names auth-url and mirror-target targets outside the Ingress\'s namespace, per path', async (t) => {
  const { migrationReport } = await import('./migration-report.js');
  const ingress = (name: string, annotations: Record<string, string>): Ingress => ({
    kind: 'Ingress',
    metadata: { namespace: 'a', name, annotations },
    spec: { rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  });
  const report = migrationReport([
    ingress('own', { 'nginx.ingress.kubernetes.io/auth-url': 'http://authz.a.svc.cluster.local/check' }),
    ingress('foreign', { 'nginx.ingress.kubernetes.io/auth-url': 'http://oauth2-proxy.auth.svc.cluster.local/oauth2/auth', 'nginx.ingress.kubernetes.io/mirror-target': 'https://shadow.example.net$request_uri' }),
  ]);
  const changes = report.ingresses.flatMap((i) => i.routeChanges.map((c) => `${i.name} ${c.rule} ${c.difference.split(' ')[0]}`));
  t.deepEqual(changes, ['foreign UrlTargetOutsideNamespace auth-url', 'foreign UrlTargetOutsideNamespace mirror-target']);
});
