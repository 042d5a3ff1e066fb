// Writes Ingress status.loadBalancer.ingress: our addresses on the Ingresses Envoy serves, nothing on those it
// stopped serving (only where the status is ours). Level-triggered like a controller work queue: each dirty
// Ingress is compared with the wanted state when its turn comes, so repeated publishes coalesce. At most one
// write per Ingress is in flight and a few overall; failures back off per Ingress and never reach the caller.
import { NetworkingV1Api, type KubeConfig, type V1Ingress } from '@kubernetes/client-node';
import { normalizeObject } from '../sources/normalize.js';
import type { ObjectStore, StoreChange } from '../store.js';
import type { Ingress, LoadBalancerIngress, ObjectRef } from '../translate/shared/kube-objects.js';
import { addressesKey } from './published-addresses.js';
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

export interface StatusWriterStats {
  /** Successful status updates. */
  writes: number;
  /** 409 Conflict answers (each followed by a re-read). */
  conflicts: number;
  /** Failed attempts that were scheduled for a retry. */
  failures: number;
}

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
  readonly stats: StatusWriterStats = { writes: 0, conflicts: 0, failures: 0 };
  readonly #api: NetworkingV1Api;
  #published = false;
  #served = new Set<string>();
  #addresses: readonly LoadBalancerIngress[] = [];
  /** Keys (addressesKey) of address lists this process has published, newest last. */
  readonly #ours: string[] = [];
  readonly #written = new Map<string, Written>();
  /** Queue order; a key is in at most once. */
  readonly #queue = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  readonly #failures = new Map<string, number>();
  #idle: (() => void)[] = [];
  #stopped = false;
  readonly #onStoreChange = (changes: StoreChange[]): void => {
    if (!this.#published || !this.options.isLeader()) return;
    for (const c of changes) {
      if (c.kind !== 'Ingress') continue;
      const key = `${c.namespace}/${c.name}`;
      if (c.type === 'deleted') this.#forget(key);
      else if (this.#needsWrite(key)) this.#enqueue(key);
    }
  };

  constructor(private readonly options: StatusWriterOptions) {
    this.#api = options.kubeConfig.makeApiClient(NetworkingV1Api);
    // Someone else overwriting our status (or an Ingress appearing) is corrected without waiting for a build.
    options.store.on('change', this.#onStoreChange);
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
    if (!this.#published || this.#stopped || !this.options.isLeader()) return;
    for (const obj of this.options.store.list('Ingress')) {
      const key = `${namespaceOf(obj.metadata)}/${obj.metadata.name}`;
      if (this.#needsWrite(key)) this.#enqueue(key);
    }
  }

  /** Resolves when nothing is queued or being written (retries waiting for their backoff do not count). */
  idle(): Promise<void> {
    if (this.#queue.size === 0 && this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Ingresses waiting for a retry after a failed write. */
  get pendingRetries(): number {
    return this.#retryTimers.size;
  }

  stop(): void {
    this.#stopped = true;
    this.options.store.off('change', this.#onStoreChange);
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    this.#queue.clear();
    this.#settleIdle();
  }

  #forget(key: string): void {
    this.#written.delete(key);
    this.#failures.delete(key);
    const timer = this.#retryTimers.get(key);
    if (timer) clearTimeout(timer);
    this.#retryTimers.delete(key);
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

  #needsWrite(key: string): boolean {
    const obj = this.#latest(key);
    if (!obj) return false;
    const current = statusOf(obj);
    const wanted = this.#wanted(key, current);
    return wanted !== undefined && addressesKey(wanted) !== addressesKey(current);
  }

  #ingress(key: string): Ingress | undefined {
    const slash = key.indexOf('/');
    const obj = this.options.store.get('Ingress', key.slice(0, slash), key.slice(slash + 1));
    return obj?.kind === 'Ingress' ? obj : undefined;
  }

  #enqueue(key: string): void {
    if (this.#stopped || this.#retryTimers.has(key)) return; // a failing Ingress waits for its backoff
    this.#queue.add(key);
    this.#drain();
  }

  #drain(): void {
    const max = this.options.maxInFlight ?? 2;
    for (const key of this.#queue) {
      if (this.#inFlight.size >= max) break;
      if (this.#inFlight.has(key)) continue; // one write per Ingress: it runs again when the current one ends
      this.#queue.delete(key);
      this.#inFlight.add(key);
      void this.#sync(key).then(
        () => this.#done(key, undefined),
        (err: unknown) => this.#done(key, err),
      );
    }
    this.#settleIdle();
  }

  #done(key: string, err: unknown): void {
    this.#inFlight.delete(key);
    if (err === undefined) {
      this.#failures.delete(key);
    } else if (!this.#stopped) {
      this.stats.failures += 1;
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      const min = this.options.minBackoffMs ?? 1000;
      const delay = Math.min(min * 2 ** (failures - 1), this.options.maxBackoffMs ?? 60_000);
      this.options.log.warn({ ingress: key, err: describeError(err), retryInMs: delay }, 'could not update Ingress status; will retry');
      this.#queue.delete(key);
      const timer = setTimeout(() => {
        this.#retryTimers.delete(key);
        if (this.#needsWrite(key)) this.#enqueue(key);
      }, delay);
      timer.unref();
      this.#retryTimers.set(key, timer);
    }
    this.#drain();
  }

  #settleIdle(): void {
    if (this.#queue.size > 0 || this.#inFlight.size > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Brings one Ingress's status to the wanted value; throws to ask for a retry with backoff. */
  async #sync(key: string): Promise<void> {
    let obj = this.#latest(key);
    const maxConflicts = this.options.maxConflictRetries ?? 3;
    for (let conflicts = 0; ; ) {
      if (!obj || this.#stopped || !this.options.isLeader()) return;
      const current = statusOf(obj);
      const wanted = this.#wanted(key, current);
      if (wanted === undefined || addressesKey(wanted) === addressesKey(current)) return;
      // The whole object goes back (a status PUT may otherwise drop labels); the API server ignores spec here.
      const body = { ...obj, status: { ...obj.status, loadBalancer: { ...obj.status?.loadBalancer, ingress: wanted.map((a) => ({ ...a })) } } };
      const namespace = namespaceOf(obj.metadata);
      const name = obj.metadata.name;
      try {
        const result = await this.#api.replaceNamespacedIngressStatus({
          namespace,
          name,
          body: body as unknown as V1Ingress,
          fieldManager: 'envoy-ingress',
        });
        this.stats.writes += 1;
        this.#remember(key, obj, result);
        this.options.log.info(
          { ingress: key, addresses: wanted.map((a) => a.ip ?? a.hostname) },
          wanted.length > 0 ? 'published Ingress address' : 'cleared Ingress address',
        );
        return;
      } catch (err: unknown) {
        const code = statusCodeOf(err);
        if (code === 404) return; // deleted meanwhile: the store will drop it
        if (code !== 409) throw err;
        this.stats.conflicts += 1;
        conflicts += 1;
        if (conflicts > maxConflicts) throw err;
        this.options.log.debug({ ingress: key, attempt: conflicts }, 'Ingress changed while writing its status; re-reading');
        obj = await this.#read(namespace, name);
      }
    }
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

  async #read(namespace: string, name: string): Promise<Ingress | undefined> {
    try {
      const fresh = await this.#api.readNamespacedIngress({ namespace, name });
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

/** HTTP status of a client-node ApiException (or undefined for network errors). */
export function statusCodeOf(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'number') return err.code;
  return undefined;
}

function describeError(err: unknown): string {
  const code = statusCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = message.split('\n')[0] ?? message;
  return code === undefined ? firstLine : `HTTP ${code}: ${firstLine.slice(0, 300)}`;
}
