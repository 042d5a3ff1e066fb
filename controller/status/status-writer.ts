// Writes Ingress status.loadBalancer.ingress: our addresses on the Ingresses Envoy serves, nothing on those it
// stopped serving (only where the status is ours). The writes go through the generic status queue
// (status-queue.ts: leader-only, coalescing, conflict retry, backoff per Ingress); this file says what an
// Ingress's status should be and how it is read and written.
import { NetworkingV1Api, type KubeConfig, type V1Ingress } from '@kubernetes/client-node';
import { normalizeObject } from '../sources/normalize.js';
import type { ObjectStore, StoreChange } from '../store.js';
import type { Ingress, LoadBalancerIngress, ObjectRef } from '../translate/shared/kube-objects.js';
import { addressesKey } from './published-addresses.js';
import { StatusQueue, type StatusQueueStats, statusCodeOf } from './status-queue.js';
import { namespaceOf } from '../translate/shared/kinds.js';

export interface StatusLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface StatusWriterOptions {
  kubeConfig: KubeConfig;
  store: ObjectStore;
  /** Only the leader writes; when this turns true, call resync(). */
  isLeader: () => boolean;
  log: StatusLog;
  /** Writes in flight at once, over all Ingresses (default 2). */
  maxInFlight?: number;
  /** Retry delay after a failed write: doubles from min to max per Ingress (defaults 1 s and 60 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Immediate re-read-and-retry rounds after a 409 Conflict before backing off (default 3). */
  maxConflictRetries?: number;
}

export type StatusWriterStats = StatusQueueStats;


/**
 * The object our last status write returned, and the resourceVersions our writes replaced: while the store still
 * holds one of those, its copy is older than our own write (the watch event has not arrived yet), so it must
 * neither cause a second write nor be the base of the next one (that would only earn a 409).
 */
interface Written {
  replacedVersions: string[];
  object: Ingress;
}

/** Replaced versions remembered per Ingress (a burst of writes faster than the watch). */
const rememberedVersions = 4;

/** Address lists we published earlier: an unserved Ingress still carrying one of them is cleared. */
const rememberedAddressLists = 8;

export class StatusWriter {
  readonly #api: NetworkingV1Api;
  readonly #queue: StatusQueue<Ingress>;
  #published = false;
  #served = new Set<string>();
  #addresses: readonly LoadBalancerIngress[] = [];
  /** Keys (addressesKey) of address lists this process has published, newest last. */
  readonly #ours: string[] = [];
  readonly #written = new Map<string, Written>();
  readonly #onStoreChange = (changes: StoreChange[]): void => {
    if (!this.#published || !this.options.isLeader()) return;
    for (const c of changes) {
      if (c.kind !== 'Ingress') continue;
      const key = `${c.namespace}/${c.name}`;
      if (c.type === 'deleted') this.#forget(key);
      else this.#queue.enqueue(key);
    }
  };

  constructor(private readonly options: StatusWriterOptions) {
    this.#api = options.kubeConfig.makeApiClient(NetworkingV1Api);
    this.#queue = new StatusQueue<Ingress>(
      {
        kind: 'Ingress',
        logField: 'ingress',
        latest: (key) => this.#latest(key),
        desired: (key, obj) => this.#desired(key, obj),
        write: (key, obj, body) => this.#write(key, obj, body),
        read: (key) => this.#read(key),
      },
      options,
    );
    // Someone else overwriting our status (or an Ingress appearing) is corrected without waiting for a build.
    options.store.on('change', this.#onStoreChange);
  }

  get stats(): StatusWriterStats {
    return this.#queue.stats;
  }

