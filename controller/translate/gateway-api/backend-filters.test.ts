import test from 'ava';
import { indexServices } from '../shared/backend.js';
import type { GRPCRoute, HTTPBackendRef, HTTPRoute, Service } from '../shared/kube-objects.js';
import { translateGrpcRouteRules } from './grpcroute-rules.js';
import { translateHttpRouteRules } from './httproute-rules.js';

const service = (name: string): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'ns' }, spec: { ports: [{ port: 8080, protocol: 'TCP' }] } });
const services = indexServices([service('v1'), service('v2')]);
const route = (backendRefs: HTTPBackendRef[]): HTTPRoute => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'r', namespace: 'ns' },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs }] },
});
const setBackend = (value: string) => [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'Backend', value }] } }];

test("each backendRef's header modifiers go with its own share of the requests, the route's own cluster included", (t) => {
  const rules = translateHttpRouteRules(
    route([
      { name: 'v1', port: 8080, weight: 10, filters: setBackend('infra-backend-v1') },
      { name: 'v2', port: 8080, weight: 10, filters: [...setBackend('infra-backend-v2'), { type: 'ResponseHeaderModifier', responseHeaderModifier: { remove: ['Server'] } }] },
    ]),
    services,
    [],
  );
  t.deepEqual(rules.problems, []);
  t.deepEqual(rules.matches[0]?.ir.action, {
    kind: 'forward',
    cluster: 'ns/v1/8080',
    clusterHeaders: { request: { set: [{ name: 'backend', value: 'infra-backend-v1' }], remove: [] } },
    split: {
      backends: [
        {
          cluster: 'ns/v2/8080',
          weight: 10,
          headers: { request: { set: [{ name: 'backend', value: 'infra-backend-v2' }], remove: [] }, response: { set: [], remove: ['server'] } },
        },
      ],
      totalWeight: 20,
    },
  });
  // No rule-level policy: the changes are the backends' alone.
  t.is(rules.matches[0]?.ir.policy, undefined);
});

test('a single backendRef with filters forwards with them; without filters, nothing is added', (t) => {
  const one = translateHttpRouteRules(route([{ name: 'v1', port: 8080, filters: setBackend('x') }]), services, []);
  t.deepEqual(one.matches[0]?.ir.action, { kind: 'forward', cluster: 'ns/v1/8080', clusterHeaders: { request: { set: [{ name: 'backend', value: 'x' }], remove: [] } } });
  const plain = translateHttpRouteRules(route([{ name: 'v1', port: 8080 }]), services, []);
  t.deepEqual(plain.matches[0]?.ir.action, { kind: 'forward', cluster: 'ns/v1/8080' });
});

test("a backendRef filter that cannot be served turns that ref's share into 500s and says so (PartiallyInvalid), the others are served", (t) => {
  const rules = translateHttpRouteRules(
    route([
      { name: 'v1', port: 8080, filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'x' } }] },
      { name: 'v2', port: 8080 },
      // The same Service port as the one before, with other filters: Envoy takes a cluster once per split.
      { name: 'v2', port: 8080, filters: setBackend('again') },
    ]),
    services,
    [],
  );
  t.deepEqual(rules.matches[0]?.ir.action, { kind: 'forward', cluster: 'ns/v2/8080', split: { backends: [], totalWeight: 3, errorWeight: 2 } });
  t.deepEqual(
    rules.problems.map((p) => [p.kind, p.reason]),
    [
      ['rule', 'UnsupportedFilter'],
      ['rule', 'UnsupportedFilter'],
    ],
  );
  t.regex(rules.problems[0]?.message ?? '', /backendRef 0 \(v1\): filter URLRewrite on a backendRef is not supported/);
  t.regex(rules.problems[1]?.message ?? '', /backendRef 2 \(v2\): it sends to the same Service port as an earlier backendRef, with other filters/);
});

test("a GRPCRoute backendRef's header modifiers go with its share too; a mirror there is refused, not dropped", (t) => {
  const grpc = (backendRefs: HTTPBackendRef[]): GRPCRoute => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GRPCRoute',
    metadata: { name: 'g', namespace: 'ns' },
    spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs }] },
  });
  const served = translateGrpcRouteRules(grpc([{ name: 'v1', port: 8080, filters: setBackend('grpc-v1') }]), services, []);
  t.deepEqual(served.problems, []);
  t.deepEqual(served.matches[0]?.ir.action, { kind: 'forward', cluster: 'ns/v1/8080~h2c', clusterHeaders: { request: { set: [{ name: 'backend', value: 'grpc-v1' }], remove: [] } } });
  const mirror = [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'v2', port: 8080 } } }];
  const refused = translateGrpcRouteRules(grpc([{ name: 'v1', port: 8080, filters: mirror }, { name: 'v2', port: 8080 }]), services, []);
  t.deepEqual(refused.matches[0]?.ir.action, { kind: 'forward', cluster: 'ns/v2/8080~h2c', split: { backends: [], totalWeight: 2, errorWeight: 1 } });
  t.regex(refused.problems[0]?.message ?? '', /backendRef 0 \(v1\): filter RequestMirror on a backendRef is not supported/);
});
