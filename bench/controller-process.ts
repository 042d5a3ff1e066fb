// Our controller as users run it: `node dist/cli/main.js run` in Kubernetes mode, in its own process, so that its
// CPU time and memory can be read from /proc like any other process's (the peers scenario compares them with
// Contour's). The bench process only creates objects and polls.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { LineRingBuffer } from '../test/harness/line-ring-buffer.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { terminateChild } from './terminate-child.js';

const main = fileURLToPath(new URL('../cli/main.js', import.meta.url));

export interface ControllerProcess {
  pid: number;
  xdsPort: number;
  /** The `run` arguments (the flags of the comparison). */
  args: string[];
  logs(): string;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Starts the controller against `kubeconfigPath`; resolves once its xDS port accepts connections. */
export async function startControllerProcess(o: { kubeconfigPath: string; httpPort: number; httpsPort: number }): Promise<ControllerProcess> {
  const xdsPort = await freePort();
  const args = [
    'run',
    `--kubeconfig=${o.kubeconfigPath}`,
    `--xds-address=127.0.0.1:${xdsPort}`,
    '--listen-address=127.0.0.1',
    `--http-port=${o.httpPort}`,
    `--https-port=${o.httpsPort}`,
    `--https-redirect-port=${o.httpsPort}`,
    '--leader-election-namespace=default',
    '--identity=bench',
    '--debug-address=off',
    '--log-level=warn',
    // The synthetic clusters put every object in one namespace that stands for a whole cluster (10,000 Ingresses
    // are about 50,000 paths): the per-namespace route budget would leave most of them unserved.
    `--namespace-route-budget=${Number.MAX_SAFE_INTEGER}`,
  ];
  const output = new LineRingBuffer(500);
  const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => output.append('stdout', chunk));
  child.stderr.on('data', (chunk: Buffer) => output.append('stderr', chunk));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('close', (code) => {
    exitCode = code;
    resolve();
  }));
  const deadline = performance.now() + 60_000;
  while (!(await accepts(xdsPort))) {
    if (exitCode !== undefined || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the controller did not serve xDS (exit ${String(exitCode)}):\n${output.toString(40)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    pid: child.pid!,
    xdsPort,
    args,
    logs: () => output.toString(40),
    async stop() {
      await terminateChild(child, exited);
    },
  };
}
