// ExternalName Service targets: which names Envoy may resolve and connect to on a user's behalf.
import { BlockList, isIP } from 'node:net';

export type CheckedExternalName = { valid: true; host: string } | { valid: false; error: string };

const dnsName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Addresses that reach this machine or its link: "this host" 0/8 and `::`, loopback 127/8 and `::1`, link-local
 * 169.254/16 and fe80::/10 (IPv4-mapped IPv6 forms are checked against the IPv4 ranges by BlockList).
 */
const localTargets = new BlockList();
localTargets.addSubnet('0.0.0.0', 8, 'ipv4');
localTargets.addSubnet('127.0.0.0', 8, 'ipv4');
localTargets.addSubnet('169.254.0.0', 16, 'ipv4');
localTargets.addAddress('::', 'ipv6');
localTargets.addAddress('::1', 'ipv6');
localTargets.addSubnet('fe80::', 10, 'ipv6');

/** Whether an IP address is one of those local targets (the upstream DNS filter refuses resolved addresses so). */
export function isLocalTarget(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && localTargets.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Checks spec.externalName before it becomes a DNS cluster: a DNS name or an IP address, never `localhost`
 * (or a name under `.localhost`), a loopback, unspecified or link-local address: those would let a Service in
 * any namespace reach the proxy's own admin port or the cloud metadata endpoint (169.254.169.254). Names that
 * merely resolve to such addresses cannot be seen here (translation does no I/O); that is documented.
 */
export function checkExternalName(externalName: string | undefined): CheckedExternalName {
  if (externalName === undefined || externalName === '') return { valid: false, error: 'spec.externalName is empty' };
  const host = externalName.toLowerCase().replace(/\.$/, '');
  const family = isIP(host);
  const refused = {
    valid: false as const,
    error: `externalName ${JSON.stringify(externalName)} is a loopback or link-local target, which is refused`,
  };
  if (family !== 0) return localTargets.check(host, family === 4 ? 'ipv4' : 'ipv6') ? refused : { valid: true, host };
  if (host.length > 253 || !dnsName.test(host) || host.split('.').some((label) => label.length > 63)) {
    return { valid: false, error: `externalName ${JSON.stringify(externalName)} is not a DNS name` };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return refused;
  return { valid: true, host };
}
