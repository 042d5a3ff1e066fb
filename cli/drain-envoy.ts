// Draining an Envoy before it stops: fail its health check (its readiness listener's /ready turns 503, so the
// Service or load balancer stops sending new connections), start a graceful drain of its listeners (Envoy asks
// clients to close: `connection: close` on HTTP/1, GOAWAY on HTTP/2, then stops listening after --drain-time-s),
// and wait that long. Used by `run` on SIGTERM for the Envoy in its pod (--envoy-admin-url) and by the
// `drain-envoy` command, the drainer container beside Envoy in pods without a controller (the Envoy image has no
// HTTP client to do it in a preStop hook).
import { postEnvoyAdmin } from './envoy-admin.js';
import type { Logger } from './logger.js';

export interface DrainEnvoyOptions {
  /** Envoy's admin interface, e.g. http://127.0.0.1:9901 */
  adminUrl: string;
  /** How long to wait after starting the drain: Envoy's --drain-time-s. */
  drainSeconds: number;
  log: Pick<Logger, 'info'>;
}

async function post(adminUrl: string, path: string): Promise<void> {
  const url = `${adminUrl.replace(/\/+$/, '')}${path}`;
  try {
    await postEnvoyAdmin(adminUrl, path);
  } catch (err: unknown) {
    if (err instanceof Error && /^HTTP \d+$/.test(err.message)) throw new Error(`POST ${url}: ${err.message}`);
    // fetch says only "fetch failed"; the cause (ECONNREFUSED, timeout) is what helps.
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    throw new Error(`cannot reach Envoy's admin interface: POST ${url}: ${cause}`);
  }
}

/** Rejects when Envoy's admin interface does not accept the two calls (the wait is skipped then). */
export async function drainEnvoy(o: DrainEnvoyOptions): Promise<void> {
  await post(o.adminUrl, '/healthcheck/fail');
  await post(o.adminUrl, '/drain_listeners?graceful');
  o.log.info({ adminUrl: o.adminUrl, seconds: o.drainSeconds }, 'Envoy draining');
  await new Promise((resolve) => setTimeout(resolve, o.drainSeconds * 1000));
}

/** Parses --drain-seconds: a non-negative number. */
export function parseDrainSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0) throw new Error(`--drain-seconds must be a number of seconds, got ${value}`);
  return seconds;
}
