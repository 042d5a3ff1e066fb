import { isIP } from 'node:net';
import path from 'node:path';
import { buildSocketAddress } from './address.js';
import { buildAdsConfigSource } from './config-source.js';
import { buildLayeredRuntime } from './layered-runtime.js';
import type { ResourceJson } from './resource-types.js';

export const xdsClusterName = 'xds_cluster';

const httpProtocolOptionsType = 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions';

export interface BootstrapOptions {
  nodeId: string;
  nodeCluster: string;
  /** IP address or DNS name of the control plane's xDS server. */
  xdsHost: string;
  xdsPort: number;
  adminAddress: string;
  /** 0 lets the OS choose (read it back with `--admin-address-path`). */
  adminPort: number;
  /** State of the world (`GRPC`) or incremental (`DELTA_GRPC`) ADS. */
  xdsProtocol: 'sotw' | 'delta';
  /**
   * Port of a static listener answering `GET /ready` (200 while serving, 503 once draining or failed), for the
   * kubelet's readiness probe: the admin interface itself stays on loopback. Static listeners only accept once
   * Envoy finished initialising (first xDS config applied), so this is also "has config".
   */
  readinessPort?: number;
  /** Limits the overload manager enforces (default: defaultOverloadLimits). */
  overload?: OverloadLimits;
  /** Mutual TLS to the xDS server (when Envoy runs in another pod than the controller). */
  xdsTls?: XdsClientTls;
  /**
   * The controller's upstream DNS filter (controller/upstream-dns/): Envoy resolves every name through it, which
   * leaves out loopback and link-local addresses. Only where the controller runs beside Envoy.
   */
  upstreamDnsFilter?: { host: string; port: number };
}

/** Envoy's DNS resolver: c-ares asking only `filter` (never the system's resolvers: they would answer unfiltered). */
function buildDnsResolverConfig(filter: { host: string; port: number }): ResourceJson {
  return {
    name: 'envoy.network.dns_resolver.cares',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.network.dns_resolver.cares.v3.CaresDnsResolverConfig',
      resolvers: [{ socket_address: { address: filter.host, port_value: filter.port, protocol: 'UDP' } }],
      use_resolvers_as_fallback: false,
    },
  };
}

/**
 * Files Envoy presents to and checks the xDS server with (a Kubernetes TLS Secret's layout, mounted). Envoy reads
 * them through two SDS files (buildXdsTlsSdsFiles) that watch the certificates' directory, so a rotated Secret
 * (the kubelet swaps the volume's `..data` symlink) is used for the next xDS connection without a restart.
 */
export interface XdsClientTls {
  certFile: string;
  keyFile: string;
  /** CA that signed the xDS server's certificate. */
  caFile: string;
  /** Name the server certificate must carry (SNI and SAN check); default: the xDS host. */
  serverName?: string;
  /** Directory Envoy reads the SDS files from (where the bootstrap is mounted, e.g. /etc/envoy). */
  sdsDir: string;
}

/** Names of the SDS files (in XdsClientTls.sdsDir) and of the secrets they hold. */
export const xdsTlsSds = {
  certificate: { file: 'xds-client-certificate.yaml', secret: 'xds_client_certificate' },
  trustedCa: { file: 'xds-trusted-ca.yaml', secret: 'xds_trusted_ca' },
} as const;

const secretType = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';

/**
 * The SDS files the bootstrap's xDS cluster reads its client certificate and trusted CA from, by file name: each is
 * a DiscoveryResponse with one Secret whose files are re-read when something is moved into their directory (the
 * kubelet's atomic `..data` swap; Envoy's default, watching the files themselves, misses it).
 */
export function buildXdsTlsSdsFiles(tls: XdsClientTls): Record<string, ResourceJson> {
  return {
    [xdsTlsSds.certificate.file]: sdsFileOf(xdsTlsSds.certificate.secret, {
      tls_certificate: {
        certificate_chain: { filename: tls.certFile },
        private_key: { filename: tls.keyFile },
        watched_directory: { path: path.posix.dirname(tls.certFile) },
      },
    }),
    [xdsTlsSds.trustedCa.file]: sdsFileOf(xdsTlsSds.trustedCa.secret, {
      validation_context: {
        trusted_ca: { filename: tls.caFile },
        watched_directory: { path: path.posix.dirname(tls.caFile) },
      },
    }),
  };
}

/** An SDS file: a DiscoveryResponse holding the one Secret `name` with these fields. */
function sdsFileOf(name: string, secret: ResourceJson): ResourceJson {
  return { resources: [{ '@type': secretType, name, ...secret }] };
}

function buildFileSdsConfig(sdsDir: string, name: string, file: string): ResourceJson {
  return {
    name,
    sds_config: {
      // The directory too: a ConfigMap volume updates by the same symlink swap.
      path_config_source: { path: path.posix.join(sdsDir, file), watched_directory: { path: sdsDir } },
      resource_api_version: 'V3',
    },
  };
}

