// Kubernetes mode wiring: informers -> store -> reconciler -> snapshot cache -> ADS server, and around it the
// leader-only writers: status addresses (published only once a connected Envoy ACKed the config that serves the
// Ingress), Events for diagnostics, and the optional Service-annotation Ingress manager.
import { KubeConfig } from '@kubernetes/client-node';
import { createLeaseClient, LeaderElector } from '../controller/leader-election.js';
import type { Reconciler } from '../controller/reconciler.js';
import { createIngressApi } from '../controller/service-ingress/ingress-api.js';
import { ServiceIngressManager } from '../controller/service-ingress/service-ingress-manager.js';
import { GatewayServiceManager } from '../controller/gateway-services/gateway-service-manager.js';
import { createServiceApi } from '../controller/gateway-services/service-api.js';
import { ClusterSource } from '../controller/sources/cluster-source.js';
import { defaultGatewayControllerName } from '../controller/translate/shared/options.js';
import { AppliedTracker } from '../controller/status/applied-tracker.js';
import { EventRecorder } from '../controller/status/event-recorder.js';
import { NodeAddressSource } from '../controller/status/node-address-source.js';
import { publishedAddresses, type PublishOptions } from '../controller/status/published-addresses.js';
import { StatusWriter } from '../controller/status/status-writer.js';
import { GatewayApiStatusWriter } from '../controller/status/gateway-api-status-writer.js';
import type { GatewayStatusAddress } from '../controller/translate/gateway-api/gateway-service.js';
import type { ObjectStore } from '../controller/store.js';
import type { ObjectRef, Service } from '../controller/translate/shared/kube-objects.js';
import { opaqueSecretsWanted } from '../controller/sources/opaque-secrets.js';
import type { AdsServer } from '../xds/ads-server.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import type { ControllerMetrics } from './metrics.js';
import { startXdsPipeline, type XdsPipelineOptions } from './xds-pipeline.js';
import { reuseConnections } from '../controller/sources/reused-connections.js';

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

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineSeconds?: number;
  retryPeriodSeconds?: number;
}

export interface KubeControllerOptions extends XdsPipelineOptions {
  kubeConfig: KubeConfig;
  watchNamespace?: string;
  publish: PublishOptions;
  leaderElection: LeaderElectionOptions;
  /** The Service-annotation Ingress manager; off when absent. */
  serviceIngress?: { hostTemplate: string };
  /** The Gateway Service manager (--gateway-port-range): one Service per Gateway; off when absent. */
  gatewayServices?: { namespace: string; portRange: { first: number; last: number }; selector: Record<string, string>; loadBalancerAddresses?: readonly string[] };
  /** Prometheus metrics to feed (attached before the first build). */
  metrics?: ControllerMetrics;
}

export interface KubeController {
  xdsPort: number;
  store: ObjectStore;
  cache: SnapshotCache;
  reconciler: Reconciler;
  server: AdsServer;
  source: ClusterSource;
  elector: LeaderElector;
  statusWriter: StatusWriter;
  gatewayStatus: GatewayApiStatusWriter;
  ready(): { ready: boolean; reason: string };
  /** Give up leadership (releasing the lease) while xDS keeps being served: the first step of a shutdown. */
  stopLeading(): Promise<void>;
  /** Stop leading (releasing the lease so a successor takes over at once), then stop everything. */
  stop(): Promise<void>;
}

