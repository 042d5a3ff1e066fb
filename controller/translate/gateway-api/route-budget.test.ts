// The per-namespace route budget for Gateway API routes (route-budget.ts): the newest route past its namespace's
// budget is refused on every parent and serves nothing; older routes and other namespaces are served.
import test from 'ava';
import { clusterStateFromYaml } from '../shared/cluster-state-yaml.js';
import { defaultTranslateOptions } from '../shared/options.js';
import { translate } from '../translate.js';
import { routesWritten } from './route-budget.js';

const route = (namespace: string, name: string, created: string, hostnames: string[], paths: string[]): string => `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ${name}, namespace: ${namespace}, creationTimestamp: '${created}'}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  hostnames: [${hostnames.join(', ')}]
  rules: [{matches: [${paths.map((p) => `{path: {type: PathPrefix, value: ${p}}}`).join(', ')}], backendRefs: [{name: web, port: 8080}]}]
`;
const service = (namespace: string): string => `
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${namespace}}
spec: {ports: [{port: 8080}]}
`;
const yaml = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ours}
spec: {controllerName: envoy-ingress.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: ours
  listeners: [{name: http, protocol: HTTP, port: 8081, allowedRoutes: {namespaces: {from: All}}}]
${service('a')}${service('b')}
${route('a', 'oldest', '2026-01-01T00:00:00Z', ['one.test'], ['/x', '/y'])}
${route('a', 'newest', '2026-01-03T00:00:00Z', ['three.test'], ['/'])}
${route('a', 'middle', '2026-01-02T00:00:00Z', ['two.test', 'two-b.test'], ['/'])}
${route('b', 'other', '2026-01-04T00:00:00Z', ['four.test', 'five.test'], ['/p', '/q'])}
`;

test('past its namespace budget the newest route is Accepted False on its parent, not attached and not served; older routes and other namespaces are', (t) => {
  const { state } = clusterStateFromYaml(yaml);
  const result = translate(state, { ...defaultTranslateOptions, namespaceRouteBudget: 4 });
  // Namespace a: oldest writes 2, middle 2 (two hostnames), newest would be the fifth. Namespace b writes 4: within.
  const hosts = result.ir.listeners.find((l) => l.port === 8081)?.routeTable?.virtualHosts.map((v) => v.name).sort();
  t.deepEqual(hosts, ['five.test', 'four.test', 'one.test', 'two-b.test', 'two.test']);
  const accepted = (name: string) => result.gatewayApiStatus?.routes.find((r) => r.ref.name === name)?.parents[0]?.conditions.find((c) => c.type === 'Accepted');
  t.like(accepted('newest'), { status: 'False', reason: 'NamespaceRouteBudgetExceeded' });
  t.regex(accepted('newest')?.message ?? '', /its 1 routes would take namespace a past its route budget of 4 \(4 used by older routes/);
  for (const name of ['oldest', 'middle', 'other']) t.like(accepted(name), { status: 'True' });
  t.is(result.gatewayApiStatus?.gateways[0]?.listeners[0]?.attachedRoutes, 3);
  t.deepEqual(result.diagnostics.map((d) => `${d.object.namespace}/${d.object.name} ${d.reason}`), ['a/newest NamespaceRouteBudgetExceeded']);
  // The default budget serves them all.
  const unbounded = translate(state, defaultTranslateOptions);
  t.is(unbounded.gatewayApiStatus?.gateways[0]?.listeners[0]?.attachedRoutes, 4);
});

test('a route writes its placed matches times its hostnames, at least one of each', (t) => {
  const { state } = clusterStateFromYaml(yaml);
  const other = state.httpRoutes?.find((r) => r.metadata.name === 'other');
  t.is(routesWritten(other!, 2), 4);
  t.is(routesWritten(other!, 0), 2);
  t.is(routesWritten({ ...other!, spec: { ...other!.spec, hostnames: [] } }, 3), 3);
});
