/**
 * A child process of the test Kubernetes cluster (etcd, kube-apiserver) whose output is kept (last lines only)
 * for error messages, and which is killed if the test process exits without stopping it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineRingBuffer } from './line-ring-buffer.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface KubeProcess {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the process has exited (and been reaped). */
  readonly exited: Promise<ProcessExit>;
  /** Whether the process has exited. */
  readonly hasExited: boolean;
  /** Last lines of stdout and stderr. */
  logs(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<ProcessExit>;
}

const LOG_LINES = 300;
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

export function startKubeProcess(name: string, command: string, args: readonly string[], env?: NodeJS.ProcessEnv): KubeProcess {
  installExitHook();
  const logs = new LineRingBuffer(LOG_LINES);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
  child.stdout?.on('data', (chunk: Buffer) => logs.append('stdout', chunk));
  child.stderr?.on('data', (chunk: Buffer) => logs.append('stderr', chunk));
  running.add(child);
  let exitInfo: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('error', (error) => {
      // Spawning failed (e.g. missing binary): there is no process to wait for.
      logs.append('spawn', `failed to start ${command}: ${error.message}\n`);
      running.delete(child);
      exitInfo = { code: null, signal: null };
      resolve(exitInfo);
    });
    child.once('close', (code, signal) => {
      logs.flush();
      running.delete(child);
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });

  return {
    name,
    pid: child.pid ?? -1,
    exited,
    get hasExited() {
      return exitInfo !== undefined;
    },
    logs: () => logs.toString(),
    async stop(graceMs = 10_000) {
      if (exitInfo) return exitInfo;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Describes how a process ended, for error messages. */
export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${String(exit.code)}`;
}

/** Kills leftover children when the test process exits (a failed test may never reach its cleanup). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}
