/**
 * An echo backend as its own process, so it can run inside a test host's network namespace
 * (`ip netns exec <ns> node echo-server-main.js --service S --host A --port P`). Once listening it prints one
 * JSON line `{"service","address","port"}` on stdout, which is how the parent learns the port when P is 0.
 * It exits on SIGTERM or SIGINT, and when its stdin closes: the parent holds the other end of that pipe, so a
 * parent that dies without cleaning up still takes its backends with it.
 */
import { parseArgs } from 'node:util';
import { startEchoBackend } from './echo-backend.js';

/** The line echo-server-main prints once it listens. */
export interface EchoServerReady {
  service: string;
  address: string;
  port: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      service: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string', default: '0' },
    },
    strict: true,
  });
  const service = values.service;
  const host = values.host;
  const port = Number(values.port);
  if (!service || !host || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error('usage: echo-server-main --service NAME --host ADDRESS [--port PORT]');
  }
  const backend = await startEchoBackend({ service, host, port });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void backend.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
  process.stdin.resume();
  const ready: EchoServerReady = { service, address: backend.address, port: backend.port };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`echo-server-main: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
