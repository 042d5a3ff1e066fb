// run's HTTP servers beside xDS: the probes may listen where the kubelet reaches them (the pod IP), /metrics where
// Prometheus scrapes it; /debug shows the configuration (routes, connected Envoys; never keys), so it has its own
// address, loopback by default. Flags naming the same address share one server.
import type { Command } from 'commander';
import { startAdminServers } from './admin-servers.js';
import type { Logger } from './logger.js';
import type { ControllerMetrics } from './metrics.js';
import type { RunController } from './run-controller.js';
import type { RunFlags } from './run-flags.js';

/** Starts the servers the flags ask for; resolves with what closes them, or undefined when there are none. */
export async function startRunServers(
  flags: RunFlags,
  command: Command,
  controller: RunController,
  log: Logger,
  metrics: ControllerMetrics | undefined,
): Promise<{ close(): Promise<void> } | undefined> {
  const adminServers = await startAdminServers(
    {
      ...(flags.healthAddress !== undefined ? { health: flags.healthAddress } : {}),
      ...(flags.metricsAddress !== undefined ? { metrics: flags.metricsAddress } : {}),
      ...(flags.debugAddress !== 'off' ? { debug: flags.debugAddress } : {}),
      debugIsDefault: command.getOptionValueSource('debugAddress') === 'default',
    },
    { ready: () => controller.ready(), controlPlane: controller, log, ...(metrics ? { metrics } : {}) },
  );
  return adminServers.length > 0 ? { close: () => Promise.all(adminServers.map((s) => s.close())).then(() => undefined) } : undefined;
}
