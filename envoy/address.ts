import type { ResourceJson } from './resource-types.js';

/** An Address holding a TCP socket address. */
export function buildSocketAddress(address: string, port: number): ResourceJson {
  return { socket_address: { address, port_value: port } };
}
