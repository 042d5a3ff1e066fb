import type { ResourceJson } from './resource-types.js';

/**
 * An Address: a TCP socket address, or for `unix:/path` a Unix domain socket (Envoy's pipe), which only processes
 * that can open the path reach: mode 0600, the owner alone (the controller and Envoy run as the same user).
 */
export function buildSocketAddress(address: string, port: number): ResourceJson {
  if (address.startsWith('unix:')) return { pipe: { path: address.slice('unix:'.length), mode: 0o600 } };
  return { socket_address: { address, port_value: port } };
}