/**
 * What Envoy's memory pressure is measured against (the overload manager's memory monitor).
 * - `cgroup`: Envoy's cgroup, i.e. its container: memory in use (cgroup v2 `memory.current`, v1
 *   `memory.usage_in_bytes`: heap, thread stacks, kernel socket buffers, page cache) over the container's memory
 *   limit (`memory.max`, `memory.limit_in_bytes`), read again every refresh. So raising the container's limit is all
 *   a large configuration needs; without a limit (`max`) the pressure is 0. Envoy reads `/sys/fs/cgroup` and will not
 *   start where neither cgroup layout is mounted there (see cli/envoy-memory-limit.ts).
 * - `heap`: Envoy's heap (tcmalloc) against a fixed size, whatever the container's limit.
 * - `none`: no memory monitor, no memory actions.
 */
export type MemoryLimit = { source: 'cgroup' } | { source: 'heap'; maxBytes: number } | { source: 'none' };

/** The overload manager's resource limits. */
export interface OverloadLimits {
  /**
   * Memory at which Envoy shrinks its heap (95 % of the limit) and then answers 503 to new requests (98 %); the
   * default follows the container's memory limit.
   */
  memory: MemoryLimit;
  /** Downstream connections across all listeners (the readiness listener is exempt); 0 turns the limit off. */
  maxDownstreamConnections: number;
  /**
   * With a memory limit: from 85 % of it, reset the streams holding the most buffer memory (1 MiB and more), more
   * of them as memory fills (envoy.overload_actions.reset_high_memory_stream). Default true.
   */
  resetHighMemoryStreams?: boolean;
  /**
   * With a memory limit: from 85 % of it, shorten the idle timeout of client connections, down to 2 s at 95 %
   * (envoy.overload_actions.reduce_timeouts), so idle connections stop holding memory. Default true.
   */
  reduceTimeouts?: boolean;
}

export const defaultOverloadLimits: OverloadLimits = {
  // The container's own limit (deploy/ gives Envoy 1 GiB): Envoy sheds load before it is OOM-killed, and a user who
  // raises the container's limit for a large configuration raises this one with it.
  memory: { source: 'cgroup' },
  maxDownstreamConnections: 50_000,
};

export const memoryMonitors = {
  cgroup: 'envoy.resource_monitors.cgroup_memory',
  heap: 'envoy.resource_monitors.fixed_heap',
} as const;
export const downstreamConnectionsMonitor = 'envoy.resource_monitors.global_downstream_max_connections';

/** The overload manager's memory monitor for `limit`, or undefined for none. */
function buildMemoryMonitor(limit: MemoryLimit): ResourceJson | undefined {
  switch (limit.source) {
    case 'cgroup':
      // No max_memory_bytes: the cgroup's own limit is the limit.
      return {
        name: memoryMonitors.cgroup,
        typed_config: { '@type': 'type.googleapis.com/envoy.extensions.resource_monitors.cgroup_memory.v3.CgroupMemoryConfig' },
      };
    case 'heap':
      if (limit.maxBytes <= 0) return undefined;
      return {
        name: memoryMonitors.heap,
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig',
          max_heap_size_bytes: limit.maxBytes,
        },
      };
    case 'none':
      return undefined;
  }
}

/** Envoy's overload manager for `limits`, or undefined when every limit is off. */
export function buildOverloadManager(limits: OverloadLimits): ResourceJson | undefined {
  const monitors: ResourceJson[] = [];
  const actions: ResourceJson[] = [];
  const memoryMonitor = buildMemoryMonitor(limits.memory);
  if (memoryMonitor !== undefined) {
    const monitor = memoryMonitor['name'] as string;
    monitors.push(memoryMonitor);
    actions.push(
      { name: 'envoy.overload_actions.shrink_heap', triggers: [{ name: monitor, threshold: { value: 0.95 } }] },
      { name: 'envoy.overload_actions.stop_accepting_requests', triggers: [{ name: monitor, threshold: { value: 0.98 } }] },
    );
    // Envoy's edge guidance: act gradually from 85 % (scaled triggers), before requests start failing at 98 %.
    // (A fresh object each: a shared one would print as a YAML anchor.)
    const scaled = (): ResourceJson => ({ scaling_threshold: 0.85, saturation_threshold: 0.95 });
    if (limits.resetHighMemoryStreams ?? true) {
      actions.push({ name: 'envoy.overload_actions.reset_high_memory_stream', triggers: [{ name: monitor, scaled: scaled() }] });
    }
    if (limits.reduceTimeouts ?? true) {
      actions.push({
        name: 'envoy.overload_actions.reduce_timeouts',
        triggers: [{ name: monitor, scaled: scaled() }],
        typed_config: {
          '@type': 'type.googleapis.com/envoy.config.overload.v3.ScaleTimersOverloadActionConfig',
          timer_scale_factors: [{ timer: 'HTTP_DOWNSTREAM_CONNECTION_IDLE', min_timeout: '2s' }],
        },
      });
    }
  }
  if (limits.maxDownstreamConnections > 0) {
    monitors.push({
      name: downstreamConnectionsMonitor,
      typed_config: {
        '@type': 'type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig',
        max_active_downstream_connections: limits.maxDownstreamConnections,
      },
    });
  }
  if (monitors.length === 0) return undefined;
  const tracksStreams = memoryMonitor !== undefined && (limits.resetHighMemoryStreams ?? true);
  return {
    refresh_interval: '0.25s',
    resource_monitors: monitors,
    actions,
    // reset_high_memory_stream only sees streams whose buffers are accounted: those of 2^20 bytes (1 MiB) and more.
    ...(tracksStreams ? { buffer_factory_config: { minimum_account_to_track_power_of_two: 20 } } : {}),
  };
}

