/** Polling helper for tests: waits on observable state instead of sleeping for a guessed time. */
import { setTimeout as delay } from 'node:timers/promises';

export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 50 ms). */
  intervalMs?: number;
  /** What is being waited for; it leads the timeout error so a failing test says what never happened. */
  description: string;
  /** Stop waiting at once when aborted, e.g. because the process being polled has exited. */
  signal?: AbortSignal;
}

/**
 * Calls `fn` until it returns a truthy value and resolves with that value. A thrown error counts as "not yet".
 * On timeout (or abort) it throws an error naming `description` with the last value or error seen.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 50, description, signal }: WaitForOptions,
): Promise<NonNullable<T>> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let attempts = 0;
  let last: { kind: 'value'; value: unknown } | { kind: 'error'; error: unknown } | undefined;
  const failure = (why: string): Error => {
    const lastSeen =
      last === undefined ? 'nothing'
      : last.kind === 'error' ? `error: ${describeError(last.error)}`
      : `value: ${describeValue(last.value)}`;
    return new Error(`${why} (${attempts} attempts) waiting for ${description}; last ${lastSeen}`);
  };
  for (;;) {
    if (signal?.aborted) throw failure(`Gave up after ${Date.now() - started} ms: ${describeError(signal.reason)}`);
    attempts += 1;
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      last = { kind: 'value', value };
    } catch (error) {
      last = { kind: 'error', error };
    }
    if (Date.now() >= deadline) throw failure(`Timed out after ${timeoutMs} ms`);
    const pause = Math.min(intervalMs, Math.max(0, deadline - Date.now()));
    // An abort ends the pause early; the check at the top of the loop reports it.
    await delay(pause, undefined, signal ? { signal } : {}).catch(() => undefined);
  }
}

export function sleep(ms: number): Promise<void> {
  return delay(ms);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function describeValue(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 500 ? `${text.slice(0, 500)}...` : text;
  } catch {
    return String(value);
  }
}
