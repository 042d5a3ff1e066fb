/**
 * An HTTP(S) server that stands for one Kubernetes Service in e2e tests: every request gets 200 and a JSON
 * description of what arrived, so routing assertions can say exactly which service saw which path and Host;
 * `/status/NNN` gets status NNN and an empty body (like httpbun, for error handling cases).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer as createHttp2SecureServer, createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

export interface EchoBackendOptions {
  /** Name reported in the body and the `x-echo-service` header. */
  service: string;
  /** Address to bind (default 127.0.0.1); on Linux any 127.x.y.z works, handy for several endpoints on one port. */
  host?: string;
  /** Port to bind (default 0: chosen by the OS). */
  port?: number;
  /**
   * Serve HTTPS with this certificate and key (PEM); with `clientCa`, ask clients for a certificate and refuse the
   * handshake without one that this CA issued (a backend that authenticates the proxy).
   */
  tls?: { cert: string; key: string; clientCa?: string };
  /** Speak HTTP/2: with `tls`, h2 by ALPN (HTTP/1.1 still accepted); without, h2c with prior knowledge only. */
  http2?: boolean;
  /** Answer the first N requests with 503 (a backend that fails, then recovers). */
  failFirst?: number;
  /**
   * Also behave as httpbin's `/basic-auth/<user>/<password>` (the authorization service of ingress-nginx's auth
   * e2e tests): a path starting with it gets 200 with the right Basic credentials, else 401 with a Basic challenge;
   * and `/cookies/set/<name>/<value>`: 200 with that Set-Cookie.
   */
  httpbin?: boolean;
}

/** httpbin's `/cookies/set/<name>/<value>...` (the cookie-setting auth service of auth.go): the Set-Cookie to send. */
function httpbinCookie(path: string): string | undefined {
  const m = /^\/cookies\/set\/([^/?]+)\/([^/?]+)/.exec(path);
  return m === null ? undefined : `${m[1]}=${m[2]}`;
}

/** httpbin's answer to `/basic-auth/<user>/<password>...`, or undefined for other paths. */
function httpbinBasicAuth(path: string, authorization: string | undefined): number | undefined {
  const m = /^\/basic-auth\/([^/?]+)\/([^/?]+)/.exec(path);
  if (m === null) return undefined;
  const expected = `Basic ${Buffer.from(`${decodeURIComponent(m[1] ?? '')}:${decodeURIComponent(m[2] ?? '')}`).toString('base64')}`;
  return authorization === expected ? 200 : 401;
}

/** Request header asking the echo backend to wait this many milliseconds before answering. */
export const ECHO_DELAY_HEADER = 'x-echo-delay-ms';

/**
 * Request header asking the echo backend to add a response header: `Name: value` (as a backend that sets its own
 * Strict-Transport-Security or Content-Type would).
 */
export const ECHO_RESPONSE_HEADER = 'x-echo-response-header';

/** Request header asking the echo backend to answer this many bytes (`a`s) instead of its JSON description. */
export const ECHO_BODY_BYTES_HEADER = 'x-echo-body-bytes';

/** What an echo backend answers, as JSON. */
export interface EchoResponse {
  service: string;
  method: string;
  /** The full request target, query string included. */
  path: string;
  /** The Host header (or HTTP/2 :authority) as received. */
  host: string;
  headers: Record<string, string | string[] | undefined>;
  /** `1.1` or `2.0`. */
  httpVersion: string;
  /** Whether the request came over TLS, and the SNI name the client sent ('' if none). */
  tls: boolean;
  sni: string;
  /** With `tls.clientCa`: the subject CN of the client's certificate. */
  clientCertificateCN?: string;
}

export interface EchoBackend {
  address: string;
  port: number;
  /** Base URL, e.g. http://127.0.0.1:12345 */
  url: string;
  service: string;
  /** Number of requests answered so far. */
  readonly requests: number;
  /** Number of connections accepted so far (tells fresh connections from reused keep-alive ones). */
  readonly connections: number;
  /** Stops listening and drops open connections, so later requests fail to connect. */
  close(): Promise<void>;
}

