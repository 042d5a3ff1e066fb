// The controller's admin HTTP server: /healthz and /readyz for probes, /metrics for Prometheus, and the
// read-only /debug endpoints (JSON, and the /debug/ui page), each only when given what it serves (admin-servers.ts
// gives /metrics and /debug separate addresses). Nothing here changes state; private keys are redacted in every
// document (see debug-views.ts).
import http from 'node:http';
import { debugHostAllowed } from './debug-host-check.js';
import { clientsView, gatewayApiDebugView, irView, xdsView, type ControlPlane } from './debug-views.js';
import type { ControllerMetrics } from './metrics.js';
import { renderStatusPage, statusPageModel } from './status-page.js';

export type Readiness = () => { ready: boolean; reason: string };

export interface AdminServerOptions {
  host: string;
  /** 0 lets the OS pick. */
  port: number;
  ready: Readiness;
  /** Serves /metrics when given. */
  metrics?: ControllerMetrics;
  /** Serves /debug/* when given. */
  controlPlane?: ControlPlane;
  log?: { warn(obj: object, msg: string): void };
}

export interface AdminServer {
  port: number;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(`${JSON.stringify(value, null, 2)}\n`);
}

function text(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
}

async function handle(o: AdminServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return text(res, 405, 'method not allowed\n');
  if (path === '/healthz') return text(res, 200, 'ok\n');
  if (path === '/readyz') {
    const { ready, reason } = o.ready();
    return text(res, ready ? 200 : 503, `${reason}\n`);
  }
  if (path === '/metrics' && o.metrics) {
    const { contentType, body } = await o.metrics.scrape();
    res.writeHead(200, { 'content-type': contentType }).end(body);
    return;
  }
  const cp = o.controlPlane;
  if (cp && (path === '/debug' || path?.startsWith('/debug/')) && !debugHostAllowed(req.headers.host, o.host)) {
    // DNS rebinding: a page's own name pointing at a forwarded port (debug-host-check.ts).
    return text(res, 421, 'misdirected request: /debug answers only to localhost or its configured address\n');
  }
  if (cp) {
    switch (path) {
      case '/debug/xds':
        return json(res, xdsView(cp));
      case '/debug/clients':
        return json(res, clientsView(cp));
      case '/debug/ir':
        return json(res, irView(cp));
      case '/debug/gateway-api':
        return json(res, gatewayApiDebugView(cp));
      case '/debug':
      case '/debug/':
      case '/debug/ui': {
        const html = renderStatusPage(statusPageModel(cp, o.ready(), new Date()));
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
        return;
      }
    }
  }
  text(res, 404, 'not found\n');
}

export function startAdminServer(o: AdminServerOptions): Promise<AdminServer> {
  const server = http.createServer((req, res) => {
    handle(o, req, res).catch((err: unknown) => {
      o.log?.warn({ err, url: req.url }, 'admin request failed');
      if (!res.headersSent) text(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : o.port;
      resolve({
        port,
        url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}
