// run's control plane: standalone (a watched manifest directory) or Kubernetes (a cluster, with leader election,
// status and Events), behind one shape that the servers, the probes and shutdown use alike.
import type { ServerCredentials } from '@grpc/grpc-js';
import { parseNamespacedName } from './controller-options.js';
import type { ControlPlane } from './debug-views.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';
import type { RunFlags, RunOptions } from './run-flags.js';

export interface RunController extends ControlPlane {
  xdsPort: number;
  stop(): Promise<void>;
  /** Hands status and Events to another replica at once (standalone mode has no election: nothing to hand on). */
  stopLeading(): Promise<void>;
  ready(): { ready: boolean; reason: string };
}

/** The xDS server's mutual TLS: its credentials and the names a client certificate must carry. */
export interface XdsServerTls {
  xdsCredentials: ServerCredentials;
  xdsClientSans: string[];
}

export async function startRunController(
  flags: RunFlags,
  options: RunOptions,
  xdsTls: XdsServerTls | undefined,
  log: Logger,
  metrics: ControllerMetrics | undefined,
): Promise<RunController> {
  const { xds, translation } = options;
  const xdsCredentials = xdsTls ?? {};
  if (flags.manifests) {
    const { startStandaloneController } = await import('./standalone-controller.js');
    const c = await startStandaloneController({
      manifestsDir: flags.manifests,
      xdsHost: xds.host,
      xdsPort: xds.port,
      ...xdsCredentials,
      ...translation,
      log,
      ...(metrics ? { metrics } : {}),
    });
    return {
      xdsPort: c.xdsPort,
      server: c.server,
      reconciler: c.reconciler,
      store: c.store,
      cache: c.cache,
      stop: () => c.stop(),
      stopLeading: async () => {},
      ready: () => (c.cache.ready ? { ready: true, reason: 'ok' } : { ready: false, reason: 'no config built yet' }),
    };
  }
  const { loadKubeConfig, startKubeController } = await import('./kube-controller.js');
  return startKubeController({
    kubeConfig: loadKubeConfig({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) }),
    ...(flags.watchNamespace ? { watchNamespace: flags.watchNamespace } : {}),
    xdsHost: xds.host,
    xdsPort: xds.port,
    ...xdsCredentials,
    ...translation,
    log,
    publish: {
      ...(flags.publishService ? { publishService: parseNamespacedName(flags.publishService, '--publish-service') } : {}),
      ...(flags.publishAddress ? { publishAddresses: flags.publishAddress.split(',').map((a) => a.trim()).filter(Boolean) } : {}),
      ...(flags.publishNodes
        ? { publishNodes: { namespace: flags.leaderElectionNamespace, podSelector: flags.publishNodes, addressType: flags.publishNodeAddressType } }
        : {}),
    },
    leaderElection: { namespace: flags.leaderElectionNamespace, name: flags.leaderElectionId, identity: flags.identity },
    ...(flags.manageServiceIngress ? { serviceIngress: { hostTemplate: flags.serviceIngressHost } } : {}),
    ...(options.gatewayServices ? { gatewayServices: options.gatewayServices } : {}),
    ...(metrics ? { metrics } : {}),
  });
}
