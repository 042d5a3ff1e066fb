import type { RouteIR, VirtualHostIR } from '../ir/index.js';
import test from 'ava';
import { corsResponseFilterName } from './cors-response.js';
import { buildRouteConfiguredHttpFilters } from './http-filters.js';
import type { ResourceJson } from './resource-types.js';
import { buildVirtualHost } from './virtual-host.js';

const headers = [{ name: 'Access-Control-Max-Age', value: '5%' }];

function route(originRegex?: string): RouteIR {
  return {
    name: 'r',
    match: { kind: 'prefix', path: '/api' },
    action: { kind: 'forward', cluster: 'c' },
    policy: { corsResponse: originRegex === undefined ? { headers } : { originRegex, headers }, allowedSourceCidrs: [] },
  };
}

const host = (r: RouteIR): VirtualHostIR => ({ name: 'h', hostnames: ['h.test'], routes: [r] });
const routesOf = (r: RouteIR): ResourceJson[] => buildVirtualHost(host(r))['routes'] as ResourceJson[];

test('origin *: a preflight route (OPTIONS, 204, headers, no per-route filters) before the route, which sets the headers on every response', (t) => {
  const [preflight, main, ...rest] = routesOf(route());
  t.is(rest.length, 0);
  t.deepEqual(preflight, {
    name: 'r/cors-preflight',
    match: { path_separated_prefix: '/api', headers: [{ name: ':method', string_match: { exact: 'OPTIONS' } }] },
    direct_response: { status: 204 },
    response_headers_to_add: [
      { header: { key: 'Access-Control-Allow-Origin', value: '*' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
      { header: { key: 'Access-Control-Max-Age', value: '5%%' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
    ],
  });
  const perFilter = main?.['typed_per_filter_config'] as ResourceJson;
  t.truthy(perFilter['envoy.filters.http.rbac'], 'the route keeps its own filters');
  t.deepEqual((perFilter[corsResponseFilterName] as ResourceJson)['mutations'], {
    response_mutations: [
      { append: { header: { key: 'Access-Control-Allow-Origin', value: '*' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' } },
      { append: { header: { key: 'Access-Control-Max-Age', value: '5%%' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' } },
    ],
  });
});

test('a list of origins: preflight and headers only for a matching Origin (echoed); the route itself unchanged for the others', (t) => {
  const routes = routesOf(route('(?i)^.*(?:https://a\\.test)$'));
  t.deepEqual(routes.map((r) => r['name']), ['r/cors-preflight', 'r/cors', 'r']);
  const origin = { name: 'origin', string_match: { safe_regex: { regex: '(?i)^.*(?:https://a\\.test)$' } } };
  t.deepEqual((routes[0]?.['match'] as ResourceJson)['headers'], [{ name: ':method', string_match: { exact: 'OPTIONS' } }, origin]);
  t.deepEqual((routes[1]?.['match'] as ResourceJson)['headers'], [origin]);
  const mutation = ((routes[1]?.['typed_per_filter_config'] as ResourceJson)[corsResponseFilterName] as ResourceJson)['mutations'] as ResourceJson;
  t.deepEqual((mutation['response_mutations'] as ResourceJson[])[0], {
    append: { header: { key: 'Access-Control-Allow-Origin', value: '%REQ(origin)%' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
  });
  t.is((routes[2]?.['typed_per_filter_config'] as ResourceJson)[corsResponseFilterName], undefined);
  t.is((routes[2]?.['match'] as ResourceJson)['headers'], undefined);
});

test('the CORS headers filter comes before every filter that can answer by itself (RBAC, rate limit, authentication)', (t) => {
  const r = route();
  const withAuth: RouteIR = { ...r, policy: { ...r.policy, clientRateLimit: { tokensPerFill: 1, fillIntervalMs: 1000, burst: 1, statusCode: 503 } } };
  const names = buildRouteConfiguredHttpFilters([{ name: 't', virtualHosts: [host(withAuth)] }]).map((f) => String(f['name']));
  const at = names.indexOf(corsResponseFilterName);
  t.true(at >= 0);
  // Only the client certificate checks come first (nginx checks the certificate before anything of the server runs).
  t.deepEqual(names.slice(0, at).filter((n) => !n.startsWith('client-certificate')).filter((n) => !/custom_response|auth_signin/.test(n)), []);
  for (const denying of ['envoy.filters.http.rbac', 'envoy.filters.http.local_ratelimit', 'envoy-ingress.basic_auth', 'envoy-ingress.auth_url']) {
    t.true(names.indexOf(denying) > at, denying);
  }
});
