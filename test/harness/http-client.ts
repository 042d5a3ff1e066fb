/**
 * HTTP(S) requests for e2e tests: connect to a local address but send any Host header / SNI name, the way a
 * client resolving an Ingress host to the proxy would. Fresh connection per request unless an agent is given.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface HttpGetOptions {
  port: number;
  /** Address to connect to (default 127.0.0.1). */
  host?: string;
  /** Host header to send, e.g. the Ingress rule's host. */
  hostHeader: string;
  /** Request target including any query string, e.g. "/api?x=1". */
  path: string;
  headers?: Record<string, string>;
  /** Default GET. */
  method?: string;
  /**
   * false (default): a fresh connection for this request. Pass an agent from createKeepAliveAgent() to reuse
   * connections across requests, as a browser or a load balancer in front of Envoy would.
   */
  agent?: HttpAgent | false;
  /** Fail the request if no response arrives in time (default 10 s). */
  timeoutMs?: number;
  /** Request body (sent with a content-length). */
  body?: string | Buffer;
  /** Local address to connect from, e.g. 127.0.0.2 to be a different client than 127.0.0.1. */
  localAddress?: string;
}

export interface HttpsGetOptions extends Omit<HttpGetOptions, 'agent'> {
  /** SNI name to send (often equal to hostHeader). */
  servername: string;
  /** CA certificate(s) to trust (PEM); the server's certificate is verified against them and `servername`. */
  ca: string | string[];
  agent?: HttpsAgent | false;
  /** Client certificate and key (PEM) for mutual TLS. */
  clientCert?: { cert: string; key: string };
}

export interface PeerCertificateSummary {
  subjectAltName: string;
  serialNumber: string;
  fingerprint256: string;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body when the response is JSON (content-type application/json). */
  json?: any;
  /** For HTTPS: which certificate the server presented. */
  peerCertificate?: PeerCertificateSummary;
  /** For HTTPS: whether the TLS session was resumed (no full handshake). */
  sessionReused?: boolean;
}

export function httpGet(opts: HttpGetOptions): Promise<HttpResult> {
  return send(
    (onResponse) =>
      httpRequest(
        {
          host: opts.host ?? '127.0.0.1',
          port: opts.port,
          path: opts.path,
          method: opts.method ?? 'GET',
          headers: { ...opts.headers, host: opts.hostHeader },
          agent: opts.agent ?? false,
          ...(opts.localAddress !== undefined ? { localAddress: opts.localAddress } : {}),
        },
        onResponse,
      ),
    opts.timeoutMs,
    opts.body,
  );
}

export function httpsGet(opts: HttpsGetOptions): Promise<HttpResult> {
  return send(
    (onResponse) =>
      httpsRequest(
        {
          host: opts.host ?? '127.0.0.1',
          port: opts.port,
          path: opts.path,
          method: opts.method ?? 'GET',
          headers: { ...opts.headers, host: opts.hostHeader },
          agent: opts.agent ?? false,
          servername: opts.servername,
          ca: opts.ca,
          rejectUnauthorized: true,
          ...(opts.clientCert ? { cert: opts.clientCert.cert, key: opts.clientCert.key } : {}),
          ...(opts.localAddress !== undefined ? { localAddress: opts.localAddress } : {}),
        },
        onResponse,
      ),
    opts.timeoutMs,
    opts.body,
  );
}

/** An agent that keeps connections open between requests (close it with destroy() when done). */
export function createKeepAliveAgent(): HttpAgent {
  return new HttpAgent({ keepAlive: true, maxSockets: 1 });
}

export function createKeepAliveHttpsAgent(): HttpsAgent {
  return new HttpsAgent({ keepAlive: true, maxSockets: 1 });
}

type Starter = (onResponse: (res: IncomingMessage) => void) => ReturnType<typeof httpRequest>;

function send(start: Starter, timeoutMs = 10_000, body?: string | Buffer): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = start((res) => {
      const socket = res.socket as TLSSocket | null;
      const peer = typeof socket?.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const result: HttpResult = { status: res.statusCode ?? 0, headers: res.headers, body };
        if (/^application\/json\b/i.test(res.headers['content-type'] ?? '')) {
          try {
            result.json = JSON.parse(body);
          } catch {
            // Leave json unset: the body is still there for the assertion message.
          }
        }
        if (typeof socket?.isSessionReused === 'function') result.sessionReused = socket.isSessionReused();
        if (peer && Object.keys(peer).length > 0) {
          result.peerCertificate = {
            subjectAltName: peer.subjectaltname ?? '',
            serialNumber: peer.serialNumber,
            fingerprint256: peer.fingerprint256,
          };
        }
        resolve(result);
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
