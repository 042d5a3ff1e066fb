// The Gateway Service manager (cluster mode, --gateway-port-range): one Service per Gateway of our class, in the
// Gateway's namespace and owned by it, mapping the Gateway's listener ports onto the Envoy ports gateway-ports.ts
// gives it, without a selector: the manager keeps its EndpointSlice, the ready Envoy pods of the controller's
// namespace on those ports. Its load balancer's addresses become the Gateway's status.addresses. The garbage
// collector deletes both with the Gateway; this manager does too (and when the Gateway leaves our class), and deletes
// the Service it kept in the controller's namespace before once the new one exists. The Envoy ports are recorded
// first, in the port record (a ConfigMap of the controller's namespace, gateway-port-record.ts), which the Services
// only follow: a tenant editing its Gateway's Service gets it put back. Store changes (Gateways, GatewayClasses,
// ListenerSets and Namespaces: a taken set's ports are its Gateway's; Services and EndpointSlices of this namespace,
// of ours, or of a Gateway's namespace; the port record) and a periodic resync enqueue Gateway keys; a keyed work
// queue runs one operation per Gateway at a time; failures retry with exponential backoff (work-queue/). Only the
// leader writes. What to do is the pure plan's (gateway-service-plan.ts); this file schedules and retries.
import { EventEmitter } from 'node:events';
import { describeError } from '../service-ingress/ingress-api.js';
import { RetryingWorkQueue, type WorkFailure } from '../work-queue/retrying-work-queue.js';
import type { ObjectStore, StoreChange } from '../store.js';
import type { ClusterState, ConfigMap, KubeObject } from '../translate/shared/kube-objects.js';
import { gatewayPortRecordName } from '../translate/gateway-api/gateway-port-record.js';
import { gatewayServiceAnnotation } from '../translate/gateway-api/gateway-service.js';
import {
  gatewayServiceView,
  planGatewayService,
  planPortRecord,
  storedPortRecord,
  viewKeys,
  type GatewayServicePlan,
  type GatewayServiceSettings,
  type GatewayServiceView,
} from './gateway-service-plan.js';
import type { ServiceApi } from './service-api.js';

export interface GatewayServiceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface GatewayServiceManagerOptions extends GatewayServiceSettings {
  /** The manager writes only while this returns true (leader election). */
  isLeader: () => boolean;
  /**
   * Whether the store holds every Gateway and GatewayClass, and the ConfigMaps of the controller's namespace (their
   * informers listed; ClusterSource.kindSynced, gatewayConfigMapsSynced). Until then the manager writes nothing: a
   * store without Gateways yet would have it delete every Gateway's Service, one without the port record would have
   * it give the Envoy ports anew.
   */
  storeComplete: () => boolean;
  /** First retry delay, doubled per retry up to maxBackoffMs (defaults 1 s and 60 s). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Every Gateway is looked at again this often (default 5 min); 0 turns the resync off. */
  resyncIntervalMs?: number;
  log?: GatewayServiceLog;
}

/** `written`: at least one create, update or delete; `collision`: a name taken by an object not ours (left alone). */
export type GatewayServiceOutcome = 'written' | 'unchanged' | 'collision' | 'not-leader' | 'store-incomplete';

export interface GatewayServiceManagerEvents {
  /** One Gateway key (`namespace/name`) was looked at and this is what happened. */
  reconciled: [{ key: string; outcome: GatewayServiceOutcome }];
  failed: [{ key: string; error: unknown; attempt: number; retryInMs: number }];
}

const silentLog: GatewayServiceLog = { info: () => undefined, warn: () => undefined, debug: () => undefined };

