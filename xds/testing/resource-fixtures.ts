// Minimal, valid xDS resources in proto3 JSON for protocol tests (what the snapshot cache takes).
import { TypeUrl } from '../../proto/type-urls.js';
import type { NamedJson } from '../snapshot-cache.js';

const ads = { ads: {}, resource_api_version: 'V3' };

export function clusterFixture(name: string, connectTimeout = '5s'): NamedJson {
  return {
    name,
    resource: { '@type': TypeUrl.cluster, name, type: 'EDS', connect_timeout: connectTimeout, eds_cluster_config: { eds_config: ads, service_name: name } },
  };
}

/** One locality with an endpoint on 127.0.0.1 per port. */
export function endpointsFixture(name: string, ...ports: number[]): NamedJson {
  return {
    name,
    resource: {
      '@type': TypeUrl.clusterLoadAssignment,
      cluster_name: name,
      endpoints: [
        { lb_endpoints: ports.map((port) => ({ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } } })) },
      ],
    },
  };
}

/** An HTTP listener whose routes come over RDS under `routeName`. */
export function listenerFixture(name: string, routeName: string): NamedJson {
  return {
    name,
    resource: {
      '@type': TypeUrl.listener,
      name,
      address: { socket_address: { address: '127.0.0.1', port_value: 0 } },
      filter_chains: [
        {
          filters: [
            {
              name: 'envoy.filters.network.http_connection_manager',
              typed_config: {
                '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                stat_prefix: name,
                rds: { route_config_name: routeName, config_source: ads },
                http_filters: [
                  { name: 'envoy.filters.http.router', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' } },
                ],
              },
            },
          ],
        },
      ],
    },
  };
}

/** Every request to one cluster. */
export function routesFixture(name: string, clusterName: string): NamedJson {
  return {
    name,
    resource: {
      '@type': TypeUrl.routeConfiguration,
      name,
      virtual_hosts: [{ name: '*', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster: clusterName } }] }],
    },
  };
}

/** An ECDS resource: a Lua filter's configuration under the filter's name. */
export function extensionConfigFixture(name: string, script = 'function envoy_on_request(h) end'): NamedJson {
  return {
    name,
    resource: {
      '@type': TypeUrl.extensionConfig,
      name,
      typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua', default_source_code: { inline_string: script } },
    },
  };
}
