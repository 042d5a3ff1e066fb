// The Gateway API scenario in Kubernetes mode (BENCH_ONLY=gateway-api): the kube scenario's measures with HTTPRoutes
// on a Gateway of our class instead of Ingresses, on the same code (kube-convergence.ts): the Gateway API CRDs as
// shipped (deploy/gateway-api/, server-side apply, as the install guide says), N existing routes as synthetic
// HTTPRoutes (synthetic-gateway-api.ts) created through the API, then a new Service, EndpointSlice and HTTPRoute
// created through the API -> first 200 on the Gateway's listener, one HTTPRoute alone for a served Service -> first
// 200, and at the largest size up to 5,000 routes an HTTPRoute's backendRef switched 10 times under load
// (backend-switches.ts, as the peers scenario switches an Ingress's).
import { join } from 'node:path';
import { findRepoRoot } from '../test/harness/repo-root.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { switchBackendsUnderLoad, type BackendSwitches } from './backend-switches.js';
import { asKubernetesObject, measureKubeConvergence, type KubeConvergenceRow, type KubeRouteWorkload } from './kube-convergence.js';
import { httpRouteTo, syntheticGateway, syntheticGatewayApiCluster, syntheticGatewayClass } from './synthetic-gateway-api.js';
import { countRoutes } from './translation-scale.js';

/** The fewest synthetic HTTPRoutes with at least `routes` routes (0 for 0). */
export function httpRoutesForRoutes(routes: number): number {
  if (routes === 0) return 0;
  let n = Math.max(1, Math.floor(routes / 5));
  while (countRoutes(syntheticGatewayApiCluster({ httpRoutes: n, port: 1 })) < routes) n += Math.max(1, Math.floor(n / 50));
  return n;
}

/** HTTPRoutes attached to one Gateway of our class whose HTTP listener is on `port`. */
export function gatewayApiWorkload(port: number): KubeRouteWorkload {
  return {
    kind: 'HTTPRoute',
    route: (name, host, service) => httpRouteTo(name, [host], service),
    objectsForRoutes: httpRoutesForRoutes,
    routesOf: (n) => (n > 0 ? countRoutes(syntheticGatewayApiCluster({ httpRoutes: n, port })) : 0),
    // The class and the Gateway are created by prepare (before the Services), so they are left out here.
    existing: (n, backend) => ({ ...syntheticGatewayApiCluster({ httpRoutes: n, port, endpointAddress: () => backend }), gatewayClasses: [], gateways: [] }),
    async prepare(cluster, api) {
      // Server-side: the HTTPRoute CRD is too large for client-side apply's annotation.
      await cluster.kubectlOk(['apply', '--server-side', '-f', join(findRepoRoot(), 'deploy/gateway-api/')]);
      await cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gatewayclasses.gateway.networking.k8s.io', 'crd/gateways.gateway.networking.k8s.io', 'crd/httproutes.gateway.networking.k8s.io']);
      await api.create(asKubernetesObject(syntheticGatewayClass()));
      await api.create(asKubernetesObject(syntheticGateway(port)));
    },
    port: () => port,
  };
}

export type GatewayApiConvergenceRow = KubeConvergenceRow<BackendSwitches>;

/**
 * Per route count: the kube scenario's measures with HTTPRoutes; at `switchAt` existing routes also 10 backend
 * switches of one HTTPRoute under load (merge patches of its backendRef through the API).
 */
export async function runGatewayApiConvergence(routeCounts: readonly number[], runs: number, switchAt: number, switches: number): Promise<GatewayApiConvergenceRow[]> {
  const port = await freePort();
  const workload = gatewayApiWorkload(port);
  const switchObjects = httpRoutesForRoutes(switchAt);
  return measureKubeConvergence('gateway-api convergence', routeCounts, runs, workload, ['bench-gw-a', 'bench-gw-b'], async ({ n, httpPort, poller, creator, backends }) => {
    if (n !== switchObjects) return undefined;
    return switchBackendsUnderLoad({ httpPort, poller, creator, backends: [backends[0]!, backends[1]!], prefix: 'gw-', switches, route: workload.route, send: 'patch' });
  });
}
