// The peers scenario's bulk measure: 10,000 Ingresses (with their Services, EndpointSlices and Secrets, the
// synthetic cluster's objects) created through the API while a controller and its Envoy run, starting from an
// empty cluster: the controller's CPU seconds and peak RSS from the first create until the last Ingress answers
// 200, and that time. Each controller gets its own fresh kube-apiserver and etcd (the same objects, created the
// same way), runs in its own process (ours: `node dist/cli/main.js run`, as users run it) and is read from /proc,
// so both are measured the same way. Envoy's CPU and peak RSS are read beside it.
import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { startKubeCluster, type KubeCluster } from '../test/harness/kube-cluster.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import { httpGet } from '../test/harness/http-client.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { startContour, type ContourBuild } from './contour-process.js';
import { startControllerProcess } from './controller-process.js';
import { benchBootstrap } from './envoy-stack.js';
import { largeConfigIngresses, largeConfigOverload, progress } from './convergence.js';
import { asKubernetesObject, createAll, ingressWorkload, loadKubeCluster } from './kube-convergence.js';
import type { BulkMeasures } from './peers-results.js';
import { procUsage } from './proc-usage.js';
import type { StatusPoller } from './status-poller.js';
import { hostOf, objectsOf, syntheticCluster } from './synthetic-cluster.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A controller and its Envoy, running in their own processes against a cluster. */
interface BulkPeer {
  controllerPid: number;
  envoy: EnvoyProcess;
  httpPort: number;
  logs(): string;
  stop(): Promise<void>;
}

export interface BulkOptions {
  ingresses: number;
  tls: { certPem: string; keyPem: string };
  backend: { address: string; port: number };
  poller: StatusPoller;
  /** How long the last Ingress may take to answer after the last create (then: did not finish). */
  timeoutMs: number;
}

async function startContourPeer(build: ContourBuild, cluster: KubeCluster): Promise<BulkPeer> {
  const httpPort = await freePort();
  const contour = await startContour({ build, kubeconfigPath: cluster.adminKubeconfigPath, ingressClass: 'envoy-ingress', httpPort, httpsPort: await freePort() });
  const envoy = await startEnvoy({ bootstrap: contour.bootstrap, drainTimeS: 2, logLevel: 'warn', concurrency: 1, extraArgs: contour.envoyArgs });
  await envoy.waitForLive(120_000);
  return { controllerPid: contour.pid, envoy, httpPort, logs: contour.logs, stop: async () => { await envoy.stop(); await contour.stop(); } };
}

async function startOurPeer(cluster: KubeCluster, ingresses: number): Promise<BulkPeer> {
  const httpPort = await freePort();
  const controller = await startControllerProcess({ kubeconfigPath: cluster.adminKubeconfigPath, httpPort, httpsPort: await freePort() });
  const envoy = await startEnvoy({
    // 10,000 Ingresses bring Envoy's heap near its default limit (768 MiB; over 98 % it answers every request 503
    // "overload"), and Contour's Envoy runs without an overload manager (`contour bootstrap` without
    // --overload-max-heap): the larger configs get the limit the convergence scenario gives them.
    bootstrap: benchBootstrap(
      `bench-bulk-${process.pid}`,
      controller.xdsPort,
      ingresses >= largeConfigIngresses ? largeConfigOverload : undefined,
    ),
    drainTimeS: 2,
    logLevel: 'warn',
    concurrency: 1,
  });
  await envoy.waitForLive(120_000);
  return { controllerPid: controller.pid, envoy, httpPort, logs: controller.logs, stop: async () => { await envoy.stop(); await controller.stop(); } };
}

