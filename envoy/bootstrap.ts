import { isIP } from 'node:net';
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
}

/** The static cluster reaching the xDS server; gRPC needs HTTP/2. */
export function buildXdsCluster(host: string, port: number): ResourceJson {
  return {
    name: xdsClusterName,
    // STATIC takes only IP addresses; a DNS name (e.g. a Kubernetes Service) needs resolving.
    type: isIP(host) === 0 ? 'STRICT_DNS' : 'STATIC',
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
  };
}

/** Envoy's bootstrap: every listener, route, cluster, endpoint and secret comes over one ADS stream. */
export function buildBootstrap(o: BootstrapOptions): ResourceJson {
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
      clusters: [buildXdsCluster(o.xdsHost, o.xdsPort)],
    },
    layered_runtime: buildLayeredRuntime(),
  };
}

export const readinessListenerName = 'envoy_ready';

function buildReadinessListener(port: number): ResourceJson {
  return {
    name: readinessListenerName,
    address: buildSocketAddress('0.0.0.0', port),
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
