/**
 * The echo backend as a pod's program (the echo image of scripts/kube/build-images.sh): serves on 0.0.0.0:$PORT
 * (default 8080) as the Service named $ECHO_SERVICE (default "echo") until SIGTERM. Unlike echo-server-main.ts it
 * does not exit when stdin closes: a container's stdin is closed from the start.
 */
import { startEchoBackend } from './echo-backend.js';

async function main(): Promise<void> {
  const port = Number(process.env['PORT'] ?? '8080');
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`invalid PORT ${process.env['PORT']}`);
  const service = process.env['ECHO_SERVICE'] ?? 'echo';
  const backend = await startEchoBackend({ service, host: '0.0.0.0', port });
  const stop = (): void => void backend.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ service, port: backend.port })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`echo-pod-main: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
