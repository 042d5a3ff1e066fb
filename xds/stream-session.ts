// What state-of-the-world and incremental ADS streams share: per-type subscription state, one outstanding
// response per type, and the push order that never drops traffic ("make before break"):
//   CDS -> EDS (right behind it, and always again after a cluster change so warming completes; Envoy ACKs a
//   CDS response only once its clusters are warm, i.e. have their endpoints, so EDS must not wait for that ACK)
//   -> SDS -> ECDS -> LDS -> RDS -> VHDS (only once clusters are ACKed and so are the endpoints of the clusters just sent, so no
//   route names a cluster that is not warm yet; endpoint updates of other clusters do not hold routes back)
//   -> and clusters removed from the snapshot stay in CDS, with their endpoints in EDS, until listeners and
//   routes that no longer use them are ACKed.
import { routeConfigurationOf, type ResourceKind } from '../proto/type-urls.js';
import type { NodeInfo } from './discovery-messages.js';
import type { XdsResource } from './resource.js';
import { changedNamesBetween, type ResourceMap, type Snapshot } from './snapshot.js';


/**
 * Debug self-check of the incremental paths: when enabled (in tests, or XDS_SELF_CHECK=1), every memoised or
 * incrementally maintained answer is compared with a recomputation from scratch, and each difference is recorded
 * in `failures` (the incremental answer is still the one used, so a test sees what a bug would do).
 */
export const xdsSelfCheck: { enabled: boolean; readonly failures: string[]; fail(message: string): void } = {
  enabled: process.env['XDS_SELF_CHECK'] === '1',
  failures: [],
  fail(message) {
    this.failures.push(message);
    // Switched on from the environment (a whole test run): nobody reads `failures`, so say it.
    if (process.env['XDS_SELF_CHECK'] === '1') process.emitWarning(message, 'XdsSelfCheck');
  },
};

export const pushOrder: readonly ResourceKind[] = [
  'cluster',
  'clusterLoadAssignment',
  'secret',
  // Named by the listeners' filters, like SDS (Envoy asks for them when a listener arrives, which warms until they
  // come): a change to one is sent before the listeners that may name it, and they name no cluster.
  'extensionConfig',
  'listener',
  'routeConfiguration',
  'virtualHost',
];

/** Kinds that name clusters: sent only once those clusters are warm (and they hold removed clusters back). */
const routingKinds: ReadonlySet<ResourceKind> = new Set(['listener', 'routeConfiguration', 'virtualHost']);

/**
 * Kinds whose first request without names is a wildcard subscription. VHDS is one: Envoy sends its namespace
 * subscriptions (route configuration names) as a legacy wildcard request and sorts what arrives by namespace.
 */
const wildcardKinds: ReadonlySet<ResourceKind> = new Set(['listener', 'cluster', 'virtualHost']);

export function isWildcardKind(kind: ResourceKind): boolean {
  return wildcardKinds.has(kind);
}

export interface KindState {
  /** Envoy has asked for this type on this stream. */
  requested: boolean;
  wildcard: boolean;
  /** Explicitly subscribed names (besides the wildcard). */
  names: Set<string>;
  /** Bumped whenever `wildcard` or `names` change: what is memoised per subscription is keyed by it. */
  subscription: number;
  /** Nonce of the response awaiting ACK or NACK; at most one per type. */
  pendingNonce: string | undefined;
  /** Send at the next opportunity even if the content did not change (EDS after a cluster change). */
  force: boolean;
  /** Version last ACKed (SotW version string or delta system version). */
  ackedVersion: string | undefined;
  lastNack: { version: string; message: string; at: number } | undefined;
}

export interface AckEvent {
  streamId: number;
  node: NodeInfo | undefined;
  kind: ResourceKind;
  /** The snapshot version of that type the ACKed response was built from. */
  version: string;
  resourceNames: string[];
  resourceVersions: string[];
  removedNames: string[];
}

export interface NackEvent extends AckEvent {
  message: string;
}

export interface SessionHooks {
  onAck(event: AckEvent): void;
  onNack(event: NackEvent): void;
  /** A response was written (for metrics). */
  onPush?(response: SentResponse): void;
}

