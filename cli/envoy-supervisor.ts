// Runs the local Envoy for `run --envoy`: starts it with the generated bootstrap, restarts it with backoff if
// it exits unexpectedly, and on stop asks it to drain before terminating it.
import { postEnvoyAdmin } from './envoy-admin.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResourceJson } from '../envoy/resource-types.js';
import type { Logger } from './logger.js';

export interface EnvoySupervisorOptions {
  envoyBin: string;
  bootstrap: ResourceJson;
  adminUrl: string;
  /** Envoy's --log-level (default `warn`: at info Envoy logs every xDS update). */
  logLevel?: string;
  /** Seconds Envoy drains listeners on shutdown. */
  drainSeconds?: number;
}

export interface EnvoyExit {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Running {
  child: ChildProcess;
  /** Settles when this process has exited. */
  exited: Promise<void>;
}

export class EnvoySupervisor extends EventEmitter<{ spawned: [number]; exited: [EnvoyExit] }> {
  #running: Running | undefined;
  #dir: string | undefined;
  #stopping = false;
  #restarts = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: EnvoySupervisorOptions,
    private readonly log: Logger,
  ) {
    super();
  }

  /** The pid of the Envoy running now, if any. */
  get pid(): number | undefined {
    const child = this.#running?.child;
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /** Writes the bootstrap and starts Envoy; rejects if Envoy cannot be started at all (e.g. no such binary). */
  async start(): Promise<void> {
    this.#dir = await mkdtemp(path.join(tmpdir(), 'envoy-ingress-'));
    const file = path.join(this.#dir, 'bootstrap.json');
    await writeFile(file, JSON.stringify(this.options.bootstrap, null, 2));
    if (this.#stopping) return; // stop() came first: do not leave an Envoy behind
    await this.#spawn(file);
  }

  #spawn(file: string): Promise<void> {
    const args = [
      '-c', file,
      '--use-dynamic-base-id',
      '--log-level', this.options.logLevel ?? 'warn',
      '--drain-time-s', String(this.options.drainSeconds ?? 5),
      '--drain-strategy', 'immediate',
    ];
    const child = spawn(this.options.envoyBin, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    let resolveExited!: () => void;
    this.#running = { child, exited: new Promise((resolve) => (resolveExited = resolve)) };
    return new Promise((resolve, reject) => {
      let spawned = false;
      child.once('spawn', () => {
        spawned = true;
        this.log.info({ pid: child.pid, bin: this.options.envoyBin }, 'Envoy started');
        this.emit('spawned', child.pid!);
        resolve();
      });
      // Without this listener a missing binary would be an uncaught 'error' event.
      child.once('error', (err) => {
        if (spawned) return;
        resolveExited();
        reject(new Error(`cannot start Envoy (${this.options.envoyBin}): ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        resolveExited();
        if (!spawned) return;
        this.emit('exited', { pid: child.pid!, code, signal });
        if (this.#stopping) return;
        this.#restarts += 1;
        const delay = Math.min(30_000, 1000 * 2 ** Math.min(this.#restarts - 1, 5));
        this.log.error({ code, signal, restartInMs: delay }, 'Envoy exited unexpectedly; restarting');
        this.#timer = setTimeout(() => {
          this.#spawn(file).catch((err: unknown) => {
            this.log.error({ err }, 'Envoy restart failed; giving up');
          });
        }, delay);
      });
    });
  }

  /** Drain listeners gracefully, then stop Envoy. Resolves once no Envoy of ours runs. */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    const running = this.#running;
    // Checking exitCode alone missed an Envoy killed by a signal (exitCode null): stop() then waited forever
    // for an 'exit' that had already happened.
    if (running && running.child.exitCode === null && running.child.signalCode === null && running.child.pid !== undefined) {
      const { child, exited } = running;
      try {
        // Fail the readiness check first (/ready answers 503), so load balancers stop sending before the drain.
        await postEnvoyAdmin(this.options.adminUrl, '/healthcheck/fail');
        await postEnvoyAdmin(this.options.adminUrl, '/drain_listeners?graceful');
        let drained: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (drained = setTimeout(r, (this.options.drainSeconds ?? 5) * 1000)))]);
        clearTimeout(drained);
      } catch {
        // Envoy not answering: terminate it anyway.
      }
      const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    }
    if (this.#dir) await rm(this.#dir, { recursive: true, force: true });
  }
}
