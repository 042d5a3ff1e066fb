/**
 * Sends requests continuously while a test changes configuration, and records every failure, to prove that a
 * change caused zero failed requests. Always bounded in count and time, so it stops by itself.
 */

export interface RequestLoopOptions {
  /** Requests in flight at once (default 1). */
  concurrency?: number;
  /** Pause after each request, per worker (default 10 ms). */
  intervalMs?: number;
  /** Stop after this many requests in total (default 10,000). */
  maxRequests?: number;
  /** Stop after this long (default 60 s). */
  maxDurationMs?: number;
  /** Which statuses count as success (default 200-399). */
  isSuccess?: (status: number) => boolean;
}

export interface RequestFailure {
  /** The status of an unsuccessful response. */
  status?: number;
  /** The error of a request that got no response. */
  error?: string;
  /** Milliseconds since the loop started. */
  at: number;
  /** 1-based number of the request, in the order requests were started. */
  sequence: number;
}

export interface RequestLoopResult {
  total: number;
  failures: RequestFailure[];
  /** Count per status code, plus "error" for requests that got no response. */
  byStatus: Record<string, number>;
  /** Why the loop stopped. */
  stoppedBy: 'stop' | 'maxRequests' | 'maxDuration';
}

export interface RequestLoop {
  /** Counts so far, while the loop runs (e.g. wait until some requests succeeded before changing config). */
  snapshot(): RequestLoopResult;
  /** Resolves when the loop stops by itself (a limit was reached) or after stop(). */
  readonly finished: Promise<RequestLoopResult>;
  /** Stops starting requests, waits for those in flight, and returns the totals. */
  stop(): Promise<RequestLoopResult>;
}

export function startRequestLoop(send: () => Promise<{ status: number }>, opts: RequestLoopOptions = {}): RequestLoop {
  const concurrency = Math.max(1, opts.concurrency ?? 1);
  const intervalMs = opts.intervalMs ?? 10;
  const maxRequests = opts.maxRequests ?? 10_000;
  const maxDurationMs = opts.maxDurationMs ?? 60_000;
  const isSuccess = opts.isSuccess ?? ((status: number) => status >= 200 && status < 400);

  const started = Date.now();
  let startedRequests = 0;
  let total = 0;
  const failures: RequestFailure[] = [];
  const byStatus: Record<string, number> = {};
  let stoppedBy: RequestLoopResult['stoppedBy'] | undefined;
  let wakeUp: (() => void) | undefined;
  const stopRequested = new Promise<void>((resolve) => {
    wakeUp = resolve;
  });
  const requestStop = (reason: RequestLoopResult['stoppedBy']): void => {
    stoppedBy ??= reason;
    wakeUp?.();
  };
  const deadline = setTimeout(() => requestStop('maxDuration'), maxDurationMs);

  const snapshot = (): RequestLoopResult => ({
    total,
    failures: [...failures],
    byStatus: { ...byStatus },
    stoppedBy: stoppedBy ?? 'stop',
  });

  const worker = async (): Promise<void> => {
    while (stoppedBy === undefined) {
      if (startedRequests >= maxRequests) {
        requestStop('maxRequests');
        break;
      }
      startedRequests += 1;
      const sequence = startedRequests;
      try {
        const { status } = await send();
        byStatus[String(status)] = (byStatus[String(status)] ?? 0) + 1;
        if (!isSuccess(status)) failures.push({ status, at: Date.now() - started, sequence });
      } catch (error) {
        byStatus['error'] = (byStatus['error'] ?? 0) + 1;
        failures.push({ error: error instanceof Error ? error.message : String(error), at: Date.now() - started, sequence });
      }
      total += 1;
      if (intervalMs > 0 && stoppedBy === undefined) {
        // Wake early on stop so stop() does not wait out the pause.
        await Promise.race([new Promise((resolve) => setTimeout(resolve, intervalMs)), stopRequested]);
      }
    }
  };

  const finished = Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
    clearTimeout(deadline);
    return snapshot();
  });

  return {
    snapshot,
    finished,
    stop() {
      requestStop('stop');
      return finished;
    },
  };
}
