// TCP proxy filter chains (ir/tcp.ts): a TCP listener's one chain, or a TLS listener's chains selected by SNI,
// passing the bytes through or terminating TLS first, to clusters by weight.
import type { TcpChainIR } from '../ir/index.js';
import { buildTlsTransportSocket } from './downstream-tls-context.js';
import type { ResourceJson } from './resource-types.js';
import { errorShareCluster } from './route.js';

const tcpProxyType = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';

/**
 * The tcp_proxy filter of a chain. A share that must be refused (invalid backendRefs) goes to a cluster that does not
 * exist: Envoy closes such a connection at once, and a chain without any backend closes every connection.
 */
export function buildTcpProxyFilter(chain: TcpChainIR): ResourceJson {
  const shares = [...chain.backends.map((b) => ({ name: b.cluster, weight: b.weight })), ...((chain.errorWeight ?? 0) > 0 ? [{ name: errorShareCluster, weight: chain.errorWeight }] : [])];
  const [only] = shares;
  const destination = shares.length === 0 ? { cluster: errorShareCluster } : shares.length === 1 && only !== undefined ? { cluster: only.name } : { weighted_clusters: { clusters: shares } };
  return { name: 'envoy.filters.network.tcp_proxy', typed_config: { '@type': tcpProxyType, stat_prefix: chain.name, ...destination } };
}

/** A chain of a TLS or TCP listener: matched by SNI when it has server names, else every connection the port's other chains do not take. */
export function buildTcpFilterChain(chain: TcpChainIR): ResourceJson {
  return {
    name: chain.name,
    ...(chain.serverNames.length > 0 ? { filter_chain_match: { server_names: [...chain.serverNames] } } : {}),
    ...(chain.secret === undefined ? {} : { transport_socket: buildTlsTransportSocket(chain.secret, undefined, 'none') }),
    filters: [buildTcpProxyFilter(chain)],
  };
}
