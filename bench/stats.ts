// Small statistics and formatting helpers for the benchmark scenarios.
import os from 'node:os';

export interface Summary {
  runs: number;
  median: number;
  p99: number;
  min: number;
  max: number;
}

/** Median and p99 (nearest rank) of repeated measurements. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { runs: 0, median: NaN, p99: NaN, min: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { runs: values.length, median: round(median), p99: round(rank(0.99)), min: round(sorted[0]!), max: round(sorted[sorted.length - 1]!) };
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function mib(bytes: number): number {
  return round(bytes / (1024 * 1024), 1);
}

export function machine(): { cores: number; cpuModel: string; totalMemMiB: number; node: string; loadavg: number[]; referenceLoopMs: number } {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    totalMemMiB: mib(os.totalmem()),
    node: process.version,
    loadavg: os.loadavg().map((x) => round(x)),
    referenceLoopMs: referenceLoopMs(),
  };
}

/**
 * Milliseconds of a fixed single-threaded loop (median of 3): how fast this (virtual) machine runs right now.
 * On a shared host it varied by almost 2x within a day; runs are comparable only at similar values.
 */
export function referenceLoopMs(): number {
  const times: number[] = [];
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    let x = 0;
    for (let i = 0; i < 1e8; i++) x += i % 7;
    if (x < 0) throw new Error('unreachable');
    times.push(performance.now() - t0);
  }
  return round(times.sort((a, b) => a - b)[1]!);
}

/** Forces a full GC when node runs with --expose-gc; returns whether it could. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/** A plain-text table: header row, then rows, columns padded. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** CPU time of this process in milliseconds (user + system) since `since`. */
export function cpuMs(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}
