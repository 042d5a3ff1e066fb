// Standalone mode wiring: manifest directory -> store -> reconciler -> snapshot cache -> ADS server.
import { ManifestDirectorySource } from '../controller/sources/manifest-source.js';
import type { BasicAuthService } from '../controller/auth/authorization-service.js';
import { startXdsPipeline, type XdsPipelineOptions } from './xds-pipeline.js';
import type { ObjectStore } from '../controller/store.js';
import type { Reconciler } from '../controller/reconciler.js';
import type { AdsServer } from '../xds/ads-server.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import type { ControllerMetrics } from './metrics.js';

export interface StandaloneOptions extends XdsPipelineOptions {
  manifestsDir: string;
  /** Watch the directory for changes (default true). */
  watch?: boolean;
  /** Prometheus metrics to feed (attached before the first build). */
  metrics?: ControllerMetrics;
}

export interface StandaloneController {
  xdsPort: number;
  store: ObjectStore;
  cache: SnapshotCache;
  reconciler: Reconciler;
  server: AdsServer;
  source: ManifestDirectorySource;
  /** Envoy's basic-auth checks (its stats show how many passwords were verified). */
  basicAuth: BasicAuthService;
  stop(): Promise<void>;
}

export async function startStandaloneController(o: StandaloneOptions): Promise<StandaloneController> {
  const { store, cache, reconciler, server, xdsPort, basicAuth } = await startXdsPipeline(o);
  o.metrics?.attach({ server, reconciler, store, cache, isLeader: () => true });
  const source = new ManifestDirectorySource(o.manifestsDir, store, o.log, { watch: o.watch ?? true });
  try {
    await source.start();
  } catch (err: unknown) {
    // Do not leave a listening xDS server (and a live process) behind a start that failed.
    source.stop();
    reconciler.stop();
    await server.close();
    throw err;
  }
  reconciler.markReady();
  await reconciler.idle();
  return {
    xdsPort,
    store,
    cache,
    reconciler,
    server,
    source,
    basicAuth,
    async stop() {
      source.stop();
      reconciler.stop();
      await server.close();
      await basicAuth.close();
    },
  };
}
