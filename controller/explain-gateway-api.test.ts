// explain for requests to Gateway API listeners, on the IR of the Gateway API golden cases (testdata/translate/).
import { readFileSync } from 'node:fs';
import test from 'ava';
import { findRepoRoot } from '../test/harness/repo-root.js';
import { buildConfig } from './pipeline/build-config.js';
import { explain, formatExplanation, type ExplainInput, type ExplainRequest } from './explain.js';
import { gatewayExplainContext } from './explain-gateway-context.js';
import { clusterStateFromYaml } from './translate/shared/cluster-state-yaml.js';
import { defaultTranslateOptions } from './translate/shared/options.js';

const envoy = { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 };

function inputOfYaml(yaml: string): ExplainInput {
  const parsed = clusterStateFromYaml(yaml);
  const built = buildConfig(parsed.state, { translate: { ...defaultTranslateOptions, ...parsed.options }, envoy });
  return { ir: built.translation.ir, endpoints: [...built.endpoints.values()], diagnostics: built.translation.diagnostics, ...gatewayExplainContext(parsed.state) };
}

function golden(name: string): ExplainInput {
  return inputOfYaml(readFileSync(`${findRepoRoot()}/testdata/translate/${name}.in.yaml`, 'utf8'));
}

const precedence = golden('gateway-api-precedence');
const at = (request: Omit<ExplainRequest, 'host' | 'port'>): ExplainRequest => ({ host: 'app.example.com', port: 9080, ...request });

test('the listener is chosen by port; the route by the spec precedence, with header, query and method matches', (t) => {
  const e = explain(precedence, at({ path: '/a/x', method: 'POST', headers: { X: '1', y: '1' } }));
  t.deepEqual(e.gatewayListener, { name: 'gateway/http/9080', port: 9080, gateways: ['default/gw'] });
  // POST: the method match loses; of the header matches the older route's two headers beat the newer route's one.
  t.is(e.route?.route, 'httproute/default/older/rule/2/match/0');
  t.deepEqual(e.route?.source, { kind: 'HTTPRoute', namespace: 'default', name: 'older' });
  t.deepEqual([e.route?.rule, e.route?.path], [2, 0]);
  t.deepEqual(e.route?.conditions, ['header x = "1"', 'header y = "1"']);
  const method = e.routes.find((r) => r.route === 'httproute/default/newer/rule/3/match/0');
  t.is(method?.outcome, 'no-match');
  t.regex(method?.reason ?? '', /needs method GET, the request has POST/);
  const oneHeader = e.routes.find((r) => r.route === 'httproute/default/newer/rule/1/match/0');
  t.is(oneHeader?.outcome, 'shadowed');
  t.regex(e.verdict, /^503 because Service default\/a port 80 \(from HTTPRoute default\/older rule 2 match 0 \(Prefix \/a, header x = "1", header y = "1"\)\) has no ready endpoints/);
});

test('a method match beats header matches; a query parameter match needs the parameter', (t) => {
  const get = explain(precedence, at({ path: '/a/x', headers: { x: '1' } }));
  t.is(get.route?.route, 'httproute/default/newer/rule/3/match/0');
  const query = get.routes.find((r) => r.route === 'httproute/default/newer/rule/2/match/0');
  t.regex(query?.reason ?? '', /needs query parameter q = "1" and the query has no q/);
  const post = explain(precedence, at({ path: '/a/x?q=1', method: 'POST', headers: { x: '1' } }));
  t.is(post.route?.route, 'httproute/default/newer/rule/2/match/0', 'most query parameter matches, after the header counts tie');
  const nothing = explain(precedence, at({ path: '/a/x', method: 'POST' }));
  t.is(nothing.route?.route, 'httproute/default/older/rule/0/match/0', 'the older route wins a tie');
  t.is(nothing.routes.find((r) => r.route === 'httproute/default/newer/rule/0/match/0')?.outcome, 'shadowed');
});

test('weights: each backendRef its share, the invalid ones\' share answered 500; a rule with only invalid refs answers 500 naming them', (t) => {
  const weights = golden('gateway-api-weights');
  const valid = explain(weights, { host: 'any.test', path: '/valid', port: 9080 });
  t.is(valid.response.kind, 'forward');
  const backends = valid.response.kind === 'forward' ? valid.response.backends : undefined;
  t.deepEqual(
    backends?.map((b) => [b.service?.name ?? null, b.weight, b.totalWeight]),
    [
      ['a', 3, 4],
      ['b', 1, 4],
    ],
  );
  const partly = explain(weights, { host: 'any.test', path: '/partly', port: 9080 });
  const shares = partly.response.kind === 'forward' ? partly.response.backends : undefined;
  t.deepEqual(
    shares?.map((b) => [b.cluster, b.weight, b.totalWeight]),
    [
      ['default/a/80', 2, 6],
      [null, 4, 6],
    ],
  );
  t.regex(partly.verdict, /split by weight: 2\/6 Service default\/a port 80, 4\/6 answered 500 \(invalid backendRefs\)/);
  t.true(partly.diagnostics.some((d) => d.reason === 'RefNotPermitted'), 'the problems of the selected rule are shown');
  t.false(partly.diagnostics.some((d) => d.message.startsWith('rule 2:')), 'not those of other rules');
  const broken = explain(weights, { host: 'any.test', path: '/broken', port: 9080 });
  t.is(broken.status, 500);
  t.regex(broken.verdict, /^500 because the backendRefs or filters of HTTPRoute default\/split rule 2 match 0 \(Prefix \/broken\) cannot be used: rule 2: service default\/missing not found$/);
  const text = formatExplanation(partly);
  t.regex(text, /weight 4\/6: answered 500 \(invalid backendRefs\)/);
  t.regex(text, /\[HTTPRoute default\/split rule 1 match 0\]/);
});

