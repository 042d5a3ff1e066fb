// Writes the Gateway API objects' status subresources (GatewayClass, Gateway, ListenerSet, routes, BackendTLSPolicy, and our RoutePolicy) from the translator's status
// data (gateway-api-status-merge.ts says what each should hold), through the generic status queue (leader-only,
// coalescing, conflict retry, backoff per object). Builds hand over their status data at once (Accepted, route
// parents) with the generation they came from; the writer holds them until Envoy ACKed that generation or
// statusAckHoldMs passed (the writes then do not compete with Envoy applying the change). Gateway and listener
// Programmed=True wait for the applied tracker: Envoy ACKed the generation.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { normalizeObject } from '../sources/normalize.js';
import type { ObjectStore, StoreChange } from '../store.js';
import type { GatewayStatusAddress } from '../translate/gateway-api/gateway-service.js';
import type { GatewayApiStatus } from '../translate/gateway-api/status-data.js';
import { keyNamespaceOf } from '../translate/shared/kinds.js';
import { kindTable } from '../translate/shared/kinds.js';
import type { BackendTLSPolicy, RoutePolicy, GRPCRoute, Gateway, GatewayClass, HTTPRoute, ListenerSet, ObjectRef, TCPRoute, TLSRoute } from '../translate/shared/kube-objects.js';
import {
  type AppliedGateways,
  desiredGatewayClassStatus,
  desiredGatewayStatus,
  desiredListenerSetStatus,
  desiredPolicyStatus,
  desiredRouteStatus,
  sameJson,
} from './gateway-api-status-merge.js';
import { StatusQueue, type StatusQueueStats } from './status-queue.js';
import type { StatusLog } from './status-writer.js';

type StatusObject = GatewayClass | Gateway | ListenerSet | HTTPRoute | GRPCRoute | TLSRoute | TCPRoute | BackendTLSPolicy | RoutePolicy;
type StatusKind = StatusObject['kind'];

const plurals: Record<StatusKind, string> = {
  GatewayClass: 'gatewayclasses',
  Gateway: 'gateways',
  ListenerSet: 'listenersets',
  HTTPRoute: 'httproutes',
  GRPCRoute: 'grpcroutes',
  TLSRoute: 'tlsroutes',
  TCPRoute: 'tcproutes',
  BackendTLSPolicy: 'backendtlspolicies',
  RoutePolicy: 'routepolicies',
};
/** The version watched (the kind table's first), which the status is written through. */
function groupVersionOf(kind: StatusKind): { group: string; version: string } {
  const apiVersion = kindTable[kind].apiVersions[0];
  return { group: apiVersion.slice(0, apiVersion.indexOf('/')), version: apiVersion.slice(apiVersion.indexOf('/') + 1) };
}
const statusKinds = Object.keys(plurals) as StatusKind[];

function isStatusKind(kind: string): kind is StatusKind {
  return Object.hasOwn(plurals, kind);
}

/**
 * How long a build's status writes wait at most for Envoy to ACK that build. A create writes two statuses (the
 * route's parents, the Gateway's attachedRoutes); the API server and etcd handle them, and our store the watch
 * events they bring back, on the CPUs where Envoy applies the same change: held until the ACK, Envoy applied one
 * HTTPRoute at 5,000 routes in about 30 ms instead of 40, and the create took about 54 ms instead of 63 (2 CPUs).
 * Short, because status must still be written when no Envoy is connected or Envoy rejects the config; what status
 * says does not depend on it.
 */
export const statusAckHoldMs = 200;

/** Timers, injectable so that unit tests hold and release builds with a fake clock. */
export interface HoldTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: HoldTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface GatewayApiStatusWriterOptions {
  kubeConfig: KubeConfig;
  store: ObjectStore;
  isLeader: () => boolean;
  log: StatusLog;
  /** Our GatewayClass controllerName: route parent entries of this name are ours, others' are kept. */
  controllerName: string;
  /** Addresses for Gateways without their own (the controller's published ones); absent: none. */
  sharedAddresses?: () => readonly GatewayStatusAddress[];
  /** The time written as a changed condition's lastTransitionTime (tests fix it). */
  now?: () => Date;
  /** The longest a build's status waits for Envoy's ACK of it (default statusAckHoldMs). */
  ackHoldMs?: number;
  timers?: HoldTimers;
  maxInFlight?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  maxConflictRetries?: number;
}

