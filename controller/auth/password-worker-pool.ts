// Slow password verifications (bcrypt, SHA-crypt, apr1) run on worker threads, never on the controller's event
// loop, which serves xDS, the health probes and every other tenant's checks. A hash's cost is its author's choice
// (a tenant's Secret), and a wrong password costs as much as a right one, so the pool is also where one tenant's
// storm is kept to that tenant:
// - each tenant (a basic-auth Secret) has at most `perTenantRunning` verifications on workers at once, fewer than
//   the workers there are, so another tenant always finds one free;
// - at most `perTenantPending` of its checks wait or run; the next is refused at once ('busy': 429 to its client);
// - waiting checks are taken round-robin across tenants, not first come first served.
// Workers are started on the first verification and do not keep the process alive.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { VerifyJob, VerifyResult } from './password-worker.js';

export interface PasswordWorkerPoolOptions {
  /** Worker threads (default: the machine's available parallelism). */
  size?: number;
  /** Verifications of one tenant on workers at once (default: size - 1, at least 1). */
  perTenantRunning?: number;
  /**
   * Checks of one tenant waiting or running; past it, 'busy' (default: size, at least 2). Small on purpose: at the
   * cost cap a verification takes about 2 s, and a check still waiting when Envoy's ext_authz timeout (10 s) runs
   * out is a 503 anyway.
   */
  perTenantPending?: number;
}

export type PoolVerdict = boolean | 'busy';

interface Job {
  id: number;
  tenant: TenantState;
  password: string;
  hash: string;
  resolve(ok: boolean): void;
}

interface TenantState {
  key: string;
  running: number;
  queue: Job[];
}

interface PoolWorker {
  worker: Worker;
  job: Job | undefined;
}

export class PasswordWorkerPool {
  readonly size: number;
  readonly perTenantRunning: number;
  readonly perTenantPending: number;
  readonly #tenants = new Map<string, TenantState>();
  /** Tenants with waiting checks, in the order they are served. */
  readonly #ring: TenantState[] = [];
  readonly #workers: PoolWorker[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: PasswordWorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? availableParallelism());
    this.perTenantRunning = Math.max(1, options.perTenantRunning ?? this.size - 1);
    this.perTenantPending = Math.max(1, options.perTenantPending ?? Math.max(2, this.size));
  }

  /** Whether `password` matches `hash`, verified on a worker; 'busy' when `tenant` has too many checks pending. */
  verify(tenant: string, password: string, hash: string): Promise<PoolVerdict> {
    if (this.#closed) return Promise.resolve(false);
    let state = this.#tenants.get(tenant);
    if (state === undefined) {
      state = { key: tenant, running: 0, queue: [] };
      this.#tenants.set(tenant, state);
    }
    if (state.running + state.queue.length >= this.perTenantPending) return Promise.resolve('busy');
    const owner = state;
    return new Promise<PoolVerdict>((resolve) => {
      owner.queue.push({ id: this.#nextId++, tenant: owner, password, hash, resolve });
      if (owner.queue.length === 1) this.#ring.push(owner);
      this.#dispatch();
    });
  }

  /** Checks of each tenant waiting or running (tenants with none are left out). */
  pending(): Record<string, number> {
    return Object.fromEntries([...this.#tenants.values()].map((s) => [s.key, s.running + s.queue.length]).filter(([, n]) => n !== 0));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#workers.splice(0);
    for (const w of workers) w.job?.resolve(false);
    for (const state of this.#tenants.values()) for (const job of state.queue.splice(0)) job.resolve(false);
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  #dispatch(): void {
    if (this.#closed) return;
    while (this.#ring.length > 0) {
      const worker = this.#idleWorker();
      if (worker === undefined) return;
      // The first tenant in turn that may run one more.
      const index = this.#ring.findIndex((s) => s.running < this.perTenantRunning);
      if (index === -1) return;
      const [state] = this.#ring.splice(index, 1) as [TenantState];
      const job = state.queue.shift()!;
      // Back of the line if it still has checks waiting.
      if (state.queue.length > 0) this.#ring.push(state);
      state.running += 1;
      worker.job = job;
      worker.worker.postMessage({ id: job.id, password: job.password, hash: job.hash } satisfies VerifyJob);
    }
  }

  #idleWorker(): PoolWorker | undefined {
    const idle = this.#workers.find((w) => w.job === undefined);
    if (idle !== undefined) return idle;
    if (this.#workers.length < this.size) return this.#startWorker();
    return undefined;
  }

  #startWorker(): PoolWorker {
    const worker = new Worker(new URL('./password-worker.js', import.meta.url));
    worker.unref();
    const entry: PoolWorker = { worker, job: undefined };
    worker.on('message', (result: VerifyResult) => {
      if (entry.job?.id === result.id) this.#finish(entry, result.ok);
    });
    // A worker that died takes its check with it (refused), and is replaced on the next dispatch.
    const lost = (): void => {
      const index = this.#workers.indexOf(entry);
      if (index !== -1) this.#workers.splice(index, 1);
      if (entry.job !== undefined) this.#finish(entry, false);
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.#workers.push(entry);
    return entry;
  }

  #finish(entry: PoolWorker, ok: boolean): void {
    const job = entry.job!;
    entry.job = undefined;
    job.tenant.running -= 1;
    if (job.tenant.running === 0 && job.tenant.queue.length === 0) this.#tenants.delete(job.tenant.key);
    job.resolve(ok);
    this.#dispatch();
  }
}