export const ECHO_SERVICE_HEADER = 'x-echo-service';

export async function startEchoBackend(opts: EchoBackendOptions): Promise<EchoBackend> {
  const host = opts.host ?? '127.0.0.1';
  let requests = 0;
  let connections = 0;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    // Drain the body before answering so clients that send one see a clean exchange.
    req.resume();
    req.on('end', () => {
      requests += 1;
      const socket = req.socket as Partial<TLSSocket>;
      const reply: EchoResponse = {
        service: opts.service,
        method: req.method ?? '',
        path: req.url ?? '',
        host: req.headers.host ?? String(req.headers[':authority'] ?? ''),
        headers: req.headers,
        httpVersion: req.httpVersion,
        tls: socket.encrypted === true,
        sni: typeof socket.servername === 'string' ? socket.servername : '',
      };
      const clientCN = opts.tls?.clientCa === undefined ? undefined : socket.getPeerCertificate?.()?.subject?.CN;
      if (typeof clientCN === 'string') reply.clientCertificateCN = clientCN;
      const failing = requests <= (opts.failFirst ?? 0);
      // `/status/NNN` answers NNN with an empty body, as httpbun (ingress-nginx's e2e error backend) does.
      const asked = /^\/status\/([1-5]\d\d)(?:[/?]|$)/.exec(req.url ?? '');
      if (asked !== null && !failing) {
        res.writeHead(Number(asked[1]), { 'content-length': 0, [ECHO_SERVICE_HEADER]: opts.service });
        res.end();
        return;
      }
      const bodyBytes = Number(req.headers[ECHO_BODY_BYTES_HEADER] ?? Number.NaN);
      const body = Number.isInteger(bodyBytes) && bodyBytes >= 0 && bodyBytes <= 1 << 20 ? 'a'.repeat(bodyBytes) : JSON.stringify(reply);
      const extra = /^([^:\s]+):\s*(.*)$/.exec(String(req.headers[ECHO_RESPONSE_HEADER] ?? ''));
      const httpbin = opts.httpbin === true ? httpbinBasicAuth(req.url ?? '', req.headers.authorization) : undefined;
      const answer = (): void => {
        res.writeHead(failing ? 503 : (httpbin ?? 200), {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          [ECHO_SERVICE_HEADER]: opts.service,
          ...(extra === null ? {} : { [(extra[1] as string).toLowerCase()]: extra[2] as string }),
          ...(httpbin === 401 ? { 'www-authenticate': 'Basic realm="Fake Realm"' } : {}),
          ...(opts.httpbin === true && httpbinCookie(req.url ?? '') !== undefined ? { 'set-cookie': httpbinCookie(req.url ?? '') } : {}),
        });
        res.end(body);
      };
      const delayMs = Number(req.headers[ECHO_DELAY_HEADER] ?? 0);
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  };
  // The http2 compatibility API hands the same request/response shape to the handler.
  const h2handler = handler as unknown as Parameters<typeof createHttp2Server>[1];
  const server: Server = (
    opts.http2
      ? opts.tls
        ? createHttp2SecureServer({ cert: opts.tls.cert, key: opts.tls.key, allowHTTP1: true }, h2handler)
        : createHttp2Server(h2handler)
      : opts.tls
        ? createHttpsServer(
            { cert: opts.tls.cert, key: opts.tls.key, ...(opts.tls.clientCa === undefined ? {} : { ca: opts.tls.clientCa, requestCert: true, rejectUnauthorized: true }) },
            handler,
          )
        : createHttpServer(handler)
  ) as Server;

  // For TLS, count handshaken connections, so a failed handshake is not mistaken for a served client.
  const sockets = new Set<Socket>();
  server.on(opts.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    address,
    port,
    url: `${opts.tls ? 'https' : 'http'}://${address}:${port}`,
    service: opts.service,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections (e.g. Envoy's upstream pool) would otherwise keep the server half alive.
        if (typeof server.closeAllConnections === 'function') server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