/** Creates the objects of `o.ingresses` Ingresses through the API with `peer` running; fills `m` as it goes. */
async function createAndServe(cluster: KubeCluster, peer: BulkPeer, o: BulkOptions, m: BulkMeasures): Promise<void> {
  // Started from an empty cluster; past any start-up work (Contour's first rebuild, our leader election).
  await sleep(3000);
  const state = syntheticCluster({ ingresses: o.ingresses, tls: o.tls, endpointAddress: () => o.backend });
  const objects = objectsOf({ ...state, ingressClasses: [] }).map(asKubernetesObject);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.adminKubeconfigPath);
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  const before = procUsage(peer.controllerPid);
  const envoyBefore = procUsage(peer.envoy.pid);
  const t0 = performance.now();
  const usage = (): void => {
    const after = procUsage(peer.controllerPid);
    const envoyAfter = procUsage(peer.envoy.pid);
    m.cpuSeconds = Math.round((after.cpuSeconds - before.cpuSeconds) * 100) / 100;
    m.peakRssMiB = after.peakRssMiB;
    m.envoyCpuSeconds = Math.round((envoyAfter.cpuSeconds - envoyBefore.cpuSeconds) * 100) / 100;
    m.envoyPeakRssMiB = envoyAfter.peakRssMiB;
  };
  // Services, EndpointSlices and Secrets before the Ingresses that name them (as loadKubeCluster does).
  await createAll(api, objects.filter((x) => x.kind !== 'Ingress'), 8);
  await createAll(api, objects.filter((x) => x.kind === 'Ingress'), 8);
  m.createSeconds = Math.round((performance.now() - t0) / 100) / 10;
  progress(`peers bulk: ${objects.length} objects created in ${m.createSeconds} s; waiting for the last Ingress to answer`);
  try {
    const last = await o.poller.firstOk(peer.httpPort, hostOf(o.ingresses - 1, 0), o.timeoutMs);
    m.lastOkSeconds = Math.round((last - t0) / 100) / 10;
  } finally {
    usage();
  }
  // The last one answering says the last build is served; check a spread of the others too (not every tenth
  // Ingress: its first host has TLS, which our controller redirects to HTTPS and Contour does not).
  const step = Math.max(1, Math.floor(o.ingresses / 20));
  for (let i = 1; i < o.ingresses; i += step) if (i % 10 !== 0) await o.poller.firstOk(peer.httpPort, hostOf(i, 0), 30_000);
}

/**
 * What a controller that did not finish left Envoy doing: the answer to the last host, and Envoy's overload
 * actions that are on (an Envoy over its heap limit answers every request 503 with "envoy overloaded").
 */
async function whatEnvoyAnswers(peer: BulkPeer, host: string): Promise<string> {
  const answer = await httpGet({ port: peer.httpPort, hostHeader: host, path: '/' })
    .then((response) => `${host} answers ${response.status} ${JSON.stringify(response.body.slice(0, 60))}`)
    .catch((error: unknown) => `${host}: ${error instanceof Error ? error.message : String(error)}`);
  const stats = await peer.envoy.admin('/stats?filter=^overload\\.|server\\.memory_(allocated|heap_size)').catch(() => undefined);
  const active = (stats?.body ?? '').split('\n').filter((line) => /(\.active: [1-9]|memory_)/.test(line)).map((line) => line.trim());
  return [answer, ...active].join('; ');
}

/** The bulk measure for one controller on its own fresh API server; a failure is recorded, not thrown. */
export async function measureBulk(who: 'ours' | 'contour', build: ContourBuild, o: BulkOptions): Promise<BulkMeasures> {
  const m: BulkMeasures = {};
  const cluster = await startKubeCluster();
  let peer: BulkPeer | undefined;
  try {
    await cluster.kubectlOk(['create', '-f', build.crdsPath]);
    await loadKubeCluster(cluster, 0, o.backend, ingressWorkload(o.tls));
    peer = who === 'ours' ? await startOurPeer(cluster, o.ingresses) : await startContourPeer(build, cluster);
    progress(`peers bulk: ${who === 'ours' ? 'envoy-ingress' : 'Contour'} running; creating ${o.ingresses} Ingresses through the API`);
    await createAndServe(cluster, peer, o, m);
  } catch (error) {
    m.failed = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    if (peer) m.failed += `; ${await whatEnvoyAnswers(peer, hostOf(o.ingresses - 1, 0))}`;
    progress(`peers bulk: ${who} did not finish: ${m.failed}`);
    if (peer) process.stderr.write(`${peer.logs()}\n`);
  } finally {
    await peer?.stop();
    await cluster.stop();
  }
  return m;
}
