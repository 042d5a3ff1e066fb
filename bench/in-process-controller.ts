// The controller's pipeline in this process (store -> reconciler -> snapshot cache -> ADS server) fed directly
// with objects, as a Kubernetes watch would deliver them: the benchmarks measure the controller, not file I/O.
import { Reconciler, type BuildResult, type ReconcileLog } from '../controller/reconciler.js';
import { ObjectStore } from '../controller/store.js';
import { kindNames } from '../controller/translate/shared/kinds.js';
import type { ClusterState, KubeObject } from '../controller/translate/shared/kube-objects.js';
import { AdsServer } from '../xds/ads-server.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { benchReconcileOptions } from './translation-scale.js';
import { objectsOf } from './synthetic-cluster.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';

export const silentLog: ReconcileLog = { info() {}, warn() {}, error() {}, debug() {} };

export interface InProcessController {
  store: ObjectStore;
  cache: SnapshotCache;
  reconciler: Reconciler;
  server: AdsServer;
  xdsPort: number;
  builds: BuildResult[];
  /** Apply one object and wait for the build it causes. */
  apply(obj: KubeObject): Promise<BuildResult | undefined>;
  stop(): Promise<void>;
}

export async function startInProcessController(state: ClusterState, envoy: EnvoyOptions = benchReconcileOptions.envoy): Promise<InProcessController> {
  const store = new ObjectStore();
  store.replace(kindNames, objectsOf(state) as KubeObject[]);
  const cache = new SnapshotCache();
  const reconciler = new Reconciler(store, cache, { translate: benchReconcileOptions.translate, envoy }, silentLog);
  const builds: BuildResult[] = [];
  reconciler.on('built', (b) => builds.push(b));
  reconciler.on('failed', (err) => console.error('bench: build failed', err));
  const server = new AdsServer(cache, { maxReceiveMessageBytes: 256 * 1024 * 1024 });
  const xdsPort = await server.listen('127.0.0.1', 0);
  reconciler.markReady();
  await reconciler.idle();
  return {
    store,
    cache,
    reconciler,
    server,
    xdsPort,
    builds,
    async apply(obj) {
      const before = builds.length;
      store.upsert(obj);
      await new Promise((r) => setImmediate(r));
      await reconciler.idle();
      return builds.length > before ? builds[builds.length - 1] : undefined;
    },
    async stop() {
      reconciler.stop();
      await server.close();
    },
  };
}
