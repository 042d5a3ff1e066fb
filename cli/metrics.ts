// Prometheus metrics of the controller (prom-client), on a registry of its own so several controllers in one
// process (tests) do not collide. Counters follow events; gauges are computed when scraped, from the live
// objects, so they can never drift from what /debug shows.
import { gatewayApiDebugView } from './debug-views.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Reconciler } from '../controller/reconciler.js';
import type { ObjectStore } from '../controller/store.js';
import { kindNames } from '../controller/translate/shared/kinds.js';
import type { KubeKind } from '../controller/translate/shared/kube-objects.js';
import { TypeUrl } from '../proto/type-urls.js';
import type { AdsServer } from '../xds/ads-server.js';
import { clientSync } from '../xds/client-sync.js';
import type { SnapshotCache } from '../xds/snapshot-cache.js';
import type { OverloadState } from './envoy-overload.js';

const kubeKinds: readonly KubeKind[] = kindNames;

/** What the metrics observe. Every controller (standalone or Kubernetes) has these. */
export interface MetricSources {
  server: AdsServer;
  reconciler: Reconciler;
  store: ObjectStore;
  cache: SnapshotCache;
  /** Leader election state; standalone mode has no election and is always the only writer. */
  isLeader: () => boolean;
  /** List calls per kind (ClusterSource.lists): every call after the first is a relist. */
  lists?: () => ReadonlyMap<KubeKind, number>;
}

/** Names and help texts, also listed in docs/reference/metrics.md (generated from this registry; a test checks it). */
export const metricNames = {
  connectedEnvoys: 'envoy_ingress_xds_connected_envoys',
  envoysInSync: 'envoy_ingress_xds_envoys_in_sync',
  pushes: 'envoy_ingress_xds_pushes_total',
  acks: 'envoy_ingress_xds_acks_total',
  nacks: 'envoy_ingress_xds_nacks_total',
  translationDuration: 'envoy_ingress_translation_duration_seconds',
  buildFailures: 'envoy_ingress_build_failures_total',
  lastSuccessfulBuild: 'envoy_ingress_last_successful_build_timestamp_seconds',
  watchedObjects: 'envoy_ingress_watched_objects',
  diagnostics: 'envoy_ingress_diagnostics',
  leader: 'envoy_ingress_leader',
  watchRestarts: 'envoy_ingress_kube_watch_restarts_total',
  relists: 'envoy_ingress_kube_relists_total',
  envoyResourcePressure: 'envoy_ingress_envoy_resource_pressure',
  envoyOverloadActionScale: 'envoy_ingress_envoy_overload_action_scale',
  envoyOverloaded: 'envoy_ingress_envoy_overloaded',
  gatewayAttachedRoutes: 'envoy_ingress_gateway_attached_routes',
  gatewayListeners: 'envoy_ingress_gateway_listeners',
} as const;

