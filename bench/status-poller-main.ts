// A client in its own process that polls Envoy every millisecond until a host answers 200 (the convergence
// scenario's "first 200"). In the benchmark's process, a poll a millisecond would compete with the controller it
// measures for the same event loop. Commands on stdin, one JSON line each: {"port", "host"}; answer on stdout:
// {"okAtMs"} in CLOCK_MONOTONIC milliseconds (process.hrtime), comparable across processes on one machine.
import { request, Agent } from 'node:http';
import { createInterface } from 'node:readline';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function status(port: number, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function pollUntilOk(port: number, host: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if ((await status(port, host)) === 200) return Number(process.hrtime.bigint()) / 1e6;
    if (performance.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 1));
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { port, host, timeoutMs = 60_000 } = JSON.parse(line) as { port: number; host: string; timeoutMs?: number };
  void pollUntilOk(port, host, timeoutMs).then((okAtMs) => process.stdout.write(`${JSON.stringify({ okAtMs: okAtMs ?? null })}\n`));
});
lines.on('close', () => process.exit(0));
process.stdout.write('{"ready":true}\n');
