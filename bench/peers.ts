// The peers scenario (BENCH_ONLY=peers): Contour, the nearest peer, beside us on the same machine, the same real
// kube-apiserver and etcd, the same Envoy binary and the same synthetic objects. Per size, one API server is
// loaded with N existing routes; then Contour (`contour serve` + the Envoy bootstrap `contour bootstrap` writes)
// and our controller (Kubernetes mode, as in the kube scenario) run one after the other against it, each with a
// fresh Envoy, and each is measured by the same code, which only watches what Envoy answers:
// - apply -> first 200: create a Service, an EndpointSlice and an Ingress through the API (another process, as
//   kubectl) and poll the new host every millisecond (another process);
// - endpoint change -> first request that reaches the new endpoint: replace an EndpointSlice (PUT) so it points
//   at a second echo backend, poll until that backend answers;
// - bytes Envoy received on its xDS connection for one new one-route Ingress (Envoy's own
//   upstream_cx_rx_bytes_total of the xDS cluster: framing included, the same counter for both).
// A controller that cannot finish a size keeps what it measured and says why (`failed`).
import { xdsClusterName } from '../envoy/bootstrap.js';
import type { KubeCluster } from '../test/harness/kube-cluster.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import type { RemoteEcho } from '../test/harness/netns-host.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { startApiCreator, type ApiCreator } from './api-creator.js';
import { switchBackendsUnderLoad } from './backend-switches.js';
import { contourFlagsOf, ensureContour, startContour, type ContourBuild } from './contour-process.js';
import { appObjects, ingressManifest, progress, timeFirstOks } from './convergence.js';
import { startEnvoyStack } from './envoy-stack.js';
import { asKubernetesObject, controllerIn, forEachKubeSize, ingressWorkload, routesOf, untilServed, withKubeTools } from './kube-convergence.js';
import type { PeerMeasures, PeersBulk, PeersRow } from './peers-results.js';
import { measureBulk, type BulkOptions } from './peers-bulk.js';
import { summarize } from './stats.js';
import type { StatusPoller } from './status-poller.js';
import { hostOf, objectsOf, syntheticCluster } from './synthetic-cluster.js';

export interface PeersResult {
  contour: { version: string; flags: string[] };
  rows: PeersRow[];
  bulk: PeersBulk;
}