export class ControllerMetrics {
  readonly registry = new Registry();
  readonly #pushes: Counter<'type_url'>;
  readonly #acks: Counter<'type_url'>;
  readonly #nacks: Counter<'type_url'>;
  readonly #duration: Histogram<'build'>;
  readonly #failures: Counter;
  readonly #lastBuild: Gauge;
  readonly #watchRestarts: Counter<'kind'>;
  readonly #envoyPressure: Gauge<'monitor'>;
  readonly #envoyActionScale: Gauge<'action'>;
  readonly #envoyOverloaded: Gauge;
  #sources: MetricSources | undefined;
  #detach: (() => void) | undefined;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    const sources = (): MetricSources | undefined => this.#sources;
    new Gauge({
      name: metricNames.connectedEnvoys,
      help: 'Envoys with an open ADS stream',
      registers,
      collect() {
        this.set(sources()?.server.clients().length ?? 0);
      },
    });
    new Gauge({
      name: metricNames.envoysInSync,
      help: 'Connected Envoys that have ACKed every resource of the current snapshot at its current version',
      registers,
      collect() {
        const s = sources();
        const snapshot = s?.cache.ready ? s.cache.snapshot : undefined;
        this.set(snapshot ? s!.server.clients().filter((c) => clientSync(c.acked, snapshot).inSync).length : 0);
      },
    });
    this.#pushes = new Counter({ name: metricNames.pushes, help: 'xDS responses sent, by type URL', labelNames: ['type_url'], registers });
    this.#acks = new Counter({ name: metricNames.acks, help: 'xDS responses Envoy accepted (ACK), by type URL', labelNames: ['type_url'], registers });
    this.#nacks = new Counter({ name: metricNames.nacks, help: 'xDS responses Envoy rejected (NACK), by type URL', labelNames: ['type_url'], registers });
    this.#duration = new Histogram({
      name: metricNames.translationDuration,
      help: 'Time to build Envoy config from the watched objects; build="full" (translate + resources), "routes" (the Ingresses around a change, or the changed HTTPRoutes and the virtual hosts they touch), "secrets" (SDS only) or "endpoints" (EDS only)',
      labelNames: ['build'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.#failures = new Counter({ name: metricNames.buildFailures, help: 'Builds that failed (Envoy keeps the last good config)', registers });
    this.#lastBuild = new Gauge({ name: metricNames.lastSuccessfulBuild, help: 'Unix time of the last successful build', registers });
    new Gauge({
      name: metricNames.watchedObjects,
      help: 'Objects in the store, by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        const s = sources();
        for (const kind of kubeKinds) this.set({ kind }, s?.store.count(kind) ?? 0);
      },
    });
    new Gauge({
      name: metricNames.diagnostics,
      help: 'Current translation problems (the ones reported as Events), by reason and severity',
      labelNames: ['reason', 'severity'],
      registers,
      collect() {
        this.reset();
        for (const d of sources()?.reconciler.diagnostics ?? []) this.inc({ reason: d.reason, severity: d.severity });
      },
    });
    // Per Gateway of our classes (one series each, two for listeners): bounded by the Gateways, never per route.
    new Gauge({
      name: metricNames.gatewayAttachedRoutes,
      help: 'Routes Accepted by a Gateway of our classes or one of its ListenerSets, by the Gateway\'s namespace and name',
      labelNames: ['namespace', 'name'],
      registers,
      collect() {
        this.reset();
        const s = sources();
        // Through the Gateway's own listeners or its ListenerSets' (served on its sockets): each route once.
        for (const g of s ? gatewayApiDebugView(s).gateways : []) this.set({ namespace: g.namespace, name: g.name }, new Set([...g.attachedRoutes, ...g.attachedThroughListenerSets]).size);
      },
    });
    new Gauge({
      name: metricNames.gatewayListeners,
      help: 'Listeners of a Gateway of our classes and of the ListenerSets naming it, by the Gateway\'s namespace and name and whether they are programmed (served)',
      labelNames: ['namespace', 'name', 'programmed'],
      registers,
      collect() {
        this.reset();
        const s = sources();
        const view = s ? gatewayApiDebugView(s) : undefined;
        for (const g of view?.gateways ?? []) {
          // Its own listeners and those of the ListenerSets naming it, as each set's status lists them.
          const listeners = [...g.listeners, ...(view?.listenerSets ?? []).filter((set) => set.gateway === `${g.namespace}/${g.name}`).flatMap((set) => set.listeners)];
          const programmed = listeners.filter((l) => l.programmed === 'True').length;
          this.set({ namespace: g.namespace, name: g.name, programmed: 'true' }, programmed);
          this.set({ namespace: g.namespace, name: g.name, programmed: 'false' }, listeners.length - programmed);
        }
      },
    });
    new Gauge({
      name: metricNames.leader,
      help: '1 while this replica holds the leader lease (writes status and Events); always 1 in standalone mode',
      registers,
      collect() {
        this.set(sources()?.isLeader() ? 1 : 0);
      },
    });
    this.#watchRestarts = new Counter({
      name: metricNames.watchRestarts,
      help: 'Kubernetes informers restarted after an error, by kind',
      labelNames: ['kind'],
      registers,
    });
    new Gauge({
      name: metricNames.relists,
      help: 'Kubernetes list calls after the initial one (a watch could not resume, e.g. 410 Gone), by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        const lists = sources()?.lists?.();
        if (!lists) return;
        for (const [kind, count] of lists) this.set({ kind }, Math.max(0, count - 1));
      },
    });
    this.#envoyPressure = new Gauge({
      name: metricNames.envoyResourcePressure,
      help: "Envoy's overload manager: each resource monitor's use of its limit, 0..1 (memory: 503 to new requests from 0.98), when the controller watches an Envoy (--envoy-admin-url, --envoy)",
      labelNames: ['monitor'],
      registers,
    });
    this.#envoyActionScale = new Gauge({
      name: metricNames.envoyOverloadActionScale,
      help: "Envoy's overload manager: how far each overload action is applied, 0..1 (stop_accepting_requests 1: new requests get 503)",
      labelNames: ['action'],
      registers,
    });
    this.#envoyOverloaded = new Gauge({
      name: metricNames.envoyOverloaded,
      help: 'Envoy is near or in overload: a resource monitor at 0.9 of its limit or more, or requests refused (logged once per episode, with the remedy)',
      registers,
    });
  }

  /** Envoy's overload state at the last look (cli/envoy-overload-watch.ts); undefined: Envoy did not answer. */
  observeEnvoyOverload(state: OverloadState | undefined, near: boolean): void {
    this.#envoyPressure.reset();
    this.#envoyActionScale.reset();
    for (const [monitor, pressure] of Object.entries(state?.pressure ?? {})) this.#envoyPressure.set({ monitor }, pressure);
    for (const [action, scale] of Object.entries(state?.actions ?? {})) this.#envoyActionScale.set({ action }, scale);
    this.#envoyOverloaded.set(near ? 1 : 0);
  }

  /** Start observing a controller (events from now on; gauges read it at each scrape). */
  attach(s: MetricSources): void {
    this.#detach?.();
    this.#sources = s;
    const onPush = (e: { kind: keyof typeof TypeUrl }): void => this.#pushes.inc({ type_url: TypeUrl[e.kind] });
    const onAck = (e: { kind: keyof typeof TypeUrl }): void => this.#acks.inc({ type_url: TypeUrl[e.kind] });
    const onNack = (e: { kind: keyof typeof TypeUrl }): void => this.#nacks.inc({ type_url: TypeUrl[e.kind] });
    const onBuilt = (b: { kind: string; durationMs: number }): void => {
      this.#duration.observe({ build: b.kind }, b.durationMs / 1000);
      this.#lastBuild.set(Date.now() / 1000);
    };
    const onFailed = (): void => this.#failures.inc();
    s.server.on('push', onPush);
    s.server.on('ack', onAck);
    s.server.on('nack', onNack);
    s.reconciler.on('built', onBuilt);
    s.reconciler.on('failed', onFailed);
    // The first build may be over before metrics attach: its time still counts as the last successful one.
    if (s.reconciler.generation > 0) this.#lastBuild.set(Date.now() / 1000);
    this.#detach = () => {
      s.server.off('push', onPush);
      s.server.off('ack', onAck);
      s.server.off('nack', onNack);
      s.reconciler.off('built', onBuilt);
      s.reconciler.off('failed', onFailed);
    };
  }

  /** For ClusterSourceOptions.onRestart. */
  readonly onWatchRestart = (kind: KubeKind): void => {
    this.#watchRestarts.inc({ kind });
  };

  detach(): void {
    this.#detach?.();
    this.#detach = undefined;
  }

  /** The text exposition format. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
