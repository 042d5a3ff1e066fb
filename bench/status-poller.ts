// Parent side of status-poller-main.ts: one poller process for a whole scenario.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('./status-poller-main.js', import.meta.url));

export interface StatusPoller {
  /** Starts polling `host` every ms; resolves with the performance.now() (this process) of its first 200. */
  firstOk(port: number, host: string, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startStatusPoller(): Promise<StatusPoller> {
  const child = spawn(process.execPath, [main], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  await next(); // ready
  // CLOCK_MONOTONIC (shared by both processes) -> this process's performance.now().
  const offsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  return {
    async firstOk(port, host, timeoutMs = 60_000) {
      const answer = next();
      child.stdin!.write(`${JSON.stringify({ port, host, timeoutMs })}\n`);
      const { okAtMs } = JSON.parse(await answer) as { okAtMs: number | null };
      if (okAtMs === null) throw new Error(`no 200 for ${host} within ${timeoutMs} ms`);
      return okAtMs - offsetMs;
    },
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
}
