// Leader election on a coordination.k8s.io/v1 Lease, so only one replica writes status and manages Ingresses.
// A candidate takes the Lease when it is free or expired (renewTime + leaseDurationSeconds < now) and the
// leader renews it every retry period. Leadership is bounded by the renew deadline, counted from the renewTime
// the leader last wrote: a leader that cannot renew in time (partitioned, API server down) stops leading before
// any other candidate may consider the Lease expired, because renewDeadline < leaseDuration. Every write is
// guarded by the resourceVersion read before it (optimistic concurrency); a 409 means someone else wrote, so the
// Lease is read again and the decision made afresh.
import { EventEmitter } from 'node:events';
import {
  ApiException,
  CoordinationV1Api,
  V1MicroTime,
  Observable,
  type ConfigurationOptions,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';

/** The Lease fields leader election reads and writes; times are milliseconds since the epoch. */
export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: number;
  renewTime?: number;
  leaseTransitions?: number;
}

/** A Lease as read from the API: its record and the resourceVersion a write must be based on. */
export interface StoredLease {
  resourceVersion: string;
  record: LeaseRecord;
}

/** Reads and writes one Lease. Writes throw LeaseConflictError when the resourceVersion is stale (HTTP 409). */
export interface LeaseClient {
  /** The Lease, or undefined when it does not exist. */
  read(): Promise<StoredLease | undefined>;
  create(record: LeaseRecord): Promise<StoredLease>;
  /** Replaces the Lease's spec if its resourceVersion is still `resourceVersion`. */
  replace(record: LeaseRecord, resourceVersion: string): Promise<StoredLease>;
}

export class LeaseConflictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LeaseConflictError';
  }
}

/** Time and timers, injectable so unit tests can drive the elector with a fake clock. */
export interface ElectionClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: ElectionClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ElectionLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

export interface LeaderElectorOptions {
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This candidate's identity (unique per replica, e.g. the pod name). */
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineSeconds?: number;
  retryPeriodSeconds?: number;
  log?: ElectionLog;
  clock?: ElectionClock;
}

export type StoppedLeadingReason = 'renew-deadline-exceeded' | 'lost-lease' | 'stopped';

export interface LeaderElectorEvents {
  'started-leading': [];
  'stopped-leading': [reason: StoppedLeadingReason];
}

const silentLog: ElectionLog = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** True when nobody holds the record, or its holder has not renewed within its lease duration. */
export function isLeaseFree(record: LeaseRecord | undefined, now: number, defaultLeaseDurationSeconds: number): boolean {
  if (!record?.holderIdentity) return true;
  if (record.renewTime === undefined) return true; // a holder that never renewed cannot be judged alive
  const durationMs = (record.leaseDurationSeconds ?? defaultLeaseDurationSeconds) * 1000;
  return record.renewTime + durationMs < now;
}

/**
 * The record `identity` should write to acquire or renew the Lease, or undefined when another holder's lease
 * is still valid. Acquiring from anyone else (including nobody) counts one more transition; renewing keeps the
 * acquireTime and the count. Pure.
 */
export function claimLease(
  current: LeaseRecord | undefined,
  identity: string,
  now: number,
  leaseDurationSeconds: number,
): LeaseRecord | undefined {
  if (current === undefined) {
    return { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 };
  }
  const renewing = current.holderIdentity === identity;
  if (!renewing && !isLeaseFree(current, now, leaseDurationSeconds)) return undefined;
  const transitions = current.leaseTransitions ?? 0;
  return {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: renewing && current.acquireTime !== undefined ? current.acquireTime : now,
    renewTime: now,
    leaseTransitions: renewing ? transitions : transitions + 1,
  };
}

/**
 * The record that gives the Lease up: no holder, so the next candidate takes it at once (as client-go does, the
 * duration drops to 1 s for candidates that only look at the time).
 */
