// Scenario 2, Kubernetes mode: the controller watches a real kube-apiserver (with etcd, started on loopback as
// the tests do), a real Envoy serves its config, the backend runs on a test host (a network namespace). With N existing routes created through the API, create one new
// Service, EndpointSlice and Ingress through the API (as `kubectl apply` does, one request each, without
// kubectl's own start-up) and time until Envoy answers 200 for the new host, polling every millisecond.
// What Kubernetes mode adds to standalone mode is the API server's part: the create requests and the watch
// event reaching the controller's informers.
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { startKubeCluster, type KubeCluster } from '../test/harness/kube-cluster.js';
import { createLogger } from '../cli/logger.js';
import { startKubeController, type KubeController } from '../cli/kube-controller.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { appObjects, envoysInSync, pluralOf, ingressManifest, ingressesForRoutes, progress, summarizeStages, timeApplies, until, withApiVersion, type RouteKind, type RouteManifest } from './convergence.js';
import { createTestHost, type RemoteEcho } from '../test/harness/netns-host.js';
import { startEnvoyStack, type BenchController, type StartController } from './envoy-stack.js';
import { startApiCreator } from './api-creator.js';
import { startStatusPoller, type StatusPoller } from './status-poller.js';
import { summarize, type Summary } from './stats.js';
import type { ClusterState } from '../controller/translate/shared/kube-objects.js';
import { benchNamespace, objectsOf, syntheticCluster } from './synthetic-cluster.js';
import { countRoutes } from './translation-scale.js';

/** One apply in Kubernetes mode, in milliseconds (the later stages as in standalone mode, see ApplyStages). */
export interface KubeApplyStages {
  /** The three create requests (Service, EndpointSlice, Ingress), until the API server answered the last. */
  api: number;
  /** The Ingress created -> its watch event in the controller's store: the API server's watch latency. */
  watch: number;
  build: number;
  ordering: number;
  envoyApply: number;
  firstOk: number;
}

export interface KubeConvergenceResult {
  existingRoutes: number;
  existingIngresses: number;
  /** How long creating the existing objects through the API took (seconds), for scale. */
  loadSeconds: number;
  applyTo200Ms: Summary;
  stages: Record<keyof KubeApplyStages, Summary>;
  /**
   * One Ingress created through the API (one request, as a user adding a route does) for a Service that is already
   * served (its cluster and endpoints are in Envoy) -> first 200; `api` is that one request.
   */
  oneIngress: { applyTo200Ms: Summary; stages: Record<keyof KubeApplyStages, Summary> };
}

export function asKubernetesObject(o: object): KubernetesObject {
  return withApiVersion(o) as KubernetesObject;
}

/** Creates `objects` through the API, `concurrency` requests at a time (order kept within each kind's batch). */
export async function createAll(api: KubernetesObjectApi, objects: readonly KubernetesObject[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects.length) {
      const o = objects[next++]!;
      await api.create(o);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export const controllerIn = (cluster: KubeCluster) => async ({ httpPort, httpsPort }: Parameters<StartController>[0]): Promise<KubeController> => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.adminKubeconfigPath);
  return startKubeController({
    kubeConfig,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: { ...defaultTranslateOptions, httpsRedirectPort: httpsPort },
    envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
    log: createLogger('silent'),
    publish: {},
    leaderElection: { namespace: 'default', name: 'envoy-ingress-bench', identity: `bench-${process.pid}` },
  });
};

/**
 * What a Kubernetes-mode scenario serves and creates: Ingresses of our IngressClass (ingressWorkload), or HTTPRoutes
 * on a Gateway of our GatewayClass (bench/gateway-api-convergence.ts). The measuring code is the same for both.
 */
export interface KubeRouteWorkload {
  kind: RouteKind;
  /** The route object of a new host (create requests, switches). */
  route: RouteManifest;
  /** The fewest route objects of the synthetic state with at least `routes` routes, and how many routes `n` of them make. */
  objectsForRoutes(routes: number): number;
  routesOf(n: number): number;
  /** The synthetic state of `n` route objects with their Services and EndpointSlices, endpoints on `backend`. */
  existing(n: number, backend: { address: string; port: number }): ClusterState;
  /** Before any existing object, once the bench namespace exists: CRDs, the class, the Gateway. */
  prepare(cluster: KubeCluster, api: KubernetesObjectApi): Promise<void>;
  /** Where Envoy serves the routes (the Ingress HTTP port, or the Gateway listener's). */
  port(stack: { httpPort: number }): number;
}

/** Ingresses with our IngressClass: the kube and peers scenarios. */
export function ingressWorkload(tls: { certPem: string; keyPem: string }): KubeRouteWorkload {
  return {
    kind: 'Ingress',
    route: ingressManifest,
    objectsForRoutes: (routes) => ingressesForRoutes(routes, tls),
    routesOf: (n) => routesOf(n, tls),
    existing: (n, backend) => ({ ...syntheticCluster({ ingresses: n, tls, endpointAddress: () => backend }), ingressClasses: [] }),
    async prepare(_cluster, api) {
      await api.create({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'envoy-ingress' },
        spec: { controller: 'envoy-ingress.io/ingress-controller' },
      } as KubernetesObject);
    },
    port: (stack) => stack.httpPort,
  };
}

