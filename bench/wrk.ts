// Runs wrk (Debian's package; installed with apt-get when missing and we are root) and parses its summary.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
}

export function ensureWrk(): string | undefined {
  const find = (): string | undefined => {
    try {
      return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      return undefined;
    }
  };
  let path = find();
  if (!path && process.getuid?.() === 0) {
    try {
      execFileSync('sh', ['-c', 'DEBIAN_FRONTEND=noninteractive apt-get install -y wrk || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wrk)'], { stdio: 'ignore', timeout: 300_000 });
    } catch {
      /* reported below as missing */
    }
    path = find();
  }
  return path;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

export function parseWrk(text: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const p50 = toMs(/^\s+50%\s+(\S+)/m.exec(text)?.[1] ?? '');
  const p99 = toMs(/^\s+99%\s+(\S+)/m.exec(text)?.[1] ?? '');
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = errs ? Number(errs[1]) + Number(errs[2]) + Number(errs[3]) + Number(errs[4]) : 0;
  return { requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, requests, non2xx, socketErrors };
}

export async function runWrk(wrk: string, url: string, host: string, o: { seconds: number; connections: number; threads?: number }): Promise<WrkResult> {
  const { stdout } = await execFileAsync(wrk, ['-t', String(o.threads ?? 1), '-c', String(o.connections), '-d', `${o.seconds}s`, '--latency', '-H', `Host: ${host}`, url], { timeout: (o.seconds + 30) * 1000 });
  return parseWrk(stdout);
}
