// Parent side of status-poller-main.ts: one poller process for a whole scenario.
import { fileURLToPath } from 'node:url';
import { startLineChild } from './line-child.js';

const main = fileURLToPath(new URL('./status-poller-main.js', import.meta.url));

export interface StatusPoller {
  /**
   * Starts polling `host` every ms; resolves with the performance.now() (this process) of its first 200 (from the
   * echo backend named `service`, when given).
   */
  firstOk(port: number, host: string, timeoutMs?: number, service?: string): Promise<number>;
  close(): Promise<void>;
}

export async function startStatusPoller(): Promise<StatusPoller> {
  const child = await startLineChild(main);
  return {
    async firstOk(port, host, timeoutMs = 60_000, service) {
      const { okAtMs } = (await child.ask({ port, host, timeoutMs, service })) as { okAtMs: number | null };
      if (okAtMs === null) throw new Error(`no 200 for ${host}${service ? ` from ${service}` : ''} within ${timeoutMs} ms`);
      return child.localMs(okAtMs);
    },
    close: () => child.close(),
  };
}