/**
 * Creates the bench namespace, what the workload prepares (the IngressClass for Ingresses) and `n` synthetic route
 * objects (with their Services, EndpointSlices and Secrets, endpoints on `backend`) through the API; resolves with
 * how long creating the `n` took in seconds.
 */
export async function loadKubeCluster(cluster: KubeCluster, n: number, backend: { address: string; port: number }, workload: KubeRouteWorkload): Promise<number> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.adminKubeconfigPath);
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  await api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: benchNamespace } });
  await workload.prepare(cluster, api);
  const loadStart = performance.now();
  if (n > 0) {
    const objects = objectsOf(workload.existing(n, backend)).map(asKubernetesObject);
    // Services, EndpointSlices and Secrets before the routes that name them.
    await createAll(api, objects.filter((o) => o.kind !== workload.kind), 8);
    await createAll(api, objects.filter((o) => o.kind === workload.kind), 8);
  }
  return (performance.now() - loadStart) / 1000;
}

/** Waits until the controller's informers listed `n` route objects of `kind` and Envoy ACKed the config built from them. */
export async function untilServed(controller: BenchController, n: number, kind: RouteKind = 'Ingress'): Promise<void> {
  await until(() => controller.store.count(kind) >= n, `the informers to list every ${kind}`);
  await controller.reconciler.idle();
  await until(() => envoysInSync(controller), 'Envoy to ACK the initial config');
}

/**
 * Resolves once the controller leads and its status writers have nothing queued or in flight, after its builds:
 * the measures start from a quiet controller. Without this the first applies ran while the status of every existing
 * HTTPRoute was still being written (a thousand writes and their watch events, seconds), which Ingresses in this
 * bench do not have (no published address: no Ingress status to write).
 */
export async function untilStatusWritten(controller: Pick<KubeController, 'elector' | 'reconciler' | 'statusWriter' | 'gatewayStatus'>): Promise<void> {
  await until(() => controller.elector.isLeader(), 'the controller to lead (it writes status only then)');
  // A write's watch event may queue another write (a Gateway's counts, Programmed after an ACK): until two rounds agree
  // (or two minutes: statuses that never settle are then measured as they are).
  const deadline = performance.now() + 120_000;
  for (let quiet = 0; quiet < 2 && performance.now() < deadline; ) {
    const before = controller.gatewayStatus.stats.writes + controller.statusWriter.stats.writes;
    await controller.reconciler.idle();
    await Promise.all([controller.statusWriter.idle(), controller.gatewayStatus.idle()]);
    await new Promise((r) => setTimeout(r, 50));
    quiet = controller.gatewayStatus.stats.writes + controller.statusWriter.stats.writes === before ? quiet + 1 : 0;
  }
}

/** One size of a Kubernetes-mode scenario: its loaded API server and what every size shares. */
export interface KubeSize {
  cluster: KubeCluster;
  /** Existing Ingresses, created through the API before `measure` runs. */
  n: number;
  loadSeconds: number;
  /** Echo backends on a test host (the first serves the existing Ingresses), named as asked. */
  backends: RemoteEcho[];
  poller: StatusPoller;
}

/** Echo backends on a test host (one per name asked) and the status poller, shared by a scenario's measures. */
export interface KubeTools {
  backends: RemoteEcho[];
  poller: StatusPoller;
}

/**
 * Runs `body` with a test host, its echo backends (one per name in `services`) and a status poller, removed after.
 * The API server refuses loopback addresses in EndpointSlices: the backends run on a test host (a network
 * namespace with its own address, as the Kubernetes-mode tests do).
 */
export async function withKubeTools<T>(services: readonly string[], body: (tools: KubeTools) => Promise<T>): Promise<T> {
  const testHost = await createTestHost();
  try {
    const backends: RemoteEcho[] = [];
    for (const service of services) backends.push(await testHost.startEcho({ service }));
    const poller = await startStatusPoller();
    try {
      return await body({ backends, poller });
    } finally {
      await poller.close();
    }
  } finally {
    await testHost.destroy();
  }
}

/**
 * For each route count: a fresh kube-apiserver and etcd (nothing here deletes namespaces: no controller-manager
 * runs) loaded with that many routes through the API, then `measure`; `tools` are shared by all sizes.
 */
export async function forEachKubeSize<T>(
  label: string,
  routeCounts: readonly number[],
  workload: KubeRouteWorkload,
  { backends, poller }: KubeTools,
  measure: (size: KubeSize) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  for (const routes of routeCounts) {
    const n = workload.objectsForRoutes(routes);
    progress(`${label}: ${routes} existing routes (${n} ${pluralOf(workload.kind)}): starting kube-apiserver and etcd`);
    const cluster = await startKubeCluster();
    try {
      const loadSeconds = await loadKubeCluster(cluster, n, backends[0]!, workload);
      progress(`${label}: ${n} ${pluralOf(workload.kind)} created through the API in ${loadSeconds.toFixed(1)} s`);
      results.push(await measure({ cluster, n, loadSeconds, backends, poller }));
    } finally {
      await cluster.stop();
    }
  }
  return results;
}