  /**
   * The Ingresses Envoy now serves (from an applied generation) and the addresses to show on them. Returns at
   * once; writes happen in the background.
   */
  publish(served: readonly ObjectRef[], addresses: readonly LoadBalancerIngress[]): void {
    this.#published = true;
    this.#served = new Set(served.filter((r) => r.kind === 'Ingress').map((r) => `${r.namespace}/${r.name}`));
    this.#addresses = addresses.map((a) => ({ ...a }));
    const key = addressesKey(addresses);
    if (key !== '') {
      const at = this.#ours.indexOf(key);
      if (at >= 0) this.#ours.splice(at, 1);
      this.#ours.push(key);
      if (this.#ours.length > rememberedAddressLists) this.#ours.shift();
    }
    this.resync();
  }

  /** Compare every Ingress with the wanted status again (after becoming leader, or to repair drift). */
  resync(): void {
    if (!this.#published || !this.options.isLeader()) return;
    for (const obj of this.options.store.list('Ingress')) this.#queue.enqueue(`${namespaceOf(obj.metadata)}/${obj.metadata.name}`);
  }

  /** Resolves when nothing is queued or being written (retries waiting for their backoff do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Ingresses waiting for a retry after a failed write. */
  get pendingRetries(): number {
    return this.#queue.pendingRetries;
  }

  stop(): void {
    this.options.store.off('change', this.#onStoreChange);
    this.#queue.stop();
  }

  #forget(key: string): void {
    this.#written.delete(key);
    this.#queue.forget(key);
  }

  /** The newest copy we know: the store's, or the one our last write returned if the store lags behind it. */
  #latest(key: string): Ingress | undefined {
    const stored = this.#ingress(key);
    if (!stored) return undefined;
    const written = this.#written.get(key);
    if (written) {
      const version = stored.metadata.resourceVersion;
      if (version !== undefined && written.replacedVersions.includes(version)) return written.object;
      this.#written.delete(key); // the store has caught up (or someone else wrote): trust it again
    }
    return stored;
  }

  /** What status.loadBalancer.ingress should be, or undefined when it is not ours to change. */
  #wanted(key: string, current: readonly LoadBalancerIngress[]): readonly LoadBalancerIngress[] | undefined {
    if (this.#served.has(key)) return this.#addresses;
    if (current.length > 0 && this.#ours.includes(addressesKey(current))) return [];
    return undefined;
  }

  /** The Ingress with the wanted addresses, or undefined when it has them or they are not ours to change. */
  #desired(key: string, obj: Ingress): Ingress | undefined {
    const current = statusOf(obj);
    const wanted = this.#wanted(key, current);
    if (wanted === undefined || addressesKey(wanted) === addressesKey(current)) return undefined;
    // The whole object goes back (a status PUT may otherwise drop labels); the API server ignores spec here.
    return { ...obj, status: { ...obj.status, loadBalancer: { ...obj.status?.loadBalancer, ingress: wanted.map((a) => ({ ...a })) } } };
  }

  #ingress(key: string): Ingress | undefined {
    const slash = key.indexOf('/');
    const obj = this.options.store.get('Ingress', key.slice(0, slash), key.slice(slash + 1));
    return obj?.kind === 'Ingress' ? obj : undefined;
  }

  async #write(key: string, obj: Ingress, body: Ingress): Promise<void> {
    const result = await this.#api.replaceNamespacedIngressStatus({
      namespace: namespaceOf(obj.metadata),
      name: obj.metadata.name,
      body: body as unknown as V1Ingress,
      fieldManager: 'envoy-ingress',
    });
    this.#remember(key, obj, result);
    const wanted = statusOf(body);
    this.options.log.info({ ingress: key, addresses: wanted.map((a) => a.ip ?? a.hostname) }, wanted.length > 0 ? 'published Ingress address' : 'cleared Ingress address');
  }

  #remember(key: string, base: Ingress, result: V1Ingress): void {
    const normalized = normalizeObject({ ...result, kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' });
    if (!normalized.ok || normalized.object.kind !== 'Ingress' || !base.metadata.resourceVersion) {
      this.#written.delete(key);
      return;
    }
    const replaced = [...(this.#written.get(key)?.replacedVersions ?? []), base.metadata.resourceVersion].slice(-rememberedVersions);
    this.#written.set(key, { replacedVersions: replaced, object: normalized.object });
  }

  async #read(key: string): Promise<Ingress | undefined> {
    const slash = key.indexOf('/');
    try {
      const fresh = await this.#api.readNamespacedIngress({ namespace: key.slice(0, slash), name: key.slice(slash + 1) });
      const normalized = normalizeObject({ ...fresh, kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' });
      return normalized.ok && normalized.object.kind === 'Ingress' ? normalized.object : undefined;
    } catch (err: unknown) {
      if (statusCodeOf(err) === 404) return undefined;
      throw err;
    }
  }
}

function statusOf(obj: Ingress): readonly LoadBalancerIngress[] {
  return obj.status?.loadBalancer?.ingress ?? [];
}
