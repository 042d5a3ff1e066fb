// `run`: checks its flags, starts the control plane (standalone or Kubernetes) and the servers beside it, then
// optionally a supervised Envoy and the overload watch; on SIGTERM it hands on leadership, drains Envoy while xDS
// is still served, and stops.
import type { Command } from 'commander';
import { bootstrapOf, memoryLimitOfFlags, parseDnsFilterAddress } from './bootstrap-flags.js';
import { parsePort } from './address.js';
import { drainEnvoy } from './drain-envoy.js';
import { envoyFindsCgroupMemory, memoryLimitForHost } from './envoy-memory-limit.js';
import type { EnvoySupervisor } from './envoy-supervisor.js';
import { createLogger } from './logger.js';
import { startRunController } from './run-controller.js';
import { type RunFlags, runOptionsOf } from './run-flags.js';
import { startRunServers } from './run-servers.js';

export async function runCommand(flags: RunFlags, command: Command): Promise<void> {
  const log = createLogger(flags.logLevel);
  const { createXdsServerCredentials } = await import('./xds-server-credentials.js');
  const { ControllerMetrics } = await import('./metrics.js');
  const { EnvoySupervisor } = await import('./envoy-supervisor.js');
  const { findEnvoyBinary } = await import('./validate-with-envoy.js');
  // The supervised Envoy with no address asked for: xDS and its admin interface on private Unix sockets.
  const addressFlags = ['xdsAddress', 'envoyAdminAddress', 'envoyAdminPort'] as const;
  if (flags.envoy && addressFlags.every((name) => command.getOptionValueSource(name) === 'default')) {
    const { createPrivateSockets } = await import('./private-sockets.js');
    const sockets = createPrivateSockets();
    process.on('exit', () => sockets.remove());
    flags.xdsAddress = sockets.xdsAddress;
    flags.envoyAdminAddress = sockets.adminAddress;
  }
  const options = runOptionsOf(flags);
  const { xds, drainSeconds, overloadCheckSeconds, tlsFiles, clientSans } = options;
  const xdsTls = tlsFiles ? { xdsCredentials: createXdsServerCredentials(tlsFiles), xdsClientSans: clientSans } : undefined;
  const metrics = flags.metricsAddress ? new ControllerMetrics() : undefined;
  const controller = await startRunController(flags, options, xdsTls, log, metrics);
  const health = await startRunServers(flags, command, controller, log, metrics);
  // Envoy resolves upstream names through this (the bootstrap's --upstream-dns-filter): local addresses left out.
  if (flags.upstreamDnsFilter !== undefined) {
    const { startUpstreamDnsFilter } = await import('../controller/upstream-dns/upstream-dns-filter.js');
    const address = parseDnsFilterAddress(flags.upstreamDnsFilter);
    const servers = (flags.upstreamDnsServers ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const filter = await startUpstreamDnsFilter({ ...address, ...(servers.length > 0 ? { servers } : {}), log });
    flags.upstreamDnsFilter = `${address.host.includes(':') ? `[${address.host}]` : address.host}:${filter.port}`;
    log.info({ address: address.host, port: filter.port }, 'upstream DNS filter listening');
  } else if (flags.upstreamDnsServers !== undefined) {
    throw new Error('--upstream-dns-servers needs --upstream-dns-filter');
  }
  let envoy: EnvoySupervisor | undefined;
  /** The Envoy whose overload state is watched: the supervised one, else the sidecar of --envoy-admin-url. */
  let watchedAdminUrl = flags.envoyAdminUrl;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      // Another replica takes over status and Events at once; this one keeps serving xDS to its Envoy.
      await controller.stopLeading();
      log.info('stopped leading; draining Envoy while xDS is still served');
      // Envoy drains first while xDS is still served, so no request meets a half-configured proxy.
      if (envoy) await envoy.stop();
      else if (flags.envoyAdminUrl) {
        await drainEnvoy({ adminUrl: flags.envoyAdminUrl, drainSeconds, log }).catch((err: unknown) =>
          log.warn({ err, adminUrl: flags.envoyAdminUrl }, 'could not drain Envoy'),
        );
      }
      await controller.stop();
      await health?.close();
      process.exit(0);
    } catch (err: unknown) {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  // Handlers go in before Envoy starts, so a signal during its start-up still stops it.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  if (flags.envoy) {
    const adminPort = parsePort(flags.envoyAdminPort, '--envoy-admin-port');
    watchedAdminUrl = flags.envoyAdminAddress.startsWith('unix:') ? flags.envoyAdminAddress : `http://${flags.envoyAdminAddress}:${adminPort}`;
    const memory = memoryLimitOfFlags(flags);
    const hostMemory = memoryLimitForHost(memory, envoyFindsCgroupMemory());
    if (hostMemory !== memory) {
      log.warn(
        'Envoy cannot read its memory use and limit from /sys/fs/cgroup here (not in a container on a cgroup v2 host): it runs without a memory limit; --max-heap-bytes sets a fixed one',
      );
    }
    envoy = new EnvoySupervisor(
      {
        envoyBin: flags.envoyBin ?? (await findEnvoyBinary()),
        bootstrap: bootstrapOf({ ...flags, xdsAddress: xds.host.startsWith('unix:') ? xds.host : `${xds.host}:${controller.xdsPort}` }, hostMemory),
        adminUrl: watchedAdminUrl,
        logLevel: flags.envoyLogLevel,
        drainSeconds,
      },
      log,
    );
    await envoy.start();
  }
  if (watchedAdminUrl !== undefined && overloadCheckSeconds > 0) {
    const { watchEnvoyOverload } = await import('./envoy-overload-watch.js');
    watchEnvoyOverload({ adminUrl: watchedAdminUrl, intervalMs: overloadCheckSeconds * 1000, log, ...(metrics ? { metrics } : {}) });
  }
}
