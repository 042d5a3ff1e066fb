// A helper process for the benchmarks (a poller, an API client): one JSON line per command on its stdin, one JSON
// line per answer on its stdout, in order; it prints one line when ready. Its times are CLOCK_MONOTONIC
// milliseconds (process.hrtime), shared by every process on the machine, and converted to this process's
// performance.now() here.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LineChild {
  /** Sends one command; resolves with the answer to it. */
  ask(command: object): Promise<unknown>;
  /** A CLOCK_MONOTONIC time of the child -> this process's performance.now(). */
  localMs(monotonicMs: number): number;
  close(): Promise<void>;
}

export async function startLineChild(main: string, args: readonly string[] = []): Promise<LineChild> {
  const child = spawn(process.execPath, [main, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  await next(); // ready
  const offsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  return {
    async ask(command) {
      const answer = next();
      child.stdin!.write(`${JSON.stringify(command)}\n`);
      return JSON.parse(await answer) as unknown;
    },
    localMs: (monotonicMs) => monotonicMs - offsetMs,
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
}
