// The work queue of the managers (Service-annotation Ingresses, Gateway Services): keyed by object, so one key's
// operations never overlap, and coalescing, so a key added several times while waiting is looked at once.
/**
 * At most one operation per key at a time: a key added while it is being processed runs once more afterwards;
 * a key added several times while waiting runs once.
 */
export class KeyedWorkQueue {
  readonly #waiting = new Set<string>();
  readonly #running = new Set<string>();
  readonly #again = new Set<string>();
  readonly #idle: (() => void)[] = [];
  #stopped = false;

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly concurrency: number,
  ) {}

  add(key: string): void {
    if (this.#stopped) return;
    if (this.#running.has(key)) this.#again.add(key);
    else this.#waiting.add(key);
    this.#pump();
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.#waiting.size === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Drops waiting keys and waits for running ones. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waiting.clear();
    this.#again.clear();
    await this.idle();
  }

  #pump(): void {
    for (const key of this.#waiting) {
      if (this.#running.size >= this.concurrency) break;
      this.#waiting.delete(key);
      this.#running.add(key);
      void this.work(key)
        .catch(() => undefined) // the work function reports its own errors
        .finally(() => {
          this.#running.delete(key);
          if (this.#again.delete(key) && !this.#stopped) this.#waiting.add(key);
          this.#pump();
          if (this.#waiting.size === 0 && this.#running.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}