/** The number of routes the synthetic cluster of `n` Ingresses has. */
export function routesOf(n: number, tls: { certPem: string; keyPem: string }): number {
  return n > 0 ? countRoutes(syntheticCluster({ ingresses: n, tls })) : 0;
}

/** One size of a Kubernetes-mode convergence scenario, for any route kind (see KubeConvergenceResult). */
export interface KubeConvergenceRow<Extra = object> {
  existingRoutes: number;
  /** Existing route objects (Ingresses, HTTPRoutes). */
  existingObjects: number;
  loadSeconds: number;
  applyTo200Ms: Summary;
  stages: Record<keyof KubeApplyStages, Summary>;
  /** One route object created (one request) for a Service Envoy already serves -> first 200. */
  oneRoute: { applyTo200Ms: Summary; stages: Record<keyof KubeApplyStages, Summary> };
  /** What `more` measured at this size, with the stack still serving. */
  more?: Extra;
}

/**
 * The Kubernetes-mode convergence measures, per route count on its own API server: `runs` creates of a Service,
 * an EndpointSlice and a route object of the workload's kind, then `runs` creates of one route object for a
 * served Service; then `more` (if given) with the stack and the API client.
 */
export async function measureKubeConvergence<Extra = object>(
  label: string,
  routeCounts: readonly number[],
  runs: number,
  workload: KubeRouteWorkload,
  backendNames: readonly string[],
  more?: (size: KubeSize & { httpPort: number; creator: Awaited<ReturnType<typeof startApiCreator>> }) => Promise<Extra | undefined>,
): Promise<KubeConvergenceRow<Extra>[]> {
  return withKubeTools(backendNames, (tools) => forEachKubeSize(label, routeCounts, workload, tools, async (size) => {
    const { cluster, n, loadSeconds, backends, poller } = size;
    const backend = backends[0]!;
    let kube: KubeController | undefined;
    const stack = await startEnvoyStack({ controller: async (ports) => (kube = await controllerIn(cluster)(ports)) });
    try {
      await untilServed(stack.controller, n, workload.kind);
      const statusWritten = (): Promise<void> => untilStatusWritten(kube!);
      await statusWritten();
      const served = { controller: stack.controller, httpPort: workload.port(stack) };
      progress(`${label}: config with ${n} ${pluralOf(workload.kind)} served; creating new ${pluralOf(workload.kind)} through the API`);
      // The new objects come from another process, as from kubectl: here they would queue behind the builds.
      const creator = await startApiCreator(cluster.adminKubeconfigPath);
      try {
        const applies = await timeApplies(served, poller, runs, async (name, host) => {
          const { startMs, doneMs } = await creator.create(appObjects(name, host, backend, workload.route).map(asKubernetesObject));
          return { startMs, handedMs: doneMs };
        }, '', workload.kind, statusWritten);
        // One route object per apply, routing a new host to a Service Envoy already has (served by one route first).
        const target = 'one-route-target';
        const targetOk = poller.firstOk(served.httpPort, `${target}.converge.test`);
        await creator.create(appObjects(target, `${target}.converge.test`, backend, workload.route).map(asKubernetesObject));
        await targetOk;
        await statusWritten();
        progress(`${label}: creating one ${workload.kind} per apply for a served Service`);
        const oneRoute = await timeApplies(served, poller, runs, async (name, host) => {
          const { startMs, doneMs } = await creator.create([asKubernetesObject(workload.route(name, host, target))]);
          return { startMs, handedMs: doneMs };
        }, 'one-', workload.kind, statusWritten);
        await statusWritten();
        const extra = await more?.({ ...size, httpPort: served.httpPort, creator });
        const stagesOf = (timed: typeof applies): Record<keyof KubeApplyStages, Summary> => summarizeStages(timed.map((a): KubeApplyStages => ({ api: a.handOverMs, ...a.stages })));
        return {
          existingRoutes: workload.routesOf(n),
          existingObjects: n,
          loadSeconds: Math.round(loadSeconds * 10) / 10,
          applyTo200Ms: summarize(applies.map((a) => a.totalMs)),
          stages: stagesOf(applies),
          oneRoute: { applyTo200Ms: summarize(oneRoute.map((a) => a.totalMs)), stages: stagesOf(oneRoute) },
          ...(extra === undefined ? {} : { more: extra }),
        };
      } finally {
        await creator.close();
      }
    } finally {
      await stack.stop();
    }
  }));
}

export async function runKubeConvergence(
  routeCounts: readonly number[],
  runs: number,
  tls: { certPem: string; keyPem: string },
): Promise<KubeConvergenceResult[]> {
  const rows = await measureKubeConvergence('kube convergence', routeCounts, runs, ingressWorkload(tls), ['bench-kube']);
  return rows.map((r) => ({
    existingRoutes: r.existingRoutes,
    existingIngresses: r.existingObjects,
    loadSeconds: r.loadSeconds,
    applyTo200Ms: r.applyTo200Ms,
    stages: r.stages,
    oneIngress: r.oneRoute,
  }));
}