export function releasedLease(current: LeaseRecord, now: number): LeaseRecord {
  const released: LeaseRecord = { leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
  if (current.leaseTransitions !== undefined) released.leaseTransitions = current.leaseTransitions;
  return released;
}

export class LeaderElector extends EventEmitter<LeaderElectorEvents> {
  readonly #client: LeaseClient;
  readonly #identity: string;
  readonly #leaseDurationSeconds: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #log: ElectionLog;
  readonly #clock: ElectionClock;
  readonly #lease: string;

  #running = false;
  #leading = false;
  /** The renewTime of the last successful write as holder: leadership lasts until this + renewDeadline. */
  #renewedAt = 0;
  /** The Lease as last read or written: renewals write on top of it without reading first. */
  #observed: StoredLease | undefined;
  #attemptTimer: unknown;
  #deadlineTimer: unknown;
  #attempt: Promise<void> | undefined;
  #lastHolder: string | undefined;

  constructor(client: LeaseClient, options: LeaderElectorOptions) {
    super();
    const leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    const renewDeadlineSeconds = options.renewDeadlineSeconds ?? 10;
    const retryPeriodSeconds = options.retryPeriodSeconds ?? 2;
    if (!(renewDeadlineSeconds < leaseDurationSeconds)) {
      throw new Error(`renewDeadlineSeconds (${renewDeadlineSeconds}) must be less than leaseDurationSeconds (${leaseDurationSeconds})`);
    }
    if (!(retryPeriodSeconds > 0 && retryPeriodSeconds < renewDeadlineSeconds)) {
      throw new Error(`retryPeriodSeconds (${retryPeriodSeconds}) must be positive and less than renewDeadlineSeconds (${renewDeadlineSeconds})`);
    }
    if (!options.identity) throw new Error('leader election needs a non-empty identity');
    this.#client = client;
    this.#identity = options.identity;
    this.#leaseDurationSeconds = leaseDurationSeconds;
    this.#renewDeadlineMs = renewDeadlineSeconds * 1000;
    this.#retryPeriodMs = retryPeriodSeconds * 1000;
    this.#log = options.log ?? silentLog;
    this.#clock = options.clock ?? systemClock;
    this.#lease = `${options.namespace}/${options.name}`;
  }

  get identity(): string {
    return this.#identity;
  }

  /** Whether this replica may act as leader now (checked against the clock, not only the last timer). */
  isLeader(): boolean {
    return this.#leading && this.#clock.now() < this.#renewedAt + this.#renewDeadlineMs;
  }

  /** Starts campaigning: the first attempt runs at once, then one every retry period. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /**
   * Stops campaigning and renewing; emits 'stopped-leading' if this replica led. With `release`, the Lease is
   * then written with no holder so a successor takes over at once (for a graceful shutdown). Without it the
   * Lease simply expires, as if this process had died.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    const wasRunning = this.#running;
    this.#running = false;
    this.#clock.clearTimeout(this.#attemptTimer);
    // An attempt in flight may still write the Lease; let it finish so a release is not raced by it.
    await this.#attempt;
    if (this.#leading) this.#stopLeading('stopped');
    if (options.release && wasRunning) await this.#release();
  }

  #schedule(delayMs: number): void {
    this.#clock.clearTimeout(this.#attemptTimer);
    this.#attemptTimer = this.#clock.setTimeout(() => {
      this.#attempt = this.#tryAcquireOrRenew().finally(() => {
        this.#attempt = undefined;
        if (this.#running) this.#schedule(this.#retryPeriodMs);
      });
    }, delayMs);
  }

  async #tryAcquireOrRenew(): Promise<void> {
    const startedAt = this.#clock.now();
    let written: StoredLease | undefined;
    try {
      written = await this.#writeClaim(startedAt);
    } catch (error) {
      this.#log.warn({ lease: this.#lease, identity: this.#identity, err: describeError(error) }, 'could not acquire or renew the lease');
      return; // the deadline timer ends leadership if renewals keep failing
    }
    if (!this.#running) return;
    if (written === undefined) {
      if (this.#leading) this.#stopLeading('lost-lease');
      return;
    }
    // A write that took longer than the renew deadline cannot extend leadership: others may already consider
    // a lease renewed at `startedAt` expired by the time they could act.
    if (this.#clock.now() >= startedAt + this.#renewDeadlineMs) {
      this.#log.warn({ lease: this.#lease, tookMs: this.#clock.now() - startedAt }, 'lease write succeeded too late to count');
      return;
    }
    this.#renewedAt = startedAt;
    this.#armDeadline();
    if (!this.#leading) {
      this.#leading = true;
      this.#log.info({ lease: this.#lease, identity: this.#identity }, 'started leading');
      this.emit('started-leading');
    }
  }

  /** Writes a claim on the Lease; resolves with what was written, or undefined if another holder has it. */
  async #writeClaim(now: number): Promise<StoredLease | undefined> {
    // A leader renews on top of what it last wrote; a 409 (or a candidate) reads first.
    let current = this.#leading ? this.#observed : await this.#read();
    for (let attempt = 0; ; attempt++) {
      const next = claimLease(current?.record, this.#identity, now, this.#leaseDurationSeconds);
      if (next === undefined) return undefined;
      try {
        this.#observed = current ? await this.#client.replace(next, current.resourceVersion) : await this.#client.create(next);
        return this.#observed;
      } catch (error) {
        if (!(error instanceof LeaseConflictError) || attempt >= 1) throw error;
        this.#log.debug({ lease: this.#lease }, 'lease changed since it was read; reading it again');
        current = await this.#read();
      }
    }
  }

  async #read(): Promise<StoredLease | undefined> {
    const lease = await this.#client.read();
    this.#observed = lease;
    const holder = lease?.record.holderIdentity || undefined;
    if (holder !== this.#lastHolder) {
      this.#lastHolder = holder;
      this.#log.debug({ lease: this.#lease, holder }, 'lease holder observed');
    }
    return lease;
  }

  #armDeadline(): void {
    this.#clock.clearTimeout(this.#deadlineTimer);
    const remaining = this.#renewedAt + this.#renewDeadlineMs - this.#clock.now();
    this.#deadlineTimer = this.#clock.setTimeout(() => {
      if (this.#leading) this.#stopLeading('renew-deadline-exceeded');
    }, Math.max(0, remaining));
  }

  #stopLeading(reason: StoppedLeadingReason): void {
    this.#leading = false;
    this.#clock.clearTimeout(this.#deadlineTimer);
    this.#log.info({ lease: this.#lease, identity: this.#identity, reason }, 'stopped leading');
    this.emit('stopped-leading', reason);
  }

  /** Gives the Lease up if this replica still holds it; failures are logged (the Lease then just expires). */
  async #release(): Promise<void> {
    try {
      let current = this.#observed;
      for (let attempt = 0; ; attempt++) {
        if (current?.record.holderIdentity !== this.#identity) return;
        try {
          this.#observed = await this.#client.replace(releasedLease(current.record, this.#clock.now()), current.resourceVersion);
          this.#log.info({ lease: this.#lease, identity: this.#identity }, 'released the lease');
          return;
        } catch (error) {
          if (!(error instanceof LeaseConflictError) || attempt >= 1) throw error;
          current = await this.#read();
        }
      }
    } catch (error) {
      this.#log.warn({ lease: this.#lease, err: describeError(error) }, 'could not release the lease; it will expire');
    }
  }
}

