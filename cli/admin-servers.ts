// The controller's HTTP endpoints by audience: the probes for the kubelet (--health-address, often the pod IP),
// /metrics for Prometheus (--metrics-address) and the /debug pages for operators (--debug-address, loopback by
// default: /debug/xds and /debug/ir show the whole configuration). Flags naming the same address share one server.
import { parseHostPort } from './address.js';
import { startAdminServer, type AdminServer, type Readiness } from './admin-server.js';
import type { ControlPlane } from './debug-views.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';

/** Loopback: reachable with `kubectl port-forward` (which connects inside the pod), not from the network. */
export const defaultDebugAddress = '127.0.0.1:9101';

export type AdminRole = 'health' | 'metrics' | 'debug';

export interface AdminAddresses {
  health?: string;
  metrics?: string;
  debug?: string;
  /**
   * The debug address is the default, not asked for: if it is taken (another controller on this host), run
   * without the debug pages and warn, rather than fail. An address given on the command line must bind.
   */
  debugIsDefault?: boolean;
}

export interface AdminContent {
  ready: Readiness;
  controlPlane: ControlPlane;
  metrics?: ControllerMetrics;
  log: Logger;
}

const pathsOf: Record<AdminRole, string[]> = {
  health: ['/healthz', '/readyz'],
  metrics: ['/metrics'],
  debug: ['/debug/ui', '/debug/xds', '/debug/clients', '/debug/ir', '/debug/gateway-api'],
};

/** Which roles each distinct address serves, in flag order (health, metrics, debug). */
export function groupAdminAddresses(a: AdminAddresses): Map<string, Set<AdminRole>> {
  const groups = new Map<string, Set<AdminRole>>();
  for (const role of ['health', 'metrics', 'debug'] as const) {
    const address = a[role];
    if (address === undefined) continue;
    const roles = groups.get(address) ?? new Set<AdminRole>();
    roles.add(role);
    groups.set(address, roles);
  }
  return groups;
}

/** The paths a server with these roles answers (the probes are on every server: they reveal nothing). */
export function adminPaths(roles: ReadonlySet<AdminRole>): string[] {
  const all = new Set<AdminRole>(['health', ...roles]);
  return (['health', 'metrics', 'debug'] as const).filter((r) => all.has(r)).flatMap((r) => pathsOf[r]);
}

export async function startAdminServers(addresses: AdminAddresses, content: AdminContent): Promise<AdminServer[]> {
  const servers: AdminServer[] = [];
  try {
    for (const [address, roles] of groupAdminAddresses(addresses)) {
      const flag = (['health', 'metrics', 'debug'] as const).filter((r) => roles.has(r)).map((r) => `--${r}-address`);
      const a = parseHostPort(address, flag[0]!);
      let server: AdminServer;
      try {
        server = await startAdminServer({
          host: a.host,
          port: a.port,
          ready: content.ready,
          log: content.log,
          ...(roles.has('metrics') && content.metrics ? { metrics: content.metrics } : {}),
          ...(roles.has('debug') ? { controlPlane: content.controlPlane } : {}),
        });
      } catch (err: unknown) {
        const onlyDefaultDebug = addresses.debugIsDefault === true && roles.size === 1 && roles.has('debug');
        if (onlyDefaultDebug && (err as { code?: unknown }).code === 'EADDRINUSE') {
          content.log.warn({ address }, `debug address in use: no /debug pages (choose one with --debug-address, or "off")`);
          continue;
        }
        throw new Error(`${flag.join('/')} ${address}: ${err instanceof Error ? err.message : String(err)}`);
      }
      servers.push(server);
      content.log.info({ address: a.host, port: server.port, flags: flag, paths: adminPaths(roles) }, 'admin endpoints listening');
    }
  } catch (err: unknown) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return servers;
}
