// An echo backend in its own process (test/harness/echo-server-main.ts), for scenarios where the benchmark's own
// process is busy (building config, reading Envoy's access log): a backend sharing that event loop would answer
// late, and the measurement would show the benchmark, not Envoy or the controller.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EchoServerReady } from '../test/harness/echo-server-main.js';

export interface EchoProcess {
  address: string;
  port: number;
  close(): Promise<void>;
}

const echoServerMain = fileURLToPath(new URL('../test/harness/echo-server-main.js', import.meta.url));

export async function startEchoProcess(service: string, host = '127.0.0.1'): Promise<EchoProcess> {
  const child = spawn(process.execPath, [echoServerMain, '--service', service, '--host', host, '--port', '0'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<EchoServerReady>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as EchoServerReady));
    child.once('exit', (code) => reject(new Error(`echo backend ${service} exited with ${code} before listening`)));
  });
  return {
    address: ready.address,
    port: ready.port,
    async close() {
      // Closing stdin is how echo-server-main learns its parent is done.
      child.stdin?.end();
      await exited;
    },
  };
}
