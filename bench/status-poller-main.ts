// A client in its own process that polls Envoy every millisecond until a host answers 200 (the convergence
// scenario's "first 200"), or until a 200 comes from one echo backend (`"service"`, matched against its
// x-echo-service header: "first request reaching the new endpoint"). In the benchmark's process, a poll a
// millisecond would compete with the controller it measures for the same event loop. Commands on stdin, one JSON
// line each: {"port", "host", "service"?}; answer on stdout: {"okAtMs"} in CLOCK_MONOTONIC milliseconds
// (process.hrtime), comparable across processes on one machine.
import { request, Agent } from 'node:http';
import { createInterface } from 'node:readline';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Whether `host` answered 200 (from `service`, when given). */
function ok(port: number, host: string, service: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 && (service === undefined || res.headers['x-echo-service'] === service)));
      res.on('error', () => resolve(false));
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function pollUntilOk(port: number, host: string, timeoutMs: number, service: string | undefined): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await ok(port, host, service)) return Number(process.hrtime.bigint()) / 1e6;
    if (performance.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 1));
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { port, host, timeoutMs = 60_000, service } = JSON.parse(line) as { port: number; host: string; timeoutMs?: number; service?: string };
  void pollUntilOk(port, host, timeoutMs, service).then((okAtMs) => process.stdout.write(`${JSON.stringify({ okAtMs: okAtMs ?? null })}\n`));
});
lines.on('close', () => process.exit(0));
process.stdout.write('{"ready":true}\n');
