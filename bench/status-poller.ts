// Parent side of status-poller-main.ts: one poller process for a whole scenario.
import { fileURLToPath } from 'node:url';
import { startLineChild } from './line-child.js';

const main = fileURLToPath(new URL('./status-poller-main.js', import.meta.url));

export interface StatusPoller {
  /** Starts polling `host` every ms; resolves with the performance.now() (this process) of its first 200. */
  firstOk(port: number, host: string, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startStatusPoller(): Promise<StatusPoller> {
  const child = await startLineChild(main);
  return {
    async firstOk(port, host, timeoutMs = 60_000) {
      const { okAtMs } = (await child.ask({ port, host, timeoutMs })) as { okAtMs: number | null };
      if (okAtMs === null) throw new Error(`no 200 for ${host} within ${timeoutMs} ms`);
      return child.localMs(okAtMs);
    },
    close: () => child.close(),
  };
}
