import test from 'ava';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { translate } from '../controller/translate/translate.js';
import { syntheticGatewayApiCluster, syntheticHttpRoutes, routesOfHttpRoute, httpRouteTo, withExtraPath } from './synthetic-gateway-api.js';
import { countRoutes } from './translation-scale.js';

const port = 10081;

test('every synthetic HTTPRoute is served on the Gateway listener, without diagnostics, with as many routes as countRoutes says', (t) => {
  const state = syntheticGatewayApiCluster({ httpRoutes: 50, port });
  const result = translate(state, { ...defaultTranslateOptions, listenerPorts: { http: 10080, https: 10443 } });
  t.deepEqual(result.diagnostics, []);
  t.is(result.servedGatewayApi?.filter((ref) => ref.kind === 'HTTPRoute').length, 50);
  const listener = result.ir.listeners.find((l) => l.port === port);
  const routes = (listener?.routeTable?.virtualHosts ?? []).reduce((n, vhost) => n + vhost.routes.length, 0);
  t.is(routes, countRoutes(state));
  // Each route to its own Service: one cluster per HTTPRoute.
  t.is(result.ir.clusters.length, 50);
});

test('the routes of an HTTPRoute are one per hostname and match', (t) => {
  const paths = [{ type: 'PathPrefix' as const, value: '/' }, { type: 'Exact' as const, value: '/a' }];
  t.is(routesOfHttpRoute(httpRouteTo('r', ['a.test', 'b.test', 'c.test'], 'svc', paths)), 6);
  t.is(routesOfHttpRoute(httpRouteTo('r', [], 'svc')), 1);
});

test('HTTPRoutes are deterministic and a smaller set is a prefix of a larger one; their routes average those of the Ingresses', (t) => {
  t.deepEqual(syntheticHttpRoutes(10), syntheticHttpRoutes(100).slice(0, 10));
  const perRoute = syntheticHttpRoutes(2000).reduce((n, r) => n + routesOfHttpRoute(r), 0) / 2000;
  // 1-3 hosts times 1-4 paths, uniform: 2 x 2.5 on average, as an Ingress's 1-3 hosts with 1-4 paths each.
  t.true(perRoute > 4.5 && perRoute < 5.5, `${perRoute} routes per HTTPRoute`);
});

test('an HTTPRoute with an extra path keeps its hostnames and parents and gains one route per hostname; the original is untouched', (t) => {
  const route = httpRouteTo('r', ['a.test', 'b.test'], 'svc');
  const edited = withExtraPath(route, '/changed');
  t.deepEqual(edited.spec?.hostnames, route.spec?.hostnames);
  t.deepEqual(edited.spec?.parentRefs, route.spec?.parentRefs);
  t.is(routesOfHttpRoute(edited), routesOfHttpRoute(route) + 2);
  t.deepEqual(edited.spec?.rules?.[0]?.matches?.at(-1), { path: { type: 'Exact', value: '/changed' } });
  t.is(route.spec?.rules?.[0]?.matches?.length, 1);
});
