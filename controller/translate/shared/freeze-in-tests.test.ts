import test from 'ava';
import { HtpasswdUsers, type RouteIR } from '../../../ir/index.js';
import { annotationPolicyPass } from '../ingress/annotation-policy.js';
import { type CollectedRoutes, passRoutes } from '../ingress/collected-routes.js';
import { deepFreeze, freezesIr } from './freeze-in-tests.js';
import type { ClusterState, Ingress } from './kube-objects.js';
import { defaultTranslateOptions } from './options.js';
import { translate } from '../translate.js';
import { ingressHttpTableOf } from '../ingress/ingress-listeners.js';

const ourClass = { kind: 'IngressClass' as const, metadata: { name: 'envoy-ingress' }, spec: { controller: defaultTranslateOptions.controllerName } };

function ingress(name: string, annotations: Record<string, string> = {}): Ingress {
  return {
    kind: 'Ingress',
    metadata: { name, namespace: 'default', annotations },
    spec: {
      ingressClassName: 'envoy-ingress',
      rules: [{ host: 'a.example', http: { paths: [{ path: `/${name}`, pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
  };
}

const state: ClusterState = {
  ingresses: [ingress('one'), ingress('two', { 'nginx.ingress.kubernetes.io/auth-url': 'http://auth.default.svc.cluster.local/check' })],
  ingressClasses: [ourClass],
  services: [{ kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } }],
  endpointSlices: [],
  endpoints: [],
  secrets: [],
};

test('the test runner turns the freezing on (scripts/test.js sets ENVOY_INGRESS_FREEZE_IR=1)', (t) => {
  t.true(freezesIr);
});

test('under test, writing to the IR translate() returns throws: a route, a virtual host list, the gateway', (t) => {
  const { ir, httpsTable } = translate(state, { ...defaultTranslateOptions, nginxAnnotations: true });
  const vhost = ingressHttpTableOf(ir).virtualHosts.find((v) => v.name === 'a.example');
  const route = vhost?.routes[0];
  if (vhost === undefined || route === undefined) return t.fail('no route for a.example');
  // What the nginx layer's auth and edge passes did to the finished IR before they returned new objects.
  t.throws(() => {
    route.policy = { ...route.policy, externalAuth: { filter: 'f', uri: 'u', cluster: 'c', pathPrefix: '', responseHeaders: [] } };
  }, { instanceOf: TypeError });
  t.throws(() => {
    delete (route as { policy?: unknown }).policy;
  }, { instanceOf: TypeError });
  t.throws(() => vhost.routes.unshift(route), { instanceOf: TypeError });
  t.throws(() => httpsTable.virtualHosts.push(vhost), { instanceOf: TypeError });
  t.throws(() => {
    ir.clusters = [];
  }, { instanceOf: TypeError });
  t.throws(() => {
    ir.fallbackClusters = [];
  }, { instanceOf: TypeError });
});

test('a route pass that writes to the routes handed to it throws; one that returns new routes leaves them as they were', (t) => {
  const route: RouteIR = { name: 'r', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'default/web/80' }, source: { kind: 'Ingress', namespace: 'default', name: 'one' } };
  const collected: CollectedRoutes = deepFreeze({ defaultBackend: undefined, hostDefaults: new Map(), byHost: new Map([['a.example', [route]]]) });
  // The old in-place passes (annotation policies, service-upstream, mirrors, gzip, ...) wrote like this.
  t.throws(() => passRoutes(collected, 'all', (r) => Object.assign(r, { policy: { timeoutMs: 1 } })), { instanceOf: TypeError });
  const annotations = new Map([['Ingress/default/one', { route: { timeoutMs: 5000 }, cluster: {}, sslRedirect: true, forceSslRedirect: false }]]);
  const passed = passRoutes(collected, 'all', annotationPolicyPass(annotations as never, new Map()));
  t.deepEqual(passed.byHost.get('a.example')?.[0]?.policy, { timeoutMs: 5000 });
  t.is(route.policy, undefined);
  t.is(collected.byHost.get('a.example')?.[0], route);
  // Nothing to change: the very same collection back.
  t.is(passRoutes(collected, 'all', (r) => r), collected);
});

test('deepFreeze freezes plain objects and arrays and leaves instances of classes alone', (t) => {
  const users = new HtpasswdUsers('user:{PLAIN}secret\n');
  const frozen = deepFreeze({ list: [{ a: 1 }], users });
  t.true(Object.isFrozen(frozen.list[0]));
  t.false(Object.isFrozen(users));
});