export interface SentResponse {
  kind: ResourceKind;
  nonce: string;
  /** Snapshot version of the type when built. */
  version: string;
  resourceNames: string[];
  /** Versions of the resources, parallel to resourceNames. */
  resourceVersions: string[];
  removedNames: string[];
  /**
   * Snapshot resources of another kind this response carried inside its own (a state-of-the-world route
   * configuration with its virtual hosts embedded): its ACK acknowledges them too.
   */
  embedded?: { kind: ResourceKind; resourceNames: string[]; resourceVersions: string[] };
}

let nextStreamId = 1;

export abstract class StreamSession {
  readonly id = nextStreamId++;
  node: NodeInfo | undefined;
  readonly states = new Map<ResourceKind, KindState>();
  protected snapshot: Snapshot | undefined;
  protected readonly inFlight = new Map<string, SentResponse>();
  #nonceCounter = 0;
  /** Clusters Envoy has (per our responses); removed ones are kept until routes moved off them. */
  protected clientClusters = new Set<string>();
  readonly sent: SentResponse[] = [];
  closed = false;
  /**
   * Bumped by every change of this stream's state (a snapshot, a request, a response written). Only what depends
   * on state too scattered to track (clusters retained while routes move off them) is memoised per epoch; the
   * rest is keyed by the snapshot's map and the subscription, so an ACK or a change of another type costs nothing.
   */
  protected epoch = 0;
  readonly #desiredMemo = new Map<
    ResourceKind,
    {
      all: ResourceMap;
      /** VHDS: the route configurations, whose names are the namespaces a subscription can cover. */
      routeConfigurations: ResourceMap;
      subscription: number;
      retainEpoch: number | undefined;
      desired: ReadonlyMap<string, XdsResource>;
    }
  >();
  /** Per kind: how many resources of the snapshot's map are not among the subscribed names. */
  readonly #unsubscribedMemo = new Map<ResourceKind, { all: ResourceMap; subscription: number; count: number }>();

  constructor(protected readonly hooks: SessionHooks) {}

  state(kind: ResourceKind): KindState {
    let s = this.states.get(kind);
    if (!s) {
      s = {
        requested: false,
        wildcard: false,
        names: new Set(),
        subscription: 0,
        pendingNonce: undefined,
        force: false,
        ackedVersion: undefined,
        lastNack: undefined,
      };
      this.states.set(kind, s);
    }
    return s;
  }

  protected nextNonce(): string {
    this.#nonceCounter += 1;
    return `${this.id}-${this.#nonceCounter}`;
  }

  /** A new snapshot is available (or the first one). */
  setSnapshot(snapshot: Snapshot): void {
    const previous = this.snapshot;
    if (previous && previous.resources.cluster !== snapshot.resources.cluster) {
      // Clusters that left the snapshot but that Envoy still has keep their last endpoints (see desired()).
      for (const name of this.clientClusters) {
        if (snapshot.resources.cluster.has(name)) {
          this.lastSentEndpoints.delete(name); // back in the snapshot: its current endpoints are served
          continue;
        }
        if (this.lastSentEndpoints.has(name)) continue;
        const endpoints = previous.resources.clusterLoadAssignment.get(name);
        if (endpoints) this.lastSentEndpoints.set(name, endpoints);
      }
    }
    this.snapshot = snapshot;
    this.epoch += 1;
    this.pump();
  }

  /**
   * Resources of a kind this stream should have: all for wildcard, else the subscribed ones that exist (read
   * only: often the snapshot's own map, whose type version is already known).
   */
  protected desired(kind: ResourceKind): ReadonlyMap<string, XdsResource> {
    const all = this.snapshot!.resources[kind];
    const routeConfigurations = this.snapshot!.resources.routeConfiguration;
    const st = this.state(kind);
    const retain = (kind === 'cluster' || kind === 'clusterLoadAssignment') && !this.routesSettled();
    const retainEpoch = retain ? this.epoch : undefined;
    const memo = this.#desiredMemo.get(kind);
    let desired: ReadonlyMap<string, XdsResource>;
    if (
      memo &&
      memo.all === all &&
      memo.subscription === st.subscription &&
      memo.retainEpoch === retainEpoch &&
      (kind !== 'virtualHost' || memo.routeConfigurations === routeConfigurations)
    ) {
      desired = memo.desired;
    } else {
      desired = this.#computeDesired(kind, retain, false);
      this.#desiredMemo.set(kind, { all, routeConfigurations, subscription: st.subscription, retainEpoch, desired });
    }
    if (xdsSelfCheck.enabled) this.#checkDesired(kind, desired, retain);
    return desired;
  }

