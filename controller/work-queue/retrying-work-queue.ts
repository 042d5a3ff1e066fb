// The retry loop the managers share (Service-annotation Ingresses, Gateway Services): a keyed work queue whose
// failed keys come back after an exponential backoff, optionally given up on after some retries until `forget`
// gives them a fresh start. A key with a retry pending (or given up on) is not added again meanwhile: the retry will
// look anyway.
import { KeyedWorkQueue } from './keyed-work-queue.js';

export interface RetryingWorkQueueOptions {
  /** First retry delay, doubled per retry up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Retries after the first failure before the key is given up on; absent: retried for ever. */
  maxRetries?: number;
  /** Keys that may run at once. */
  concurrency: number;
}

/** One failure: `retryInMs` absent when the key was given up on. */
export interface WorkFailure {
  key: string;
  error: unknown;
  attempt: number;
  retryInMs?: number;
}

export class RetryingWorkQueue {
  readonly #queue: KeyedWorkQueue;
  /** Failures in a row per key. */
  readonly #failures = new Map<string, number>();
  readonly #retryTimers = new Map<string, NodeJS.Timeout>();
  readonly #gaveUp = new Set<string>();

  constructor(
    work: (key: string) => Promise<void>,
    private readonly onFailure: (failure: WorkFailure) => void,
    private readonly options: RetryingWorkQueueOptions,
  ) {
    this.#queue = new KeyedWorkQueue((key) => this.#process(key, work), options.concurrency);
  }

  add(key: string): void {
    if (this.#gaveUp.has(key) || this.#retryTimers.has(key)) return;
    this.#queue.add(key);
  }

  /** A fresh start for `key` (its object changed): no backoff, no give-up. Does not add it. */
  forget(key: string): void {
    this.#gaveUp.delete(key);
    this.#failures.delete(key);
    clearTimeout(this.#retryTimers.get(key));
    this.#retryTimers.delete(key);
  }

  /** Resolves when no operation is queued or running (retries waiting on their backoff do not count). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /** Cancels pending retries, drops waiting keys and waits for running ones. */
  async stop(): Promise<void> {
    for (const timer of this.#retryTimers.values()) clearTimeout(timer);
    this.#retryTimers.clear();
    await this.#queue.stop();
  }

  async #process(key: string, work: (key: string) => Promise<void>): Promise<void> {
    try {
      await work(key);
      this.#failures.delete(key);
    } catch (error) {
      this.#failed(key, error);
    }
  }

  #failed(key: string, error: unknown): void {
    const attempt = (this.#failures.get(key) ?? 0) + 1;
    const { maxRetries, baseBackoffMs, maxBackoffMs } = this.options;
    if (maxRetries !== undefined && attempt > maxRetries) {
      this.#failures.delete(key);
      this.#gaveUp.add(key);
      this.onFailure({ key, error, attempt });
      return;
    }
    this.#failures.set(key, attempt);
    const retryInMs = Math.min(baseBackoffMs * 2 ** (attempt - 1), maxBackoffMs);
    this.onFailure({ key, error, attempt, retryInMs });
    const timer = setTimeout(() => {
      this.#retryTimers.delete(key);
      this.#queue.add(key);
    }, retryInMs);
    this.#retryTimers.set(key, timer);
  }
}
