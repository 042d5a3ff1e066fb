// Kubernetes mode wiring: informers -> store -> reconciler -> snapshot cache -> ADS server; plus the health
// endpoints. Status, Events, leader election and the Service-annotation manager plug into the same objects.
import { KubeConfig } from '@kubernetes/client-node';
import { reportNacks } from '../controller/nack-reporter.js';
import { Reconciler } from '../controller/reconciler.js';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { ObjectStore } from '../controller/store.js';
import type { TranslateOptions } from '../controller/translate/options.js';
import type { EnvoyOptions } from '../envoy/resource-types.js';
import { AdsServer } from '../xds/ads-server.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import type { Logger } from './logger.js';

export interface KubeConnection {
  /** Path of a kubeconfig file; absent: in-cluster config when running in a pod, else the default loading rules. */
  kubeconfig?: string;
  context?: string;
}

export function loadKubeConfig(c: KubeConnection): KubeConfig {
  const kc = new KubeConfig();
  if (c.kubeconfig) kc.loadFromFile(c.kubeconfig);
  else if (process.env['KUBERNETES_SERVICE_HOST']) kc.loadFromCluster();
  else kc.loadFromDefault();
  if (c.context) kc.setCurrentContext(c.context);
  return kc;
}

export interface KubeControllerOptions {
  kubeConfig: KubeConfig;
  watchNamespace?: string;
  xdsHost: string;
  xdsPort: number;
  translate: TranslateOptions;
  envoy: EnvoyOptions;
  log: Logger;
}

export interface KubeController {
  xdsPort: number;
  store: ObjectStore;
  cache: SnapshotCache;
  reconciler: Reconciler;
  server: AdsServer;
  source: ClusterSource;
  ready(): { ready: boolean; reason: string };
  stop(): Promise<void>;
}

export async function startKubeController(o: KubeControllerOptions): Promise<KubeController> {
  const store = new ObjectStore();
  const cache = new SnapshotCache();
  const reconciler = new Reconciler(store, cache, { translate: o.translate, envoy: o.envoy }, o.log);
  const server = new AdsServer(cache, { log: o.log });
  const xdsPort = await server.listen(o.xdsHost, o.xdsPort);
  o.log.info({ address: o.xdsHost, port: xdsPort }, 'xDS server listening');
  reportNacks(server, reconciler, o.log);
  const source = new ClusterSource(o.kubeConfig, store, o.log, o.watchNamespace ? { namespace: o.watchNamespace } : {});
  // Envoys may connect now; they get nothing until the first complete build after every informer synced.
  void source.start();
  await source.whenSynced();
  reconciler.markReady();
  await reconciler.idle();
  return {
    xdsPort,
    store,
    cache,
    reconciler,
    server,
    source,
    ready() {
      if (!source.synced) return { ready: false, reason: 'informers not synced' };
      if (!cache.ready) return { ready: false, reason: 'no config built yet' };
      return { ready: true, reason: 'ok' };
    },
    async stop() {
      await source.stop();
      reconciler.stop();
      await server.close();
    },
  };
}