export class GatewayServiceManager extends EventEmitter<GatewayServiceManagerEvents> {
  readonly #settings: GatewayServiceSettings;
  readonly #isLeader: () => boolean;
  readonly #storeComplete: () => boolean;
  readonly #resyncIntervalMs: number;
  readonly #log: GatewayServiceLog;
  /** Failures retry for ever (a Gateway without its Service has no address). */
  readonly #queue: RetryingWorkQueue;
  /** The last view and the store's lists it was made from (the store keeps a kind's list while it has no write). */
  #view: { lists: unknown[]; record: ConfigMap | undefined; view: GatewayServiceView } | undefined;
  /**
   * The port record as this manager last wrote it, and the resourceVersion it replaced (undefined: created): newer
   * than the store's while the store still has that one (the watch lags), so the next write starts from it.
   */
  #written: { over: string | undefined; record: ConfigMap } | undefined;
  /** Port record writes, one at a time (it is one object for every Gateway key). */
  #recordWrites: Promise<unknown> = Promise.resolve();
  #resyncTimer: NodeJS.Timeout | undefined;
  #completeTimer: NodeJS.Timeout | undefined;
  #started = false;
  readonly #onChange = (changes: StoreChange[]): void => {
    if (changes.some((c) => c.kind === 'Gateway' || c.kind === 'GatewayClass' || c.kind === 'ListenerSet' || c.kind === 'Namespace')) return this.resync();
    const recordName = gatewayPortRecordName(this.#settings.controllerName);
    if (changes.some((c) => c.kind === 'ConfigMap' && c.namespace === this.#settings.namespace && c.name === recordName)) return this.resync();
    const serviceChanges = changes.filter((c) => c.kind === 'Service' || c.kind === 'EndpointSlice');
    if (serviceChanges.length === 0) return;
    const gatewayNamespaces = new Set(this.store.list('Gateway').map((g) => g.metadata.namespace));
    const ours = (o: KubeObject | undefined): boolean => o?.metadata.annotations?.[gatewayServiceAnnotation] !== undefined;
    if (serviceChanges.some((c) => c.namespace === this.#settings.namespace || gatewayNamespaces.has(c.namespace) || ours(c.object) || ours(c.previous))) this.resync();
  };

  constructor(
    private readonly store: ObjectStore,
    private readonly api: ServiceApi,
    options: GatewayServiceManagerOptions,
  ) {
    super();
    const { controllerName, namespace, selector, portRange, reservedPorts, loadBalancerAddresses } = options;
    this.#settings = { controllerName, namespace, selector, portRange, reservedPorts, ...(loadBalancerAddresses === undefined ? {} : { loadBalancerAddresses }) };
    this.#isLeader = options.isLeader;
    this.#storeComplete = options.storeComplete;
    this.#resyncIntervalMs = options.resyncIntervalMs ?? 5 * 60_000;
    this.#log = options.log ?? silentLog;
    this.#queue = new RetryingWorkQueue((key) => this.#process(key), (failure) => this.#failed(failure), {
      baseBackoffMs: options.baseBackoffMs ?? 1000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      concurrency: 2,
    });
  }

  /** Subscribes to the store and looks at every Gateway once (call after the informers synced). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.store.on('change', this.#onChange);
    if (this.#resyncIntervalMs > 0) {
      this.#resyncTimer = setInterval(() => this.resync(), this.#resyncIntervalMs);
      this.#resyncTimer.unref();
    }
    this.resync();
  }

  /**
   * Enqueues every Gateway and managed Service. A change to one Gateway can change no other's Service (ports are
   * kept by the port record), but looking at all is cheap and catches a Service someone else edited.
   */
  resync(): void {
    for (const key of viewKeys(this.#currentView())) this.#queue.add(key);
  }

  /** Resolves when no operation is queued or running (retries waiting on their backoff do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async stop(): Promise<void> {
    this.store.off('change', this.#onChange);
    clearInterval(this.#resyncTimer);
    clearTimeout(this.#completeTimer);
    this.#completeTimer = undefined;
    await this.#queue.stop();
    this.#started = false;
  }

  /** Throws when a write failed: the queue retries the key. */
  async #process(key: string): Promise<void> {
    const outcome = await this.#reconcile(key);
    this.emit('reconciled', { key, outcome });
  }

  #failed({ key, error, attempt, retryInMs = 0 }: WorkFailure): void {
    this.#log.warn({ gateway: key, attempt, err: describeError(error), retryInMs }, "managing the Gateway's Service failed; will retry");
    this.emit('failed', { key, error, attempt, retryInMs });
  }

  async #reconcile(key: string): Promise<GatewayServiceOutcome> {
    if (!this.#isLeader()) return 'not-leader';
    // The Gateway informers sync after the others; their first objects reach the store as a change, which resyncs.
    if (!this.#storeComplete()) {
      this.#resyncWhenComplete();
      return 'store-incomplete';
    }
    // A write against a stale store fails (409 on a changed resourceVersion, or on create of an existing name) and
    // is retried after a backoff, when the store has caught up. The record first: the Services follow it.
    const recorded = await this.#writePortRecord();
    const outcome = await this.#execute(key, planGatewayService(key, this.#currentView(), this.#settings));
    return recorded && (outcome === 'unchanged' || outcome === 'collision') ? 'written' : outcome;
  }

  /** Makes the port record say every Gateway's Envoy ports (the current view's); whether it wrote. */
  #writePortRecord(): Promise<boolean> {
    const write = this.#recordWrites.then(async () => {
      const view = this.#currentView();
      const step = planPortRecord(view, this.#settings);
      if (step === undefined || !this.#isLeader() || !this.#storeComplete()) return false;
      try {
        const record = await (step.action === 'create' ? this.api.create(step.object) : this.api.replace(step.object));
        this.#written = { over: step.action === 'create' ? undefined : view.record?.metadata.resourceVersion, record };
      } catch (error) {
        // Start again from the store's (someone else wrote it, or deleted it).
        this.#written = undefined;
        throw error;
      }
      this.#log.info({ namespace: step.object.metadata.namespace, name: step.object.metadata.name }, `${step.action === 'create' ? 'created' : 'updated'} the Gateway port record`);
      return true;
    });
    this.#recordWrites = write.catch(() => undefined);
    return write;
  }

  /** The port record to read: the store's, or the one this manager wrote while the store has not seen it yet. */
  #portRecord(state: ClusterState): ConfigMap | undefined {
    const stored = storedPortRecord(state, this.#settings);
    const written = this.#written;
    if (written === undefined) return stored;
    if (stored?.metadata.resourceVersion === written.over) return written.record;
    // The store has caught up (or someone wrote since): it is the record.
    this.#written = undefined;
    return stored;
  }

  /** The view of the store as it is now; made once per store change, not once per Gateway. */
  #currentView(): GatewayServiceView {
    const state = this.store.state();
    const lists = Object.values(state);
    const record = this.#portRecord(state);
    const cached = this.#view;
    if (cached !== undefined && cached.record === record && lists.length === cached.lists.length && lists.every((list, i) => list === cached.lists[i])) return cached.view;
    const view = gatewayServiceView(state, this.#settings, record);
    this.#view = { lists, record, view };
    return view;
  }

  /** Looks again shortly: the informers' sync marks the store complete without a change of its own. */
  #resyncWhenComplete(): void {
    if (this.#completeTimer !== undefined || !this.#started) return;
    this.#completeTimer = setTimeout(() => {
      this.#completeTimer = undefined;
      this.resync();
    }, 500);
  }

  async #execute(key: string, plan: GatewayServicePlan): Promise<GatewayServiceOutcome> {
    if (plan.collision !== undefined) this.#log.warn({ gateway: key, problem: plan.collision }, 'left an object alone that is not ours (the Gateway says so in its status)');
    if (plan.steps.length === 0) return plan.collision === undefined ? 'unchanged' : 'collision';
    if (!this.#isLeader()) return 'not-leader';
    if (!this.#storeComplete()) return 'store-incomplete';
    // In order: the Service and its EndpointSlice first, the Service kept before last (it serves until then).
    for (const step of plan.steps) {
      if (step.action === 'delete') {
        await this.api.delete(step.kind, step.namespace, step.name, { uid: step.uid, resourceVersion: step.resourceVersion });
        this.#log.info({ gateway: key, kind: step.kind, namespace: step.namespace, name: step.name }, 'deleted an object of a Gateway (gone, moved, or without a port)');
      } else {
        const { kind, metadata } = step.object;
        await (step.action === 'create' ? this.api.create(step.object) : this.api.replace(step.object));
        this.#log.info({ gateway: key, kind, namespace: metadata.namespace, name: metadata.name }, `${step.action === 'create' ? 'created' : 'updated'} an object of a Gateway`);
      }
    }
    return 'written';
  }
}
