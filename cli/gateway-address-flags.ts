// The flags that give Gateways addresses of their own: --gateway-address-pool (standalone: IPs Envoy binds, one per
// Gateway) and --gateway-port-range with --gateway-service-selector (a cluster: Envoy ports per Gateway behind one
// Service per Gateway). Parsing only; throws a message naming the flag.
import { isIP } from 'node:net';

/** The most addresses a pool may expand to (a /20): a Gateway each, and the allocation walks them. */
const maxPoolSize = 4096;

/** `FIRST-LAST`, both ports, FIRST <= LAST. */
export function parsePortRange(value: string, flag = '--gateway-port-range'): { first: number; last: number } {
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(value.trim());
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1 || last > 65_535 || first > last) throw new Error(`${flag} must be FIRST-LAST with 1 <= FIRST <= LAST <= 65535, got ${JSON.stringify(value)}`);
  return { first, last };
}

/** Comma-separated IPs and IPv4 CIDRs (expanded, network and broadcast addresses included), in order, without repeats. */
export function parseAddressPool(value: string, flag = '--gateway-address-pool'): string[] {
  const out: string[] = [];
  for (const item of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [ip, bits, extra] = item.split('/');
    if (ip === undefined || extra !== undefined || isIP(ip) === 0) throw new Error(`${flag}: ${JSON.stringify(item)} is neither an IP nor an IPv4 CIDR`);
    if (bits === undefined) {
      out.push(ip);
    } else {
      const prefix = Number(bits);
      if (isIP(ip) !== 4 || !/^\d{1,2}$/.test(bits) || prefix > 32) throw new Error(`${flag}: ${JSON.stringify(item)} is not an IPv4 CIDR`);
      const size = 2 ** (32 - prefix);
      if (out.length + size > maxPoolSize) throw new Error(`${flag}: more than ${maxPoolSize} addresses`);
      const base = ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
      const network = base - (base % size);
      for (let i = 0; i < size; i++) {
        const n = network + i;
        out.push([24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.'));
      }
    }
    if (out.length > maxPoolSize) throw new Error(`${flag}: more than ${maxPoolSize} addresses`);
  }
  if (out.length === 0) throw new Error(`${flag} names no address`);
  return [...new Set(out)];
}

/** `key=value,key=value` label selector (equality only, as a Service's selector is). */
export function parseSelector(value: string, flag = '--gateway-service-selector'): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const pair of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq);
    const v = pair.slice(eq + 1);
    if (eq <= 0 || !/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key) || !/^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(v)) {
      throw new Error(`${flag}: ${JSON.stringify(pair)} is not a label key=value`);
    }
    selector[key] = v;
  }
  if (Object.keys(selector).length === 0) throw new Error(`${flag} names no label`);
  return selector;
}
