/**
 * An address of this machine that the API server accepts in EndpointSlices. kube-apiserver rejects loopback
 * (127.0.0.0/8, ::1), link-local and unspecified endpoint addresses ("may not be in the loopback range"), so a
 * backend that a real EndpointSlice points at must listen on a non-loopback local address instead of 127.0.0.1.
 * Several endpoints of one Service can share this address with different ports, one EndpointSlice per port.
 */
import { networkInterfaces } from 'node:os';

/**
 * The first non-internal, non-link-local IPv4 address of a local interface; ENDPOINT_ADDRESS overrides it.
 * Throws when the machine has none (e.g. a network namespace with only loopback).
 */
export function findEndpointAddress(): string {
  const fromEnv = process.env['ENDPOINT_ADDRESS'];
  if (fromEnv) return fromEnv;
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal && !address.address.startsWith('169.254.')) {
        return address.address;
      }
    }
  }
  throw new Error(
    'No non-loopback IPv4 address on this machine: the API server rejects loopback EndpointSlice addresses, ' +
      'so tests need one (set ENDPOINT_ADDRESS to a local address to choose it).',
  );
}
