// Child process of apply-stall.ts: sends one request after another to one host through Envoy (one keep-alive
// connection, so one worker) until a line arrives on stdin, then writes [start ms (absolute), latency ms, status]
// per request to the file named by its third argument. Its own process, so the controller's builds never delay it.
import http from 'node:http';
import { writeFileSync } from 'node:fs';

const [port, host, out] = [Number(process.argv[2]), process.argv[3]!, process.argv[4]!];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const samples: [number, number, number][] = [];
let stopped = false;
process.stdin.once('data', () => (stopped = true));
const now = (): number => performance.timeOrigin + performance.now();
while (!stopped) {
  const start = now();
  const status = await new Promise<number>((resolve) => {
    const request = http.get({ port, host: '127.0.0.1', path: '/', headers: { host }, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
  });
  samples.push([start, now() - start, status]);
}
writeFileSync(out, JSON.stringify(samples));
process.exit(0);