/** `Kind/namespace/name` (namespace '' for a GatewayClass), the queue's key. */
function keyOf(kind: StatusKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function parseKey(key: string): { kind: StatusKind; namespace: string; name: string } {
  const [kind = '', namespace = '', ...rest] = key.split('/');
  if (!isStatusKind(kind)) throw new Error(`not a Gateway API status key: ${key}`);
  return { kind, namespace, name: rest.join('/') };
}

function refKeyOf(ref: ObjectRef): string | undefined {
  if (!isStatusKind(ref.kind)) return undefined;
  return keyOf(ref.kind, keyNamespaceOf(ref.kind, ref), ref.name);
}

/** Programmed per Gateway and ListenerSet (`key@generation`) and listener, as the newest applied generation's status had it. */
function appliedGatewaysOf(status: GatewayApiStatus | undefined): AppliedGateways {
  const gateways = new Set<string>();
  const listeners = new Set<string>();
  for (const g of [...(status?.gateways ?? []), ...(status?.listenerSets ?? [])]) {
    const key = refKeyOf(g.ref);
    const programmed = g.conditions.find((c) => c.type === 'Programmed');
    if (key === undefined || programmed?.status !== 'True') continue;
    gateways.add(`${key}@${programmed.observedGeneration}`);
    for (const l of g.listeners) {
      if (l.conditions.some((c) => c.type === 'Programmed' && c.status === 'True')) listeners.add(`${key}@${programmed.observedGeneration}/${l.name}`);
    }
  }
  return {
    gatewayProgrammed: (key, generation) => gateways.has(`${key}@${generation}`),
    listenerProgrammed: (key, generation, listener) => listeners.has(`${key}@${generation}/${listener}`),
  };
}

/**
 * A status data entry per object key (refKeyOf), made once per build's status data: a resync asks for every
 * object's entry, and a search of the lists per object made a resync quadratic in the routes (seconds per build at
 * 10,000 HTTPRoutes, on the way from a build to Envoy's next push).
 */
interface StatusIndex {
  gatewayClasses: ReadonlyMap<string, GatewayApiStatus['gatewayClasses'][number]>;
  gateways: ReadonlyMap<string, GatewayApiStatus['gateways'][number]>;
  listenerSets: ReadonlyMap<string, NonNullable<GatewayApiStatus['listenerSets']>[number]>;
  routes: ReadonlyMap<string, GatewayApiStatus['routes'][number]>;
  backendTlsPolicies: ReadonlyMap<string, NonNullable<GatewayApiStatus['backendTlsPolicies']>[number]>;
  routePolicies: ReadonlyMap<string, NonNullable<GatewayApiStatus['routePolicies']>[number]>;
}

/** The first entry per key, as a search of the list finds it. */
function byKey<T>(entries: readonly T[] | undefined, keyOfEntry: (entry: T) => string | undefined): Map<string, T> {
  const map = new Map<string, T>();
  for (const entry of entries ?? []) {
    const key = keyOfEntry(entry);
    if (key !== undefined && !map.has(key)) map.set(key, entry);
  }
  return map;
}

function indexStatus(status: GatewayApiStatus): StatusIndex {
  return {
    gatewayClasses: byKey(status.gatewayClasses, (c) => refKeyOf(c.ref)),
    gateways: byKey(status.gateways, (g) => refKeyOf(g.ref)),
    listenerSets: byKey(status.listenerSets, (l) => refKeyOf(l.ref)),
    routes: byKey(status.routes, (r) => refKeyOf(r.ref)),
    backendTlsPolicies: byKey(status.backendTlsPolicies, (p) => refKeyOf(p.ref)),
    routePolicies: byKey(status.routePolicies, (p) => refKeyOf(p.ref)),
  };
}

/** A build's status data waiting for Envoy's ACK of its generation (or the cap). */
interface HeldBuild {
  status: GatewayApiStatus | undefined;
  generation: number;
}

interface Written {
  replacedVersions: string[];
  object: StatusObject;
}

export class GatewayApiStatusWriter {
  readonly #api: CustomObjectsApi;
  readonly #queue: StatusQueue<StatusObject>;
  #latest: GatewayApiStatus | undefined;
  /** #latest by object key, made when first asked for after #latest changed. */
  #latestIndex: StatusIndex | undefined;
  #applied: AppliedGateways = appliedGatewaysOf(undefined);
  /** The newest generation Envoy ACKed (publishApplied). */
  #appliedGeneration = 0;
  /** The newest build handed over and not yet published; only the newest is kept (the queue is level-triggered). */
  #held: HeldBuild | undefined;
  /** The cap's timer, set by the first build held since the last release (a stream of builds still writes). */
  #holdTimer: unknown;
  readonly #releaseWaiters: (() => void)[] = [];
  readonly #written = new Map<string, Written>();
  readonly #onStoreChange = (changes: StoreChange[]): void => {
    if (this.#latest === undefined || !this.options.isLeader()) return;
    for (const c of changes) {
      if (!isStatusKind(c.kind)) continue;
      const key = keyOf(c.kind, c.namespace, c.name);
      if (c.type === 'deleted') {
        this.#written.delete(key);
        this.#queue.forget(key);
      } else this.#queue.enqueue(key);
    }
  };

  constructor(private readonly options: GatewayApiStatusWriterOptions) {
    this.#api = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#queue = new StatusQueue<StatusObject>(
      {
        kind: 'Gateway API',
        logField: 'object',
        latest: (key) => this.#latestCopy(key),
        desired: (key, obj) => this.#desired(key, obj),
        write: (key, obj, body) => this.#write(key, obj, body),
        read: (key) => this.#read(key),
      },
      options,
    );
    options.store.on('change', this.#onStoreChange);
  }

  get stats(): StatusQueueStats {
    return this.#queue.stats;
  }

  /**
   * A build's status data (undefined: no Gateway API object is ours; our route parent entries are then removed), of
   * build `generation`. Held until Envoy ACKed that generation (publishApplied) or the cap passed, then published.
   */
  publishBuilt(status: GatewayApiStatus | undefined, generation: number): void {
    if (generation <= this.#appliedGeneration) {
      // Already ACKed: the applied tracker hears of each build first, and one that changes nothing Envoy holds is
      // applied at once.
      this.#takeHeld();
      this.#publish(status);
      return;
    }
    this.#held = { status, generation };
    const timers = this.options.timers ?? systemTimers;
    this.#holdTimer ??= timers.setTimeout(() => {
      this.#holdTimer = undefined;
      this.#release();
    }, this.options.ackHoldMs ?? statusAckHoldMs);
  }

  /**
   * The status data of the newest generation Envoy ACKed: a build held until then is published, and Programmed=True
   * may now be written for its Gateways.
   */
  publishApplied(status: GatewayApiStatus | undefined, generation: number): void {
    this.#appliedGeneration = Math.max(this.#appliedGeneration, generation);
    this.#applied = appliedGatewaysOf(status);
    if (this.#held !== undefined && this.#held.generation <= generation) this.#release();
    this.resyncGateways();
  }

  /** Publishes the held build, if any. */
  #release(): void {
    const held = this.#takeHeld();
    if (held !== undefined) this.#publish(held.status);
  }

  /** The held build, no longer held (its cap timer cleared, idle() waiters told). */
  #takeHeld(): HeldBuild | undefined {
    const held = this.#held;
    this.#held = undefined;
    if (this.#holdTimer !== undefined) (this.options.timers ?? systemTimers).clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
    for (const resolve of this.#releaseWaiters.splice(0)) resolve();
    return held;
  }

  /**
   * Queues the objects whose entry is not the last published build's (a new, changed or gone entry: the status data
   * are not modified once made, and an incremental build hands an untouched route's entry on as it was): an object
   * whose entry is the same was queued when it got it, and is queued again by a change of its own (the store), a
   * failed write (the queue's retry) or leadership (resync).
   */
  #publish(status: GatewayApiStatus | undefined): void {
    const before = this.#latest === undefined ? undefined : this.#index();
    this.#latest = status ?? { gatewayClasses: [], gateways: [], routes: [] };
    this.#latestIndex = undefined;
    if (before === undefined) {
      this.resync();
      return;
    }
    if (!this.options.isLeader()) return;
    const after = this.#index();
    for (const field of Object.keys(after) as (keyof StatusIndex)[]) {
      const [was, is] = [before[field] as ReadonlyMap<string, unknown>, after[field] as ReadonlyMap<string, unknown>];
      for (const [key, entry] of is) if (was.get(key) !== entry) this.#enqueueStored(key);
      for (const key of was.keys()) if (!is.has(key)) this.#enqueueStored(key);
    }
  }

  /**
   * Queues every object (after becoming leader). A held build is published first, without waiting for the ACK: the
   * previous build's status might undo what the leader before us wrote from the newer one.
   */
  resync(): void {
    const held = this.#takeHeld();
    if (held !== undefined) {
      this.#latest = held.status ?? { gatewayClasses: [], gateways: [], routes: [] };
      this.#latestIndex = undefined;
    }
    this.#resyncKinds(statusKinds);
  }

  /**
   * Queues the Gateways and ListenerSets: what else their status says besides a build's data (Programmed once Envoy
   * ACKed, the shared addresses) changed. No other kind's status reads either.
   */
  resyncGateways(): void {
    this.#resyncKinds(['Gateway', 'ListenerSet']);
  }

  #resyncKinds(kinds: readonly StatusKind[]): void {
    if (this.#latest === undefined || !this.options.isLeader()) return;
    for (const kind of kinds) {
      for (const obj of this.options.store.list(kind)) this.#queue.enqueue(keyOf(kind, keyNamespaceOf(kind, obj.metadata), obj.metadata.name));
    }
  }

  /** Queues `key` when its object is in the store (as resync queues the stored objects only). */
  #enqueueStored(key: string): void {
    if (this.#stored(key) !== undefined) this.#queue.enqueue(key);
  }

  #index(): StatusIndex {
    return (this.#latestIndex ??= indexStatus(this.#latest ?? { gatewayClasses: [], gateways: [], routes: [] }));
  }

  /** Resolves when no build is held and nothing is queued or being written (retries waiting for their backoff do not count). */
  async idle(): Promise<void> {
    while (this.#held !== undefined) await new Promise<void>((resolve) => this.#releaseWaiters.push(resolve));
    return this.#queue.idle();
  }

  /**
   * Stops writing. A held build is dropped like the queued writes: a shutdown gives up leadership first, so they
   * would not be written anyway, and the next leader writes every status (resync).
   */
  stop(): void {
    this.options.store.off('change', this.#onStoreChange);
    this.#takeHeld();
    this.#queue.stop();
  }

  #stored(key: string): StatusObject | undefined {
    const { kind, namespace, name } = parseKey(key);
    const obj = this.options.store.get(kind, namespace, name);
    return obj?.kind === kind ? (obj as StatusObject) : undefined;
  }

  #latestCopy(key: string): StatusObject | undefined {
    const stored = this.#stored(key);
    if (stored === undefined) return undefined;
    const written = this.#written.get(key);
    if (written !== undefined) {
      const v = stored.metadata.resourceVersion;
      if (v !== undefined && written.replacedVersions.includes(v)) return written.object;
      this.#written.delete(key);
    }
    return stored;
  }

  #desired(key: string, obj: StatusObject): StatusObject | undefined {
    const latest = this.#latest;
    if (latest === undefined) return undefined;
    const index = this.#index();
    const now = (this.options.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    let status: Record<string, unknown> | undefined;
    if (obj.kind === 'GatewayClass') {
      const data = index.gatewayClasses.get(key);
      if (data !== undefined) status = desiredGatewayClassStatus(obj, data, now);
    } else if (obj.kind === 'Gateway') {
      const data = index.gateways.get(key);
      if (data !== undefined) status = desiredGatewayStatus(obj, key, data, this.#applied, now, this.options.sharedAddresses?.() ?? []);
    } else if (obj.kind === 'ListenerSet') {
      const data = index.listenerSets.get(key);
      if (data !== undefined) status = desiredListenerSetStatus(obj, key, data, this.#applied, now);
    } else if (obj.kind === 'BackendTLSPolicy' || obj.kind === 'RoutePolicy') {
      const data = (obj.kind === 'RoutePolicy' ? index.routePolicies : index.backendTlsPolicies).get(key);
      const hasOurs = (obj.status?.ancestors ?? []).some((a) => a['controllerName'] === this.options.controllerName);
      if ((data?.ancestors.length ?? 0) > 0 || hasOurs) status = desiredPolicyStatus(obj, this.options.controllerName, data, now);
    } else {
      const data = index.routes.get(key);
      const hasOurs = (obj.status?.parents ?? []).some((p) => p['controllerName'] === this.options.controllerName);
      if (data !== undefined || hasOurs) status = desiredRouteStatus(obj, this.options.controllerName, data, now);
    }
    // Compared without lastTransitionTime's `now`: an unchanged status keeps the existing times, so equal means equal.
    if (status === undefined || sameJson(status, obj.status ?? {})) return undefined;
    return { ...obj, status } as StatusObject;
  }

  async #write(key: string, obj: StatusObject, body: StatusObject): Promise<void> {
    const { kind, namespace, name } = parseKey(key);
    const common = { ...groupVersionOf(kind), plural: plurals[kind], name, body };
    const result: unknown =
      kind === 'GatewayClass'
        ? await this.#api.replaceClusterCustomObjectStatus(common)
        : await this.#api.replaceNamespacedCustomObjectStatus({ ...common, namespace });
    this.#remember(key, obj, result);
    this.options.log.info({ object: key }, `wrote ${kind} status`);
  }

  #remember(key: string, base: StatusObject, result: unknown): void {
    const normalized = normalizeObject(result);
    if (!normalized.ok || !isStatusKind(normalized.object.kind) || base.metadata.resourceVersion === undefined) {
      this.#written.delete(key);
      return;
    }
    const replaced = [...(this.#written.get(key)?.replacedVersions ?? []), base.metadata.resourceVersion].slice(-4);
    this.#written.set(key, { replacedVersions: replaced, object: normalized.object as StatusObject });
  }

  /**
   * After a 409: the store's copy once the watch brought the newer object (a moment later), not a GET, so RBAC
   * needs no `get` on these kinds; still stale, the next attempt conflicts again and the queue backs off.
   */
  async #read(key: string): Promise<StatusObject | undefined> {
    await new Promise((resolve) => setTimeout(resolve, 200));
    this.#written.delete(key);
    return this.#stored(key);
  }

}
