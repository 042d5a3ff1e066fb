// A work queue of status writes for objects of any kind (Ingress status today, per-parent route status next):
// level-triggered, so each queued key is compared with the wanted status when its turn comes and repeated requests
// coalesce. Only the leader writes. At most one write per key is in flight and a few overall; a 409 Conflict is
// re-read and retried at once a few times, other failures back off per key, and none reaches the caller.
// What "wanted" means and how the status subresource is written is the target's business (e.g. status-writer.ts).

export interface StatusQueueLog {
  warn(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
}

/** One kind's status: how to read an object, what its status should be, and how to write it. */
export interface StatusTarget<T> {
  /** The kind, for log messages ("could not update Ingress status"). */
  readonly kind: string;
  /** The field naming the key in log entries (`ingress`). */
  readonly logField: string;
  /** The newest copy known of the object (undefined: gone). */
  latest(key: string): T | undefined;
  /** What to write so that `obj`'s status is as wanted, or undefined when it already is or is not ours to change. */
  desired(key: string, obj: T): T | undefined;
  /** Writes `body` to the status subresource (`obj` is what it was made from); throws an API error on failure. */
  write(key: string, obj: T, body: T): Promise<void>;
  /** Reads the object again after a conflict (undefined: gone). */
  read(key: string): Promise<T | undefined>;
}

export interface StatusQueueOptions {
  /** Only the leader writes; when it becomes leader, enqueue what may need writing again. */
  isLeader: () => boolean;
  log: StatusQueueLog;
  /** Writes in flight at once, over all keys (default 2). */
  maxInFlight?: number;
  /** Retry delay after a failed write: doubles from min to max per key (defaults 1 s and 60 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Immediate re-read-and-retry rounds after a 409 Conflict before backing off (default 3). */
  maxConflictRetries?: number;
}

export interface StatusQueueStats {
  /** Successful status updates. */
  writes: number;
  /** 409 Conflict answers (each followed by a re-read). */
  conflicts: number;
  /** Failed attempts that were scheduled for a retry. */
  failures: number;
}

export class StatusQueue<T> {
  readonly stats: StatusQueueStats = { writes: 0, conflicts: 0, failures: 0 };
  /** Queue order; a key is in at most once. */
  readonly #queue = new Set<string>();
  readonly #inFlight = new Set<string>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  readonly #failures = new Map<string, number>();
  #idle: (() => void)[] = [];
  #stopped = false;

  constructor(
    private readonly target: StatusTarget<T>,
    private readonly options: StatusQueueOptions,
  ) {}

  /** Whether the object of `key` exists and its status is not as wanted. */
  needsWrite(key: string): boolean {
    const obj = this.target.latest(key);
    return obj !== undefined && this.target.desired(key, obj) !== undefined;
  }

  /** Queues `key` if its status needs writing (not while it waits for its backoff, nor unless leader). */
  enqueue(key: string): void {
    if (this.#stopped || !this.options.isLeader() || this.#retryTimers.has(key) || !this.needsWrite(key)) return;
    this.#queue.add(key);
    this.#drain();
  }

  /** Forgets a key's failures and pending retry (its object was deleted). */
  forget(key: string): void {
    this.#failures.delete(key);
    const timer = this.#retryTimers.get(key);
    if (timer) clearTimeout(timer);
    this.#retryTimers.delete(key);
  }

  /** Resolves when nothing is queued or being written (retries waiting for their backoff do not count). */
  idle(): Promise<void> {
    if (this.#queue.size === 0 && this.#inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Keys waiting for a retry after a failed write. */
  get pendingRetries(): number {
    return this.#retryTimers.size;
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    this.#queue.clear();
    this.#settleIdle();
  }

  #drain(): void {
    const max = this.options.maxInFlight ?? 2;
    for (const key of this.#queue) {
      if (this.#inFlight.size >= max) break;
      if (this.#inFlight.has(key)) continue; // one write per key: it runs again when the current one ends
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
      this.options.log.warn(
        { [this.target.logField]: key, err: describeError(err), retryInMs: delay },
        `could not update ${this.target.kind} status; will retry`,
      );
      this.#queue.delete(key);
      const timer = setTimeout(() => {
        this.#retryTimers.delete(key);
        this.enqueue(key);
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

  /** Brings one object's status to the wanted value; throws to ask for a retry with backoff. */
  async #sync(key: string): Promise<void> {
    let obj = this.target.latest(key);
    const maxConflicts = this.options.maxConflictRetries ?? 3;
    for (let conflicts = 0; ; ) {
      if (obj === undefined || this.#stopped || !this.options.isLeader()) return;
      const body = this.target.desired(key, obj);
      if (body === undefined) return;
      try {
        await this.target.write(key, obj, body);
        this.stats.writes += 1;
        return;
      } catch (err: unknown) {
        const code = statusCodeOf(err);
        if (code === 404) return; // deleted meanwhile: the store will drop it
        if (code !== 409) throw err;
        this.stats.conflicts += 1;
        conflicts += 1;
        if (conflicts > maxConflicts) throw err;
        this.options.log.debug({ [this.target.logField]: key, attempt: conflicts }, `${this.target.kind} changed while writing its status; re-reading`);
        obj = await this.target.read(key);
      }
    }
  }
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
