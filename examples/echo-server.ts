// A tiny HTTP server standing for one pod of a Service in the demo: it answers every request with a JSON
// description of what arrived (service, pod, method, path, host), so a curl shows where a request was routed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoServerOptions {
  /** The Service this server stands for (reported as `service` and in the `x-echo-service` header). */
  service: string;
  /** The pod it plays (reported as `pod`). */
  pod: string;
  host: string;
  /** 0 lets the OS choose. */
  port: number;
  /** Status of every answer (a default backend answers 404, as ingress-nginx's default-http-backend does). */
  status?: number;
}

export interface EchoServer {
  service: string;
  pod: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

export async function startEchoServer(options: EchoServerOptions): Promise<EchoServer> {
  const status = options.status ?? 200;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Read the body before answering so a client that sends one sees a clean exchange.
    req.resume();
    req.on('end', () => {
      const body = `${JSON.stringify({
        service: options.service,
        pod: options.pod,
        method: req.method ?? '',
        path: req.url ?? '',
        host: req.headers.host ?? '',
        forwardedProto: req.headers['x-forwarded-proto'] ?? '',
      })}\n`;
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'x-echo-service': options.service,
        'x-echo-pod': options.pod,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    service: options.service,
    pod: options.pod,
    host: options.host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Envoy keeps upstream connections alive; without this close() would wait for them.
        server.closeAllConnections();
      }),
  };
}
