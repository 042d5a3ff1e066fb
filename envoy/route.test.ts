import test from 'ava';
import type { RouteIR, RouteTableIR } from '../ir/index.js';
import { buildRouteConfiguration } from './route-configuration.js';
import { buildRoute, errorShareCluster } from './route.js';

const base: RouteIR = { name: 'r', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'a' } };

test('query parameter matches become query_parameters: exact or RE2 on the whole value', (t) => {
  const built = buildRoute({ ...base, queryParams: [{ name: 'q', kind: 'exact', value: '1' }, { name: 'debug', kind: 'regex', value: 'on|yes' }] });
  t.deepEqual((built['match'] as Record<string, unknown>)['query_parameters'], [
    { name: 'q', string_match: { exact: '1' } },
    { name: 'debug', string_match: { safe_regex: { regex: 'on|yes' } } },
  ]);
  t.false('query_parameters' in (buildRoute(base)['match'] as Record<string, unknown>));
});

test("a split's error share goes to a cluster that does not exist, answered 500 by the route", (t) => {
  const built = buildRoute({ ...base, action: { kind: 'forward', cluster: 'a', split: { backends: [{ cluster: 'b', weight: 1 }], totalWeight: 4, errorWeight: 1 } } });
  t.deepEqual(built['route'], {
    weighted_clusters: { clusters: [{ name: 'a', weight: 2 }, { name: 'b', weight: 1 }, { name: errorShareCluster, weight: 1 }] },
    cluster_not_found_response_code: 'INTERNAL_SERVER_ERROR',
  });
  // Without an error share: the plain split, Envoy's default 503 for a missing cluster.
  const plain = buildRoute({ ...base, action: { kind: 'forward', cluster: 'a', split: { backends: [{ cluster: 'b', weight: 1 }], totalWeight: 4 } } });
  t.deepEqual(plain['route'], { weighted_clusters: { clusters: [{ name: 'a', weight: 3 }, { name: 'b', weight: 1 }] } });
});

test('header additions append (the Gateway API `add`), after the values that replace, with `%` escaped', (t) => {
  const built = buildRoute({ ...base, policy: { requestHeaders: { set: [{ name: 'x-env', value: 'prod' }], remove: ['x-debug'], add: [{ name: 'x-trace', value: '5%' }] } } });
  t.deepEqual(built['request_headers_to_add'], [
    { header: { key: 'x-env', value: 'prod' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    { header: { key: 'x-trace', value: '5%%' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' },
  ]);
  t.deepEqual(built['request_headers_to_remove'], ['x-debug']);
});

test('a route configuration with an error share says validate_clusters: false, so a static copy of it loads too', (t) => {
  const table = (route: RouteIR): RouteTableIR => ({ name: 't', virtualHosts: [{ name: '*', hostnames: ['*'], routes: [route] }] });
  const withShare = buildRouteConfiguration('t', table({ ...base, action: { kind: 'forward', cluster: 'a', split: { backends: [], totalWeight: 2, errorWeight: 1 } } }));
  t.is(withShare['validate_clusters'], false);
  t.false('validate_clusters' in buildRouteConfiguration('t', table(base)));
});
