import type { RouteIR, RouteTableIR, VirtualHostIR } from '../ir/index.js';
import test from 'ava';
import type { ResourceJson } from './resource-types.js';
import { buildRouteConfiguration } from './route-configuration.js';

const routeConfigurationName = 'ingress';

const notFound: RouteIR = { name: 'not-found', match: { kind: 'prefix', path: '/' }, action: { kind: 'direct', status: 404 } };
const app = (name: string, path = '/'): RouteIR => ({ name, match: { kind: 'prefix', path }, action: { kind: 'forward', cluster: `default/${name}/80` } });
const redirect = (host: string): VirtualHostIR => ({
  name: host,
  hostnames: [host],
  routes: [{ name: `https-redirect/${host}`, match: { kind: 'prefix', path: '/' }, action: { kind: 'redirect', statusCode: 301, scheme: 'https' } }],
});
const vhost = (host: string, routes: RouteIR[]): VirtualHostIR => ({ name: host, hostnames: [host], routes });
const table = (name: string, virtualHosts: VirtualHostIR[]): RouteTableIR => ({ name, virtualHosts });

function hosts(config: ResourceJson): ResourceJson[] {
  return config['virtual_hosts'] as ResourceJson[];
}

function routesOf(config: ResourceJson, host: string): { name: string; scheme: string }[] {
  const found = hosts(config).find((h) => h['name'] === host);
  if (found === undefined) throw new Error(`no virtual host ${host}`);
  return (found['routes'] as ResourceJson[]).map((route) => {
    const headers = ((route['match'] as ResourceJson)['headers'] as ResourceJson[] | undefined) ?? [];
    const proto = headers.find((h) => h['name'] === 'x-forwarded-proto');
    return { name: String(route['name']), scheme: proto === undefined ? 'any' : proto['invert_match'] === true ? 'plain' : 'tls' };
  });
}

test('without TLS the one table is the plain-HTTP table as it is: no scheme conditions', (t) => {
  const catchAll = vhost('*', [notFound]);
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [vhost('a.test', [app('a')]), catchAll]));
  t.is(config['name'], routeConfigurationName);
  t.deepEqual(hosts(config).map((h) => h['name']), ['a.test', '*']);
  t.deepEqual(routesOf(config, 'a.test'), [{ name: 'a', scheme: 'any' }]);
});

test('a host both schemes serve alike (the same IR object) is served once, without conditions', (t) => {
  const shared = vhost('a.test', [app('a')]);
  const catchAll = vhost('*', [notFound]);
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [shared, catchAll]), table('https', [shared, catchAll]));
  t.deepEqual(routesOf(config, 'a.test'), [{ name: 'a', scheme: 'any' }]);
  t.deepEqual(routesOf(config, '*'), [{ name: 'not-found', scheme: 'any' }]);
});

test('a redirecting TLS host: the redirect for plain HTTP first, then the TLS routes (the redirect takes every plain request)', (t) => {
  const catchAll = vhost('*', [notFound]);
  const served = vhost('a.test', [app('a', '/app'), notFound]);
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [redirect('a.test'), catchAll]), table('https', [served, catchAll]));
  t.deepEqual(routesOf(config, 'a.test'), [
    { name: 'plain-http/https-redirect/a.test', scheme: 'plain' },
    { name: 'a', scheme: 'any' },
    { name: 'not-found', scheme: 'any' },
  ]);
});

test('plain routes that do not take every request: the TLS routes get the TLS condition, so no plain request reaches them', (t) => {
  const catchAll = vhost('*', [notFound]);
  // https-only on /admin only (a 403 for plain HTTP), nothing for other plain paths.
  const plain = vhost('a.test', [{ name: 'admin', match: { kind: 'prefix', path: '/admin' }, action: { kind: 'direct', status: 403 } }]);
  const tls = vhost('a.test', [app('admin', '/admin'), app('rest')]);
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [plain, catchAll]), table('https', [tls, catchAll]));
  t.deepEqual(routesOf(config, 'a.test'), [
    { name: 'plain-http/admin', scheme: 'plain' },
    { name: 'tls/admin', scheme: 'tls' },
    { name: 'tls/rest', scheme: 'tls' },
  ]);
});

test('a host only plain HTTP has (a TLS host without rules) gets the TLS catch-all routes for TLS requests', (t) => {
  const tlsCatchAll = vhost('*', [app('default')]);
  const plainCatchAll = vhost('*', [app('default')]);
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [redirect('a.test'), plainCatchAll]), table('https', [tlsCatchAll]));
  t.deepEqual(routesOf(config, 'a.test'), [
    { name: 'plain-http/https-redirect/a.test', scheme: 'plain' },
    { name: 'default', scheme: 'any' },
  ]);
  // Two catch-alls with equal routes (different objects) are served once.
  t.deepEqual(routesOf(config, '*'), [{ name: 'default', scheme: 'any' }]);
});

test('a host served differently by both schemes is the same JSON object on the next build (its VHDS bytes are not encoded again)', (t) => {
  const catchAll = vhost('*', [notFound]);
  const plain = table('http', [redirect('a.test'), catchAll]);
  const tls = table('https', [vhost('a.test', [app('a')]), catchAll]);
  const first = buildRouteConfiguration(routeConfigurationName, plain, tls);
  const second = buildRouteConfiguration(routeConfigurationName, { ...plain, virtualHosts: [...plain.virtualHosts] }, { ...tls, virtualHosts: [...tls.virtualHosts] });
  t.is(hosts(second)[0], hosts(first)[0]);
  // A changed TLS host gives new JSON.
  const third = buildRouteConfiguration(routeConfigurationName, plain, table('https', [vhost('a.test', [app('b')]), catchAll]));
  t.not(hosts(third)[0], hosts(first)[0]);
  t.deepEqual(routesOf(third, 'a.test').map((r) => r.name), ['plain-http/https-redirect/a.test', 'b']);
});

test('the largest direct response body of either table raises the RouteConfiguration limit', (t) => {
  const page = 'x'.repeat(5000);
  const big: RouteIR = { name: 'not-found', match: { kind: 'prefix', path: '/' }, action: { kind: 'direct', status: 404, body: page } };
  const config = buildRouteConfiguration(routeConfigurationName, table('http', [vhost('*', [notFound])]), table('https', [vhost('*', [big])]));
  t.is(config['max_direct_response_body_size_bytes'], 5000);
});
