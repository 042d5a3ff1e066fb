import test from 'ava';
import type { RetryPolicyIR, RouteIR, RouteTableIR } from '../ir/index.js';
import { buildRouteConfiguredHttpFilters } from './http-filters.js';
import { buildRouteConfiguration } from './route-configuration.js';
import { bufferFilterName, corsFilterName, fractionalPercentJson, rbacFilterName } from './route-policy.js';
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

test("a backend's own header changes ride on its weighted cluster; a lone backend with some becomes a one-share split", (t) => {
  const request = { set: [{ name: 'backend', value: 'a' }], remove: ['x-drop'] };
  const response = { set: [], remove: [], add: [{ name: 'x-from', value: 'b' }] };
  const split = buildRoute({ ...base, action: { kind: 'forward', cluster: 'a', clusterHeaders: { request }, split: { backends: [{ cluster: 'b', weight: 1, headers: { response } }], totalWeight: 2 } } });
  t.deepEqual(split['route'], {
    weighted_clusters: {
      clusters: [
        { name: 'a', weight: 1, request_headers_to_add: [{ header: { key: 'backend', value: 'a' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' }], request_headers_to_remove: ['x-drop'] },
        { name: 'b', weight: 1, response_headers_to_add: [{ header: { key: 'x-from', value: 'b' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' }] },
      ],
    },
  });
  const lone = buildRoute({ ...base, action: { kind: 'forward', cluster: 'a', clusterHeaders: { request } } });
  t.deepEqual((lone['route'] as Record<string, Record<string, unknown[]>>)['weighted_clusters']?.['clusters']?.length, 1);
  t.false('request_headers_to_add' in lone);
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

test('mirrors: one request_mirror_policy each, a share as a runtime fraction (per hundred when whole, else per million)', (t) => {
  const built = buildRoute({
    ...base,
    policy: { mirrors: [{ cluster: 'm1' }, { cluster: 'm2', fraction: { numerator: 20, denominator: 100 } }, { cluster: 'm3', fraction: { numerator: 1, denominator: 3 } }] },
  });
  t.deepEqual((built['route'] as Record<string, unknown>)['request_mirror_policies'], [
    { cluster: 'm1', disable_shadow_host_suffix_append: true },
    { cluster: 'm2', disable_shadow_host_suffix_append: true, runtime_fraction: { default_value: { numerator: 20, denominator: 'HUNDRED' } } },
    { cluster: 'm3', disable_shadow_host_suffix_append: true, runtime_fraction: { default_value: { numerator: 333_333, denominator: 'MILLION' } } },
  ]);
  t.deepEqual(fractionalPercentJson(25, 50), { numerator: 50, denominator: 'HUNDRED' });
});

test("a redirect's prefix replacement is a regex rewrite of the matched prefix, never leaving //", (t) => {
  const redirect = (path: string, replacement: string) =>
    buildRoute({ ...base, match: { kind: 'prefix', path }, action: { kind: 'redirect', statusCode: 302, path: { kind: 'replace-prefix', replacement } } })['redirect'];
  t.deepEqual(redirect('/old', '/new'), { regex_rewrite: { pattern: { regex: '^/old' }, substitution: '/new' }, response_code: 'FOUND' });
  t.deepEqual(redirect('/old', '/'), { regex_rewrite: { pattern: { regex: '^/old/?' }, substitution: '/' }, response_code: 'FOUND' });
});

test('retry backoff and a try timeout without retries', (t) => {
  const route = (retry: RetryPolicyIR) => buildRoute({ ...base, policy: { retry } })['route'] as Record<string, unknown>;
  t.deepEqual(route({ on: ['retriable-status-codes'], numRetries: 3, retriableStatusCodes: [500], backoffBaseMs: 100 })['retry_policy'], {
    retry_on: 'retriable-status-codes',
    num_retries: 3,
    retriable_status_codes: [500],
    retry_back_off: { base_interval: '0.1s' },
  });
  t.deepEqual(route({ on: [], numRetries: 0, perTryTimeoutMs: 500 })['retry_policy'], { retry_on: '', num_retries: 0, per_try_timeout: '0.5s' });
});

test('every per-route filter is carried always, disabled, in the filter chain\'s order: whether routes use one or not, the filters are the same', (t) => {
  const table = (): RouteTableIR => ({
    name: 't',
    virtualHosts: [{ name: '*', hostnames: ['*'], routes: [{ ...base, policy: { maxRequestBodyBytes: 10, allowedSourceCidrs: [] } }] }],
  });
  const filtersOf = (t2: RouteTableIR) => buildRouteConfiguredHttpFilters([t2]).map((f) => [f['name'], f['disabled']]);
  const empty = filtersOf({ name: 'e', virtualHosts: [] });
  t.deepEqual(filtersOf(table()), empty);
  t.true(empty.every(([, disabled]) => disabled === true));
  const names = empty.map(([name]) => name);
  t.true(names.indexOf(rbacFilterName) < names.indexOf(corsFilterName) && names.indexOf(corsFilterName) < names.indexOf(bufferFilterName));
});
