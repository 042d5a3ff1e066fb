// The load of the route-switch measures (standalone convergence and peers): requests through Envoy's listener
// for one host, four at a time with a 1 ms pause, while `switches` changes the route; every response must be 2xx.
import { startRequestLoop } from '../test/harness/request-loop.js';
import { getStatus } from './envoy-stack.js';

export interface SwitchLoad {
  requests: number;
  non2xx: number;
  byStatus: Record<string, number>;
}

/** Runs `switches` while requests for `host` flow through Envoy on `httpPort`; counts what was not 2xx. */
export async function underLoad(httpPort: number, host: string, switches: () => Promise<void>): Promise<SwitchLoad> {
  const loop = startRequestLoop(async () => ({ status: await getStatus(httpPort, host) }), {
    concurrency: 4,
    intervalMs: 1,
    maxRequests: 1_000_000,
    maxDurationMs: 300_000,
    isSuccess: (s) => s >= 200 && s < 300,
  });
  try {
    await switches();
  } finally {
    // Past the last switch: requests still see the table it made.
    await new Promise((r) => setTimeout(r, 500));
  }
  const result = await loop.stop();
  return { requests: result.total, non2xx: result.failures.length, byStatus: result.byStatus };
}
