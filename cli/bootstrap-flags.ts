// The flags that say how Envoy reaches us and how it is limited, shared by `bootstrap` (which prints Envoy's
// bootstrap) and `run --envoy` (which starts Envoy with it), and the bootstrap they make.
import { isIP } from 'node:net';
import { type Command, Option } from 'commander';
import { buildBootstrap, defaultOverloadLimits, type MemoryLimit, type XdsClientTls } from '../envoy/bootstrap.js';
import { parseHostPort, parsePort } from './address.js';
import { parseCount } from './controller-options.js';
import { memoryLimitOfFlag } from './envoy-memory-limit.js';

export interface BootstrapFlags {
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
export function parseDnsFilterAddress(value: string): { host: string; port: number } {
  const address = parseHostPort(value, '--upstream-dns-filter');
  if (isIP(address.host) === 0) throw new Error(`--upstream-dns-filter must be IP:PORT, got ${JSON.stringify(value)}`);
  return address;
}

/** The three --xds-tls-* files, all or none. */
export function xdsTlsFiles(flags: BootstrapFlags): { certFile: string; keyFile: string; caFile: string } | undefined {
  const { xdsTlsCert: certFile, xdsTlsKey: keyFile, xdsTlsCa: caFile } = flags;
  if (certFile === undefined && keyFile === undefined && caFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined || caFile === undefined) {
    throw new Error('--xds-tls-cert, --xds-tls-key and --xds-tls-ca go together');
  }
  return { certFile, keyFile, caFile };
}

export function addBootstrapFlags(cmd: Command): Command {
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
export function bootstrapOf(flags: BootstrapFlags, memory = memoryLimitOfFlags(flags)): Record<string, unknown> {
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

export function memoryLimitOfFlags(flags: BootstrapFlags): MemoryLimit {
  return memoryLimitOfFlag(flags.maxHeapBytes !== undefined ? parseCount(flags.maxHeapBytes, '--max-heap-bytes', 0, Number.MAX_SAFE_INTEGER) : undefined);
}

export function xdsClientTlsOf(flags: BootstrapFlags, files: { certFile: string; keyFile: string; caFile: string }): XdsClientTls {
  return { ...files, sdsDir: flags.xdsTlsSdsDir ?? '/etc/envoy', ...(flags.xdsTlsServerName ? { serverName: flags.xdsTlsServerName } : {}) };
}
