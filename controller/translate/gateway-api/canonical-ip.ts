// One spelling per IP, so spec.addresses and configured address lists compare equal however an address is written.
import { isIP } from 'node:net';

/** Canonical text of an IP, so `10.0.0.01`-like spellings and IPv6 forms compare equal; undefined if not an IP. */
export function canonicalIp(value: string): string | undefined {
  if (isIP(value) === 4) return value.split('.').map(Number).join('.');
  if (isIP(value) === 6) return new URL(`http://[${value}]/`).hostname.slice(1, -1);
  return undefined;
}
