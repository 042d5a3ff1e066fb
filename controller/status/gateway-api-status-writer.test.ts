// The Gateway API status writer's work on a build: every object's wanted status is looked up by key, so handing over a
// build's status data costs about the number of objects, not its square (a search of the status lists per object
// made every build at 10,000 HTTPRoutes wait seconds before Envoy's next push, on the controller's one thread).
import test from 'ava';
import { KubeConfig } from '@kubernetes/client-node';
import { ObjectStore } from '../store.js';
import type { HTTPRoute } from '../translate/shared/kube-objects.js';
import type { GatewayApiStatus } from '../translate/gateway-api/status-data.js';
import { GatewayApiStatusWriter } from './gateway-api-status-writer.js';

const controllerName = 'envoy-ingress.io/gateway-controller';
const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** An API server nobody listens on: the writes the queue starts fail and back off; none is awaited here. */
function unreachableKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

function routeOf(i: number, accepted: boolean): HTTPRoute {
  return {
    kind: 'HTTPRoute',
    metadata: { name: `r-${i}`, namespace: 'default', generation: 1, resourceVersion: '1' },
    spec: { parentRefs: [{ name: 'gw' }] },
    // Half already hold the wanted status, half do not.
    status: accepted ? { parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z' }] }] } : {},
  };
}

test('handing over a build of 10,000 HTTPRoutes looks each route\'s status up by key, and queues exactly those whose status differs', (t) => {
  const n = 10_000;
  const store = new ObjectStore();
  for (let i = 0; i < n; i++) store.upsert(routeOf(i, i % 2 === 0));
  const status: GatewayApiStatus = {
    gatewayClasses: [],
    gateways: [],
    routes: Array.from({ length: n }, (_, i) => ({
      ref: { kind: 'HTTPRoute', namespace: 'default', name: `r-${i}` },
      parents: [{ parentRef: { name: 'gw' }, controllerName, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted', message: '', observedGeneration: 1 }] }],
    })),
  };
  const writer = new GatewayApiStatusWriter({ kubeConfig: unreachableKubeConfig(), store, isLeader: () => true, log: quiet, controllerName, maxInFlight: 1 });
  const started = performance.now();
  writer.publishBuilt(status);
  const ms = performance.now() - started;
  writer.stop();
  // Looked up by key: tens of milliseconds on a loaded machine; searched per object: seconds.
  t.true(ms < 1500, `publishBuilt took ${Math.round(ms)} ms`);
  t.log(`publishBuilt of ${n} HTTPRoutes: ${Math.round(ms)} ms`);
});