test('Gateways with ports of their own: by Gateway and listener name, or by the Envoy port; ambiguity and unknown ports are errors naming the listeners', (t) => {
  const ownPorts = golden('gateway-api-own-ports');
  const a = explain(ownPorts, { host: 'shop.example.com', path: '/', gateway: { namespace: 'shop', name: 'a', listener: 'http' } });
  t.is(a.gatewayListener?.name, 'gateway/shop/a/http/80');
  t.is(a.route?.source?.name, 'on-a');
  const b = explain(ownPorts, { host: 'shop.example.com', path: '/', port: a.gatewayListener!.port === 20000 ? 20001 : 20000 });
  t.deepEqual(b.gatewayListener?.gateways, ['shop/b']);
  t.is(b.route?.source?.name, 'on-b', "b's own socket serves only b's route");
  t.throws(() => explain(ownPorts, { host: 'shop.example.com', path: '/', gateway: { namespace: 'shop', name: 'a' } }), { message: /several listeners match.*gateway\/shop\/a\/http\/8080/ });
  t.throws(() => explain(ownPorts, { host: 'shop.example.com', path: '/', port: 80 }), { message: /no listener for this request; listeners: .*gateway\/shop\/b\/http\/80 \(port 20000, Gateway shop\/b\)/ });
  t.throws(() => explain(ownPorts, { host: 'x', path: '/', gateway: { namespace: 'shop', name: 'a', listener: 'nope' } }), { message: /Gateway shop\/a has no listener nope/ });
});

test('Gateways with addresses of their own: the same port, chosen by address', (t) => {
  const pool = golden('gateway-api-address-pool');
  const listeners = pool.ir.listeners.filter((l) => l.address !== undefined);
  t.true(listeners.length >= 2);
  for (const listener of listeners) {
    const e = explain(pool, { host: 'any.example.com', path: '/', port: listener.port, address: listener.address! });
    t.is(e.gatewayListener?.name, listener.name);
    t.is(e.request.address, listener.address);
  }
});

const wildcardYaml = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: envoy}
spec: {controllerName: envoy-ingress.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: envoy
  listeners: [{name: web, port: 9080, protocol: HTTP, hostname: "*.example.com"}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules:
    - name: moved
      matches: [{path: {type: Exact, value: /old}}]
      filters: [{type: RequestRedirect, requestRedirect: {scheme: https, hostname: new.example.com, statusCode: 301}}]
    - name: api
      matches: [{path: {type: PathPrefix, value: /api}}]
      filters: [{type: URLRewrite, urlRewrite: {hostname: internal.example.com, path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}]
      backendRefs: [{name: web, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.1], conditions: {ready: true}}]
ports: [{port: 8080}]
`;

test('a Gateway API wildcard covers one or more labels, never the suffix itself; rule names, redirects and rewrites are named', (t) => {
  const input = inputOfYaml(wildcardYaml);
  const deep = explain(input, { host: 'a.b.example.com', path: '/api/v1/items?x=1', port: 9080 });
  t.is(deep.virtualHost, '*.example.com');
  t.regex(deep.virtualHosts[0]?.reason ?? '', /one or more labels/);
  t.is(deep.route?.ruleName, 'api');
  t.deepEqual(deep.response.kind === 'forward' ? deep.response.upstream : undefined, { path: '/v1/items', host: 'internal.example.com' });
  t.regex(deep.verdict, /^served by HTTPRoute default\/web rule 1 \(api\) match 0 \(Prefix \/api\) -> Service default\/web port 80 -> 1 ready endpoint\(s\): 10\.0\.0\.1:8080 \(upstream Host internal\.example\.com path \/v1\/items\)$/);
  t.regex(formatExplanation(deep), /upstream request: Host internal\.example\.com path \/v1\/items/);
  t.is(explain(input, { host: 'example.com', path: '/api', port: 9080 }).status, 404);
  const moved = explain(input, { host: 'x.example.com', path: '/old?q=1', port: 9080 });
  t.deepEqual(moved.response, { kind: 'redirect', status: 301, location: 'https://new.example.com/old?q=1' });
  t.regex(moved.verdict, /set by HTTPRoute default\/web rule 0 \(moved\) match 0 \(Exact \/old\)/);
});

test('without --port or --gateway the Ingress listeners answer, not a Gateway listener', (t) => {
  const input = inputOfYaml(wildcardYaml);
  const e = explain(input, { host: 'x.example.com', path: '/api' });
  t.is(e.gatewayListener, undefined);
  t.is(e.routeTable, 'ingress_http');
  t.is(e.status, 404);
});

test('a ListenerSet\'s listener is chosen by its parent Gateway and its name; a name the Gateway has is the Gateway\'s', (t) => {
  const sets = golden('gateway-api-listener-sets');
  const own = explain(sets, { host: 'a.example.com', path: '/', gateway: { namespace: 'infra', name: 'shared', listener: 'own-port' } });
  t.is(own.gatewayListener?.port, 9081);
  t.is(own.route?.source?.name, 'team-a');
  const shared = explain(sets, { host: 'a2.example.com', path: '/', gateway: { namespace: 'infra', name: 'shared', listener: 'shared-port' } });
  t.is(shared.gatewayListener?.port, 9080);
  t.is(shared.route?.source?.name, 'team-a');
  t.is(explain(sets, { host: 'www.example.com', path: '/', gateway: { namespace: 'infra', name: 'shared', listener: 'main' } }).route?.source?.name, 'site');
  t.throws(() => explain(sets, { host: 'x', path: '/', gateway: { namespace: 'infra', name: 'shared', listener: 'nope' } }), { message: /Gateway infra\/shared has no listener nope/ });
});
