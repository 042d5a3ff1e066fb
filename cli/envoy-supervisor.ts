// Runs the local Envoy for `run --envoy`: starts it with the generated bootstrap, restarts it with backoff if
// it exits unexpectedly, and on stop asks it to drain before terminating it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResourceJson } from '../envoy/resource-types.js';
import type { Logger } from './logger.js';

export interface EnvoySupervisorOptions {
  envoyBin: string;
  bootstrap: ResourceJson;
  adminUrl: string;
  logLevel?: string;
  /** Seconds Envoy drains listeners on shutdown. */
  drainSeconds?: number;
}

export class EnvoySupervisor {
  #child: ChildProcess | undefined;
  #stopping = false;
  #restarts = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: EnvoySupervisorOptions,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const dir = await mkdtemp(path.join(tmpdir(), 'envoy-ingress-'));
    const file = path.join(dir, 'bootstrap.json');
    await writeFile(file, JSON.stringify(this.options.bootstrap, null, 2));
    this.#spawn(file);
  }

  #spawn(file: string): void {
    const args = [
      '-c', file,
      '--use-dynamic-base-id',
      '--log-level', this.options.logLevel ?? 'info',
      '--drain-time-s', String(this.options.drainSeconds ?? 5),
      '--drain-strategy', 'immediate',
    ];
    const child = spawn(this.options.envoyBin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    this.#child = child;
    this.log.info({ pid: child.pid, bin: this.options.envoyBin }, 'Envoy started');
    child.on('exit', (code, signal) => {
      if (this.#stopping) return;
      this.#restarts += 1;
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(this.#restarts - 1, 5));
      this.log.error({ code, signal, restartInMs: delay }, 'Envoy exited unexpectedly; restarting');
      this.#timer = setTimeout(() => this.#spawn(file), delay);
    });
  }

  /** Drain listeners gracefully, then stop Envoy. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    try {
      await fetch(`${this.options.adminUrl}/drain_listeners?graceful`, { method: 'POST', signal: AbortSignal.timeout(2000) });
      await new Promise((r) => setTimeout(r, (this.options.drainSeconds ?? 5) * 1000));
    } catch {
      // Envoy not answering: terminate it anyway.
    }
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