export async function startKubeController(o: KubeControllerOptions): Promise<KubeController> {
  const { log } = o;
  // Every client made from it below (status, Events, leases, informers) keeps its connections alive.
  reuseConnections(o.kubeConfig);
  const { store, cache, reconciler, server, xdsPort, basicAuth } = await startXdsPipeline(o);

  const le = o.leaderElection;
  const elector = new LeaderElector(
    createLeaseClient(o.kubeConfig, { namespace: le.namespace, name: le.name, timeoutMs: ((le.renewDeadlineSeconds ?? 10) * 1000) / 2 }),
    { ...le, log },
  );
  const isLeader = (): boolean => elector.isLeader();
  const statusWriter = new StatusWriter({ kubeConfig: o.kubeConfig, store, isLeader, log });
  const events = new EventRecorder({ kubeConfig: o.kubeConfig, store, isLeader, identity: le.identity, log });
  const tracker = new AppliedTracker(cache, server, reconciler);
  const gatewayStatus = new GatewayApiStatusWriter({
    kubeConfig: o.kubeConfig,
    store,
    isLeader,
    log,
    controllerName: o.translate.gatewayControllerName ?? defaultGatewayControllerName,
    // A Gateway without addresses of its own is reached where Ingress is (its listener ports on those addresses).
    sharedAddresses: () =>
      addresses().flatMap((a): GatewayStatusAddress[] => (a.ip !== undefined ? [{ type: 'IPAddress', value: a.ip }] : a.hostname !== undefined ? [{ type: 'Hostname', value: a.hostname }] : [])),
  });

  // Status: the served set of the newest generation a connected Envoy has fully ACKed.
  let applied: readonly ObjectRef[] | undefined;
  // --publish-nodes: only consulted without fixed addresses or a publish Service (those win).
  const nodes =
    o.publish.publishNodes && !o.publish.publishService && !o.publish.publishAddresses?.length
      ? new NodeAddressSource(o.kubeConfig, o.publish.publishNodes, log)
      : undefined;
  const addresses = () => {
    const ps = o.publish.publishService;
    const service = ps ? (store.get('Service', ps.namespace, ps.name) as Service | undefined) : undefined;
    return publishedAddresses(o.publish, service, nodes?.addresses());
  };
  const publish = (): void => {
    if (applied) statusWriter.publish(applied, addresses());
    // The addresses Gateways without their own show (sharedAddresses): only Gateways' status reads them.
    gatewayStatus.resyncGateways();
  };
  tracker.on('applied', (event) => {
    applied = event.servedIngresses;
    publish();
    gatewayStatus.publishApplied(event.gatewayApiStatus, event.generation);
  });
  nodes?.on('change', () => publish());
  const publishService = o.publish.publishService;
  if (publishService) {
    store.on('change', (changes) => {
      if (changes.some((c) => c.kind === 'Service' && c.namespace === publishService.namespace && c.name === publishService.name)) publish();
    });
  }
  reconciler.on('built', (build) => {
    // Builds that translated (all Ingresses, or those around a change) have new diagnostics; endpoint and
    // certificate-only builds keep the last ones.
    if (build.kind === 'full' || build.kind === 'routes') {
      events.record(build.diagnostics);
      // Written once Envoy ACKed this build (or statusAckHoldMs passed): not while Envoy applies it.
      gatewayStatus.publishBuilt(build.gatewayApiStatus, build.generation);
    }
  });

  const manager = o.serviceIngress
    ? new ServiceIngressManager(store, createIngressApi(o.kubeConfig, { timeoutMs: 10_000 }), {
        ingressClassName: o.translate.ingressClassName,
        hostTemplate: o.serviceIngress.hostTemplate,
        isLeader,
        log,
      })
    : undefined;

  const gatewayServices = o.gatewayServices
    ? new GatewayServiceManager(store, createServiceApi(o.kubeConfig, { timeoutMs: 10_000 }), {
        ...o.gatewayServices,
        controllerName: o.translate.gatewayControllerName ?? defaultGatewayControllerName,
        reservedPorts: new Set([o.envoy.httpPort, o.envoy.httpsPort]),
        isLeader,
        // And the ConfigMaps: without the port record the manager would record the Envoy ports anew.
        storeComplete: () => source.kindSynced('Gateway') && source.kindSynced('GatewayClass') && source.gatewayConfigMapsSynced,
        log,
      })
    : undefined;

  elector.on('started-leading', () => {
    log.info({ identity: le.identity }, 'started leading: writing status and Events');
    statusWriter.resync();
    gatewayStatus.resync();
    events.record(reconciler.diagnostics);
    manager?.resync();
    gatewayServices?.resync();
  });
  elector.on('stopped-leading', (reason) => log.warn({ identity: le.identity, reason }, 'stopped leading'));

  const source = new ClusterSource(o.kubeConfig, store, log, {
    ...(o.watchNamespace ? { namespace: o.watchNamespace } : {}),
    ...(o.metrics ? { onRestart: o.metrics.onWatchRestart } : {}),
    // Basic auth reads its users from Opaque Secrets (auth-secret, RoutePolicy basicAuth): watched with
    // --nginx-annotations, else while one of our IngressClasses opts in (envoy-ingress.io/nginx-annotations: "true")
    // or a RoutePolicy asks for basic auth.
    opaqueSecrets: o.translate.nginxAnnotations === true ? true : opaqueSecretsWanted(o.translate),
    ...(o.translate.nginxConfigMap !== undefined ? { nginxConfigMap: o.translate.nginxConfigMap } : {}),
  });
  o.metrics?.attach({ server, reconciler, store, cache, isLeader: () => elector.isLeader(), lists: () => source.lists });
  // Envoys may connect now; they get nothing until the first complete build after every informer synced.
  void source.start();
  await Promise.all([source.whenSynced(), nodes?.start()]);
  reconciler.markReady();
  await reconciler.idle();
  manager?.start();
  gatewayServices?.start();
  elector.start();
  return {
    xdsPort,
    store,
    cache,
    reconciler,
    server,
    source,
    elector,
    statusWriter,
    gatewayStatus,
    ready() {
      if (!source.synced) return { ready: false, reason: 'informers not synced' };
      if (!cache.ready) return { ready: false, reason: 'no config built yet' };
      return { ready: true, reason: 'ok' };
    },
    async stopLeading() {
      await elector.stop({ release: true });
      await manager?.stop();
      await gatewayServices?.stop();
    },
    async stop() {
      await elector.stop({ release: true });
      await manager?.stop();
      await gatewayServices?.stop();
      statusWriter.stop();
      gatewayStatus.stop();
      events.stop();
      tracker.stop();
      await nodes?.stop();
      await source.stop();
      reconciler.stop();
      await server.close();
      await basicAuth.close();
    },
  };
}