export interface PeersOptions {
  routeCounts: readonly number[];
  applies: number;
  endpointChanges: number;
  routeChanges: number;
  /** Ingresses created through the API from an empty cluster in the bulk measure. */
  bulkIngresses: number;
  /** Backend switches of one route under load. */
  switches: number;
  tls: { certPem: string; keyPem: string };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** What the shared measuring code needs of a running controller and its Envoy. */
interface PeerUnderTest {
  httpPort: number;
  envoy: EnvoyProcess;
  /** Envoy's stat prefix of the xDS cluster, e.g. `cluster.xds_cluster.`. */
  xdsStatPrefix: string;
  /** Run between applies (our controller: until its reconciler is idle). */
  settle?: () => Promise<void>;
}

interface Tools {
  poller: StatusPoller;
  creator: ApiCreator;
  backends: readonly [RemoteEcho, RemoteEcho];
}

/** Runs every measure on `peer`, filling `m` as it goes (so a failure keeps what was measured). */
async function measurePeer(peer: PeerUnderTest, tools: Tools, prefix: string, o: PeersOptions, m: PeerMeasures): Promise<void> {
  const { poller, creator, backends } = tools;
  const [a, b] = backends;
  const oks = await timeFirstOks(peer.httpPort, poller, o.applies, async (name, host) => {
    const { startMs, doneMs } = await creator.create(appObjects(name, host, a).map(asKubernetesObject));
    return { startMs, handedMs: doneMs };
  }, { prefix, ...(peer.settle ? { settle: peer.settle } : {}) });
  m.applyTo200Ms = summarize(oks.map((x) => x.okMs - x.startMs));

  const service = `${prefix}endpoints`;
  const host = `${service}.converge.test`;
  const first = poller.firstOk(peer.httpPort, host, 60_000, a.service);
  await creator.create(appObjects(service, host, a).map(asKubernetesObject));
  await first;
  const switches: number[] = [];
  for (let i = 0; i < o.endpointChanges; i++) {
    const target = i % 2 === 0 ? b : a;
    const reached = poller.firstOk(peer.httpPort, host, 60_000, target.service);
    await sleep(5);
    const { startMs } = await creator.replace([asKubernetesObject(appObjects(service, host, target)[1]!)]);
    switches.push((await reached) - startMs);
    await sleep(200);
  }
  m.endpointChangeMs = summarize(switches);

  const stat = `${peer.xdsStatPrefix}upstream_cx_rx_bytes_total`;
  const received = async (): Promise<number> => {
    const value = (await peer.envoy.stats(`^${stat.replace(/[.]/g, '\\.')}$`))[stat];
    if (value === undefined) throw new Error(`Envoy has no stat ${stat}`);
    return value;
  };
  const bytes: number[] = [];
  for (let i = 0; i < o.routeChanges; i++) {
    const name = `${prefix}route-${i}`;
    const before = await received();
    const ok = poller.firstOk(peer.httpPort, `${name}.converge.test`);
    await creator.create([asKubernetesObject(ingressManifest(name, `${name}.converge.test`, service))]);
    await ok;
    // Past Contour's batching (holdoff up to 500 ms) and any trailing push of either controller.
    await sleep(1500);
    bytes.push((await received()) - before);
  }
  m.bytesPerRouteChange = summarize(bytes);

  const switched = await switchBackendsUnderLoad({ httpPort: peer.httpPort, poller, creator, backends, prefix, switches: o.switches, route: ingressManifest, send: 'replace' });
  m.routeSwitchMs = switched.routeSwitchMs;
  m.switchLoad = switched.switchLoad;
}

/** Runs `body`; a failure is recorded in `m.failed` (with `logs`, when given, on stderr) instead of thrown. */
async function finishOrRecord(who: string, m: PeerMeasures, body: () => Promise<void>, logs?: () => string): Promise<void> {
  try {
    await body();
  } catch (error) {
    m.failed = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    progress(`peers: ${who} did not finish: ${m.failed}`);
    if (logs) process.stderr.write(`${logs()}\n`);
  }
}

async function measureContour(build: ContourBuild, cluster: KubeCluster, n: number, tools: Tools, o: PeersOptions, flags: string[]): Promise<PeerMeasures> {
  const m: PeerMeasures = {};
  const httpPort = await freePort();
  const contour = await startContour({ build, kubeconfigPath: cluster.adminKubeconfigPath, ingressClass: 'envoy-ingress', httpPort, httpsPort: await freePort() });
  flags.splice(0, flags.length, ...contourFlagsOf(contour.args));
  let envoy: EnvoyProcess | undefined;
  await finishOrRecord('Contour', m, async () => {
    envoy = await startEnvoy({ bootstrap: contour.bootstrap, drainTimeS: 2, logLevel: 'warn', concurrency: 1, extraArgs: contour.envoyArgs });
    await envoy.waitForLive(120_000);
    // Served once the last existing Ingress answers; then past its batching window.
    if (n > 0) await tools.poller.firstOk(httpPort, hostOf(n - 1, 0), 180_000);
    await sleep(1000);
    progress(`peers: Contour serves the ${n} existing Ingresses; measuring`);
    await measurePeer({ httpPort, envoy, xdsStatPrefix: contour.xdsStatPrefix }, tools, 'contour-', o, m);
  }, contour.logs);
  await envoy?.stop();
  await contour.stop();
  return m;
}

async function measureOurs(cluster: KubeCluster, n: number, tools: Tools, o: PeersOptions): Promise<PeerMeasures> {
  const m: PeerMeasures = {};
  const stack = await startEnvoyStack({ controller: controllerIn(cluster) });
  await finishOrRecord('envoy-ingress', m, async () => {
    await untilServed(stack.controller, n);
    progress(`peers: envoy-ingress serves the ${n} existing Ingresses; measuring`);
    const peer = { httpPort: stack.httpPort, envoy: stack.envoys[0]!, xdsStatPrefix: `cluster.${xdsClusterName}.`, settle: () => stack.controller.reconciler.idle() };
    await measurePeer(peer, tools, 'ours-', o, m);
  });
  await stack.stop();
  return m;
}

export async function runPeers(o: PeersOptions): Promise<PeersResult> {
  const build = ensureContour();
  const flags: string[] = [];
  return withKubeTools(['bench-peers-a', 'bench-peers-b'], async (tools) => {
    const rows = await forEachKubeSize('peers', o.routeCounts, ingressWorkload(o.tls), tools, async ({ cluster, n, backends, poller }) => {
      // Contour's informers watch its own CRDs (HTTPProxy...) too: without them it does not start.
      await cluster.kubectlOk(['create', '-f', build.crdsPath]);
      const creator = await startApiCreator(cluster.adminKubeconfigPath);
      try {
        const sizeTools: Tools = { poller, creator, backends: [backends[0]!, backends[1]!] };
        const contour = await measureContour(build, cluster, n, sizeTools, o, flags);
        const ours = await measureOurs(cluster, n, sizeTools, o);
        return { existingRoutes: routesOf(n, o.tls), existingIngresses: n, ours, contour };
      } finally {
        await creator.close();
      }
    });
    const bulkOptions: BulkOptions = { ingresses: o.bulkIngresses, tls: o.tls, backend: tools.backends[0]!, poller: tools.poller, timeoutMs: 300_000 };
    progress(`peers bulk: ${o.bulkIngresses} Ingresses created through the API from an empty cluster, Contour then envoy-ingress`);
    const contour = await measureBulk('contour', build, bulkOptions);
    const ours = await measureBulk('ours', build, bulkOptions);
    const objects = objectsOf({ ...syntheticCluster({ ingresses: o.bulkIngresses, tls: o.tls }), ingressClasses: [] }).length;
    return { contour: { version: build.version, flags }, rows, bulk: { ingresses: o.bulkIngresses, objects, ours, contour } };
  });
}
