/**
 * An echo backend running as a child process inside a test host's network namespace. Its listening socket
 * exists only in that namespace: the root namespace reaches it through the host's veth address, not loopback.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EchoServerReady } from './echo-server-main.js';
import { LineRingBuffer } from './line-ring-buffer.js';

export interface RemoteEchoOptions {
  /** Name the backend reports in its body and `x-echo-service` header. */
  service: string;
  /** Port to listen on inside the namespace (default 0: chosen by the OS there). */
  port?: number;
}

export interface RemoteEcho {
  /** The test host's address, where the backend listens. */
  address: string;
  port: number;
  /** Base URL, e.g. http://10.250.3.2:34567 */
  url: string;
  service: string;
  /** Process id of the backend (it runs in the namespace, so /proc/<pid>/ns/net differs from ours). */
  pid: number;
  /** Last lines the backend wrote, for error messages. */
  logs(): string;
  /** SIGTERM, then SIGKILL if it lingers; resolves once the process is gone. Idempotent. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
const echoServerMain = fileURLToPath(new URL('./echo-server-main.js', import.meta.url));

/**
 * Starts `echo-server-main` in `namespace`, bound to `address`, and resolves once it printed its port.
 * `onExit` is told when the process is gone, so the host can forget it.
 */
export function startRemoteEcho(
  namespace: string,
  address: string,
  opts: RemoteEchoOptions,
  onExit: (pid: number) => void,
): Promise<RemoteEcho> {
  const args = [
    'netns', 'exec', namespace,
    process.execPath, echoServerMain, '--service', opts.service, '--host', address, '--port', String(opts.port ?? 0),
  ];
  const logs = new LineRingBuffer(100);
  // stdin stays an open pipe: the backend exits when it closes, i.e. when this process dies.
  const child = spawn('ip', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      logs.flush();
      if (child.pid !== undefined) onExit(child.pid);
      resolve();
    });
  });
  child.stderr.on('data', (chunk: Buffer) => logs.append('stderr', chunk));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  return new Promise<RemoteEcho>((resolve, reject) => {
    let stdout = '';
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() =>
        reject(new Error(`echo backend ${opts.service} in ${namespace} ${why}; its output:\n${logs.toString()}`)),
      );
    };
    const timer = setTimeout(() => fail(`printed no port within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    child.once('error', (error) => fail(`could not be started: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited before listening (${signal ?? `exit code ${String(code)}`})`));
    child.stdout.on('data', (chunk: Buffer) => {
      logs.append('stdout', chunk);
      if (settled) return;
      stdout += chunk.toString();
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      let ready: EchoServerReady;
      try {
        ready = JSON.parse(stdout.slice(0, newline)) as EchoServerReady;
      } catch {
        fail(`printed something other than its ready line: ${stdout.slice(0, newline)}`);
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve({
        address: ready.address,
        port: ready.port,
        url: `http://${ready.address}:${ready.port}`,
        service: ready.service,
        pid: child.pid ?? -1,
        logs: () => logs.toString(),
        stop,
      });
    });
  });
}
