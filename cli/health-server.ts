// /healthz (the process and its event loop answer) and /readyz (sources synced, first snapshot built, xDS
// serving) for Kubernetes probes.
import http from 'node:http';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export function startHealthServer(host: string, port: number, isReady: () => { ready: boolean; reason: string }): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (url === '/readyz') {
      const { ready, reason } = isReady();
      res.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(`${reason}\n`);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
