import type { RoutePolicyIR, RouteTableIR } from '../ir/index.js';
import test from 'ava';
import { buildHttpListener, buildHttpsListener } from './listener.js';
import type { ResourceJson } from './resource-types.js';

function table(policy: RoutePolicyIR): RouteTableIR {
  return {
    name: 'ingress',
    virtualHosts: [{ name: 'a.test', hostnames: ['a.test'], routes: [{ name: 'r', match: { kind: 'prefix', path: '/' }, action: { kind: 'forward', cluster: 'c' }, policy }] }],
  };
}

function connectionManager(policy: RoutePolicyIR): ResourceJson {
  const listener = buildHttpListener({ name: 'ingress_http', routes: { routeConfigName: 'ingress', tables: [table(policy)] }, listenAddress: '127.0.0.1', port: 8080 });
  const chain = (listener['filter_chains'] as ResourceJson[])[0] as ResourceJson;
  return ((chain['filters'] as ResourceJson[])[0] as ResourceJson)['typed_config'] as ResourceJson;
}

test('the client\'s X-Request-ID is kept only when a route of the listener asks for it (Ingresses read with the nginx annotations)', (t) => {
  t.is(connectionManager({ keepClientRequestId: true })['preserve_external_request_id'], true);
  t.is(connectionManager({ forwardedHost: true })['preserve_external_request_id'], undefined);
});

test('the access log has a route filter only while some route writes no line', (t) => {
  const logOf = (policy: RoutePolicyIR): ResourceJson => (connectionManager(policy)['access_log'] as ResourceJson[])[0] as ResourceJson;
  t.truthy(logOf({ accessLog: false })['filter']);
  t.is(logOf({})['filter'], undefined);
});

test('the HTTPS listener reads the route tables once, not once per TLS filter chain (O(chains x hosts) at 5,000 certificates)', (t) => {
  const readsFor = (chains: number): number => {
    let reads = 0;
    const hosts = new Proxy(table({ accessLog: false }).virtualHosts, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const counted: RouteTableIR = { name: 'ingress', virtualHosts: hosts };
    const servers = Array.from({ length: chains }, (_, i) => ({ name: `https/${i}.test`, serverNames: [`${i}.test`], secret: `s${i}` }));
    const listener = buildHttpsListener({ name: 'ingress_https', chains: [{ servers, routes: { routeConfigName: 'ingress', tables: [counted] } }], listenAddress: '127.0.0.1', port: 8443 });
    t.is((listener['filter_chains'] as ResourceJson[]).length, chains);
    return reads;
  };
  t.is(readsFor(50), readsFor(1));
});