/** A LeaseClient for a real API server. Each request is aborted after `timeoutMs` so a hung call cannot stall. */
export function createLeaseClient(kubeConfig: KubeConfig, lease: { namespace: string; name: string; timeoutMs: number }): LeaseClient {
  const api = kubeConfig.makeApiClient(CoordinationV1Api);
  const { namespace, name } = lease;
  const options = () => requestTimeoutOptions(lease.timeoutMs);
  const conflict = (error: unknown, verb: string): unknown =>
    error instanceof ApiException && error.code === 409
      ? new LeaseConflictError(`${verb} lease ${namespace}/${name}: conflict`, { cause: error })
      : error;
  return {
    async read() {
      try {
        return storedLease(await api.readNamespacedLease({ namespace, name }, options()));
      } catch (error) {
        if (error instanceof ApiException && error.code === 404) return undefined;
        throw error;
      }
    },
    async create(record) {
      const body: V1Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { namespace, name }, spec: leaseSpec(record) };
      try {
        return storedLease(await api.createNamespacedLease({ namespace, body }, options()));
      } catch (error) {
        throw conflict(error, 'create');
      }
    },
    async replace(record, resourceVersion) {
      const body: V1Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { namespace, name, resourceVersion },
        spec: leaseSpec(record),
      };
      try {
        return storedLease(await api.replaceNamespacedLease({ namespace, name, body }, options()));
      } catch (error) {
        throw conflict(error, 'replace');
      }
    },
  };
}

/**
 * Per-call options for the generated API clients that abort the request after `timeoutMs`: without a timeout
 * a call to an unreachable API server can hang far longer than any lease. (Also used by the Ingress manager.)
 */
export function requestTimeoutOptions(timeoutMs: number): ConfigurationOptions {
  return {
    middleware: [
      {
        pre: (context) => {
          context.setSignal(AbortSignal.timeout(timeoutMs));
          return new Observable(Promise.resolve(context));
        },
        post: (context) => new Observable(Promise.resolve(context)),
      },
    ],
    // Keep the middleware KubeConfig installed (authentication, TLS).
    middlewareMergeStrategy: 'append',
  };
}

function leaseSpec(record: LeaseRecord): NonNullable<V1Lease['spec']> {
  const spec: NonNullable<V1Lease['spec']> = {};
  if (record.holderIdentity) spec.holderIdentity = record.holderIdentity;
  if (record.leaseDurationSeconds !== undefined) spec.leaseDurationSeconds = record.leaseDurationSeconds;
  // MicroTime: the API server wants exactly six fractional digits, which V1MicroTime prints.
  if (record.acquireTime !== undefined) spec.acquireTime = new V1MicroTime(record.acquireTime);
  if (record.renewTime !== undefined) spec.renewTime = new V1MicroTime(record.renewTime);
  if (record.leaseTransitions !== undefined) spec.leaseTransitions = record.leaseTransitions;
  return spec;
}

function storedLease(lease: V1Lease): StoredLease {
  const spec = lease.spec ?? {};
  const record: LeaseRecord = {};
  if (spec.holderIdentity) record.holderIdentity = spec.holderIdentity;
  if (spec.leaseDurationSeconds !== undefined) record.leaseDurationSeconds = spec.leaseDurationSeconds;
  const acquireTime = toMillis(spec.acquireTime);
  if (acquireTime !== undefined) record.acquireTime = acquireTime;
  const renewTime = toMillis(spec.renewTime);
  if (renewTime !== undefined) record.renewTime = renewTime;
  if (spec.leaseTransitions !== undefined) record.leaseTransitions = spec.leaseTransitions;
  return { resourceVersion: lease.metadata?.resourceVersion ?? '', record };
}

/** The client hands MicroTime fields back as strings (it has no deserializer for them), typed as Dates. */
function toMillis(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

function describeError(error: unknown): string {
  if (error instanceof ApiException) return `HTTP ${error.code}: ${String(error.message).split('\n')[0]}`;
  return error instanceof Error ? error.message : String(error);
}
