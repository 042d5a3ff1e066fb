// Which IP each Gateway binds in standalone mode with --gateway-address-pool: Envoy binds the Gateway's listener
// ports on an address of its own, so Gateways sharing a port (80 for each) keep their routes apart. Pure.
//
// The rule (docs/guides/gateway-api.md "Addresses"): Gateways oldest first. A Gateway whose spec.addresses asks for
// an IPAddress gets it when it is in the pool and no older Gateway has it; asking for another type (Hostname, a
// named address) is refused with UnsupportedAddress, for an address outside the pool or taken with
// AddressNotUsable, and such a Gateway binds nothing (it never silently gets another address). Every other Gateway
// starts at the pool slot a hash of its namespace/name picks and takes the first free one from there. A new
// Gateway never moves an older one's address; deleting a Gateway moves only the younger ones that had to step
// past its slot.
import { createHash } from 'node:crypto';
import type { Gateway } from '../shared/kube-objects.js';
import { canonicalIp } from './canonical-ip.js';
import { gatewayKey } from './gateway-service.js';
import { GatewayReason } from './reasons.js';

export interface GatewayAddressProblem {
  reason: typeof GatewayReason.UnsupportedAddress | typeof GatewayReason.AddressNotUsable | typeof GatewayReason.AddressNotAssigned;
  message: string;
}

export interface PoolAllocation {
  /** Per Gateway key (`namespace/name`): the IP its listeners bind. */
  addresses: ReadonlyMap<string, string>;
  /** Per Gateway key: why it has no address (it binds nothing then). */
  problems: ReadonlyMap<string, GatewayAddressProblem>;
}

function preferredSlot(key: string, size: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % size;
}

/** `gateways` oldest first; `pool` the addresses (IPs) in the order given. */
export function allocatePoolAddresses(gateways: readonly Gateway[], pool: readonly string[]): PoolAllocation {
  const slots = pool.map((ip) => canonicalIp(ip) ?? ip);
  const owner = new Map<string, string>();
  const addresses = new Map<string, string>();
  const problems = new Map<string, GatewayAddressProblem>();
  const automatic: string[] = [];
  for (const gateway of gateways) {
    const key = gatewayKey(gateway);
    const requested = gateway.spec?.addresses ?? [];
    if (requested.length === 0) {
      automatic.push(key);
      continue;
    }
    const unsupported = requested.find((a) => (a.type ?? 'IPAddress') !== 'IPAddress');
    if (unsupported !== undefined) {
      problems.set(key, { reason: GatewayReason.UnsupportedAddress, message: `spec.addresses: type ${unsupported.type} is not supported; only IPAddress is (an address of --gateway-address-pool)` });
      continue;
    }
    if (requested.length > 1) {
      problems.set(key, { reason: GatewayReason.AddressNotAssigned, message: `spec.addresses: ${requested.length} addresses asked for; a Gateway binds one address here` });
      continue;
    }
    const value = requested[0]?.value;
    if (value === undefined || value === '') {
      automatic.push(key);
      continue;
    }
    const ip = canonicalIp(value);
    if (ip === undefined || !slots.includes(ip)) {
      problems.set(key, { reason: GatewayReason.AddressNotUsable, message: `spec.addresses: ${value} is not an address of --gateway-address-pool` });
      continue;
    }
    const holder = owner.get(ip);
    if (holder !== undefined) {
      problems.set(key, { reason: GatewayReason.AddressNotUsable, message: `spec.addresses: ${value} is in use by Gateway ${holder}` });
      continue;
    }
    owner.set(ip, key);
    addresses.set(key, ip);
  }
  for (const key of automatic) {
    if (slots.length === 0) {
      problems.set(key, { reason: GatewayReason.AddressNotAssigned, message: 'the address pool is empty' });
      continue;
    }
    const start = preferredSlot(key, slots.length);
    let found: string | undefined;
    for (let i = 0; i < slots.length && found === undefined; i++) {
      const ip = slots[(start + i) % slots.length] as string;
      if (!owner.has(ip)) found = ip;
    }
    if (found === undefined) {
      problems.set(key, { reason: GatewayReason.AddressNotAssigned, message: `every address of --gateway-address-pool (${slots.length}) is in use by an older Gateway` });
      continue;
    }
    owner.set(found, key);
    addresses.set(key, found);
  }
  return { addresses, problems };
}