function buildXdsTransportSocket(tls: XdsClientTls, host: string): ResourceJson {
  const serverName = tls.serverName ?? host;
  return {
    name: 'envoy.transport_sockets.tls',
    typed_config: {
      '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
      sni: serverName,
      common_tls_context: {
        alpn_protocols: ['h2'],
        tls_certificate_sds_secret_configs: [buildFileSdsConfig(tls.sdsDir, xdsTlsSds.certificate.secret, xdsTlsSds.certificate.file)],
        combined_validation_context: {
          default_validation_context: {
            match_typed_subject_alt_names: [
              { san_type: isIP(serverName) === 0 ? 'DNS' : 'IP_ADDRESS', matcher: { exact: serverName } },
            ],
          },
          validation_context_sds_secret_config: buildFileSdsConfig(tls.sdsDir, xdsTlsSds.trustedCa.secret, xdsTlsSds.trustedCa.file),
        },
      },
    },
  };
}

/** The static cluster reaching the xDS server; gRPC needs HTTP/2. */
export function buildXdsCluster(host: string, port: number, tls?: XdsClientTls): ResourceJson {
  return {
    name: xdsClusterName,
    // STATIC takes only IP addresses (and Unix sockets); a DNS name (e.g. a Kubernetes Service) needs resolving.
    type: isIP(host) === 0 && !host.startsWith('unix:') ? 'STRICT_DNS' : 'STATIC',
    connect_timeout: '1s',
    load_assignment: {
      cluster_name: xdsClusterName,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: buildSocketAddress(host, port) } }] }],
    },
    typed_extension_protocol_options: {
      'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
        '@type': httpProtocolOptionsType,
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
    ...(tls !== undefined ? { transport_socket: buildXdsTransportSocket(tls, host) } : {}),
  };
}

/** Envoy's bootstrap: every listener, route, cluster, endpoint and secret comes over one ADS stream. */
export function buildBootstrap(o: BootstrapOptions): ResourceJson {
  const overloadManager = buildOverloadManager(o.overload ?? defaultOverloadLimits);
  return {
    node: { id: o.nodeId, cluster: o.nodeCluster },
    admin: { address: buildSocketAddress(o.adminAddress, o.adminPort) },
    dynamic_resources: {
      ads_config: {
        api_type: o.xdsProtocol === 'delta' ? 'DELTA_GRPC' : 'GRPC',
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: xdsClusterName } }],
        set_node_on_first_message_only: true,
      },
      lds_config: buildAdsConfigSource(),
      cds_config: buildAdsConfigSource(),
    },
    static_resources: {
      ...(o.readinessPort !== undefined ? { listeners: [buildReadinessListener(o.readinessPort)] } : {}),
      clusters: [buildXdsCluster(o.xdsHost, o.xdsPort, o.xdsTls)],
    },
    ...(overloadManager !== undefined ? { overload_manager: overloadManager } : {}),
    layered_runtime: buildLayeredRuntime(),
    ...(o.upstreamDnsFilter !== undefined ? { typed_dns_resolver_config: buildDnsResolverConfig(o.upstreamDnsFilter) } : {}),
  };
}

export const readinessListenerName = 'envoy_ready';

function buildReadinessListener(port: number): ResourceJson {
  return {
    name: readinessListenerName,
    address: buildSocketAddress('0.0.0.0', port),
    // The kubelet's probe must get through when client connections reach the global limit.
    ignore_global_conn_limit: true,
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.http_connection_manager',
            typed_config: {
              '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
              stat_prefix: readinessListenerName,
              route_config: {
                name: readinessListenerName,
                virtual_hosts: [
                  { name: 'ready', domains: ['*'], routes: [{ match: { prefix: '/' }, direct_response: { status: 404 } }] },
                ],
              },
              http_filters: [
                {
                  name: 'envoy.filters.http.health_check',
                  typed_config: {
                    '@type': 'type.googleapis.com/envoy.extensions.filters.http.health_check.v3.HealthCheck',
                    pass_through_mode: false,
                    headers: [{ name: ':path', string_match: { exact: '/ready' } }],
                  },
                },
                { name: 'envoy.filters.http.router', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' } },
              ],
            },
          },
        ],
      },
    ],
  };
}
