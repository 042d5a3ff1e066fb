// A clock for unit tests of code that takes its timers as a parameter (the leader elector's ElectionClock, the
// Gateway API status writer's HoldTimers): timers run only when the test advances the clock, in the order they are
// due, and promise callbacks settle between them.

export class FakeClock {
  time: number;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Timers set and not yet run or cleared. */
  get pending(): number {
    return this.#timers.size;
  }
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await settle();
    for (;;) {
      const due = [...this.#timers].filter(([, timer]) => timer.at <= end).sort(([ia, a], [ib, b]) => a.at - b.at || ia - ib)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
      await settle();
    }
    this.time = end;
  }
}

/** Lets pending promise callbacks run (a few turns of the event loop). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