  #checkDesired(kind: ResourceKind, desired: ReadonlyMap<string, XdsResource>, retain: boolean): void {
    const fresh = this.#computeDesired(kind, retain, true);
    const same = fresh.size === desired.size && [...fresh].every(([n, r]) => desired.get(n) === r);
    if (!same) xdsSelfCheck.fail(`stream ${this.id} ${kind}: memoised desired resources differ from a recomputation`);
  }

  /** Resources of the snapshot's map that are not subscribed by name: kept up to date from the names changed. */
  #unsubscribedCount(kind: ResourceKind, all: ResourceMap, names: ReadonlySet<string>, subscription: number, fromScratch: boolean): number {
    const memo = fromScratch ? undefined : this.#unsubscribedMemo.get(kind);
    let count: number | undefined;
    if (memo && memo.subscription === subscription) {
      const changed = changedNamesBetween(memo.all, all);
      if (changed) {
        count = memo.count;
        for (const n of changed) {
          if (names.has(n)) continue;
          if (memo.all.has(n)) count -= 1;
          if (all.has(n)) count += 1;
        }
      }
    }
    if (count === undefined) {
      count = 0;
      for (const n of all.keys()) if (!names.has(n)) count += 1;
      if (fromScratch) return count;
    }
    this.#unsubscribedMemo.set(kind, { all, subscription, count });
    return count;
  }

  /** `fromScratch`: use no memo (the self-check's reference answer). */
  #computeDesired(kind: ResourceKind, retain: boolean, fromScratch: boolean): ReadonlyMap<string, XdsResource> {
    const snapshot = this.snapshot!;
    const all = snapshot.resources[kind];
    const st = this.state(kind);
    if (kind === 'virtualHost' && !st.wildcard) return this.#desiredVirtualHosts(all, st.names);
    const everything =
      st.wildcard || (st.names.size >= all.size && this.#unsubscribedCount(kind, all, st.names, st.subscription, fromScratch) === 0);
    // The usual case (wildcard CDS/LDS; EDS/RDS/SDS subscribed to every name): the snapshot's map itself.
    // A retained cluster keeps its endpoints too: removing them would empty a cluster routes still use.
    const clusters = snapshot.resources.cluster;
    const retained = retain
      ? [...this.clientClusters].filter((n) => !all.has(n) && (kind === 'cluster' || (!clusters.has(n) && (st.wildcard || st.names.has(n)))))
      : [];
    if (everything && retained.length === 0) return all;
    const out = new Map<string, XdsResource>();
    if (everything) for (const [n, r] of all) out.set(n, r);
    else {
      for (const n of st.names) {
        const r = all.get(n);
        if (r) out.set(n, r);
      }
    }
    // Make before break: keep clusters Envoy still has until routes that stop using them are ACKed.
    for (const n of retained) {
      const r = kind === 'cluster' ? this.retainedCluster(n) : this.lastSentEndpoints.get(n);
      if (r) out.set(n, r);
    }
    return out;
  }

  /**
   * VHDS subscriptions name route configurations (Envoy subscribes to each one's namespace, `<name>/...`), or
   * single virtual hosts by full name (on demand). Usually every route configuration is subscribed: then the
   * snapshot's own map, so changes are found from its lineage like for the other kinds.
   */
  #desiredVirtualHosts(all: ResourceMap, names: ReadonlySet<string>): ReadonlyMap<string, XdsResource> {
    let everything = true;
    for (const name of this.snapshot!.resources.routeConfiguration.keys()) {
      if (!names.has(name)) {
        everything = false;
        break;
      }
    }
    if (everything) return all;
    const out = new Map<string, XdsResource>();
    for (const [name, resource] of all) {
      if (names.has(name) || names.has(routeConfigurationOf(name))) out.set(name, resource);
    }
    return out;
  }

  /** The last cluster resource sent to this stream under that name (kept to retain removed clusters). */
  protected readonly lastSentClusters = new Map<string, XdsResource>();
  /** The endpoints of each retained cluster (its ClusterLoadAssignment in the last snapshot that had it). */
  protected readonly lastSentEndpoints = new Map<string, XdsResource>();

  private retainedCluster(name: string): XdsResource | undefined {
    return this.lastSentClusters.get(name);
  }

  /** Listeners and routes are ACKed and nothing newer is waiting to be sent for them. */
  protected routesSettled(): boolean {
    for (const kind of routingKinds) {
      const st = this.state(kind);
      if (!st.requested) continue;
      if (st.pendingNonce !== undefined || this.hasWork(kind)) return false;
    }
    return true;
  }

  /**
   * Clusters sent (added or changed) whose endpoints Envoy has not ACKed since: they are warming, and a route
   * naming one must wait. Endpoint updates of clusters that are not warming do not hold routes back, so a route
   * change is not delayed by endpoint churn elsewhere.
   */
  protected readonly warming = new Set<string>();

  /** Is this type busy: a response awaiting ACK, or something left to send? */
  private busy(kind: ResourceKind): boolean {
    const st = this.state(kind);
    return st.requested && (st.pendingNonce !== undefined || this.hasWork(kind));
  }

  private canSend(kind: ResourceKind): boolean {
    const st = this.state(kind);
    if (!st.requested || st.pendingNonce !== undefined) return false;
    if (!routingKinds.has(kind)) return true;
    // Listeners and routes come after the clusters they name, and after those clusters' endpoints.
    if (this.busy('cluster')) return false;
    if (!this.busy('clusterLoadAssignment')) {
      this.warming.clear();
      return true;
    }
    return this.warming.size === 0;
  }

  /** Send whatever may be sent now, in push order. */
  pump(): void {
    if (!this.snapshot || this.closed) return;
    for (const kind of pushOrder) {
      if (!this.canSend(kind)) continue;
      const response = this.buildResponse(kind);
      if (!response) continue;
      const st = this.state(kind);
      st.pendingNonce = response.nonce;
      st.force = false;
      this.inFlight.set(response.nonce, response);
      if (kind === 'cluster') {
        for (const name of response.resourceNames) {
          this.clientClusters.add(name);
          const r = this.snapshot.resources.cluster.get(name);
          if (r) this.lastSentClusters.set(name, r);
        }
        for (const name of response.removedNames) {
          this.clientClusters.delete(name);
          this.lastSentClusters.delete(name);
          this.lastSentEndpoints.delete(name);
        }
        // A cluster that was added or changed warms until its endpoints arrive: send EDS again after it.
        if (response.resourceNames.length > 0) this.state('clusterLoadAssignment').force = true;
        for (const name of response.resourceNames) this.warming.add(name);
      }

      this.epoch += 1;
      this.sent.push(response);
      if (this.sent.length > 50) this.sent.shift();
      this.hooks.onPush?.(response);
    }
  }

  /** Called with the nonce Envoy answered; returns the response it refers to, if it is the pending one. */
  protected settle(kind: ResourceKind, nonce: string, error: { message: string } | undefined): SentResponse | undefined {
    const st = this.state(kind);
    if (nonce === '' || st.pendingNonce !== nonce) return undefined;
    const response = this.inFlight.get(nonce);
    this.inFlight.delete(nonce);
    st.pendingNonce = undefined;
    if (!response) return undefined;
    const event: AckEvent = {
      streamId: this.id,
      node: this.node,
      kind,
      version: response.version,
      resourceNames: response.resourceNames,
      resourceVersions: response.resourceVersions,
      removedNames: response.removedNames,
    };
    if (kind === 'clusterLoadAssignment' && !error) for (const name of response.resourceNames) this.warming.delete(name);
    if (error) {
      st.lastNack = { version: response.version, message: error.message, at: Date.now() };
      this.hooks.onNack({ ...event, message: error.message });
    } else {
      st.ackedVersion = response.version;
      this.hooks.onAck(event);
      const embedded = response.embedded;
      if (embedded !== undefined) this.hooks.onAck({ ...event, ...embedded, version: '', removedNames: [] });
    }
    return response;
  }

  /** Is there something to send for this kind (ignoring whether it may be sent now)? */
  protected abstract hasWork(kind: ResourceKind): boolean;
  /** Build (and write) the response for this kind, or return undefined when there is nothing to send. */
  protected abstract buildResponse(kind: ResourceKind): SentResponse | undefined;

  close(): void {
    this.closed = true;
  }
}
