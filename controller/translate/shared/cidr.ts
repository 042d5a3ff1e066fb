// IP ranges as users write them, read the same way for ingress-nginx's *-source-range annotations
// (ingress/annotation-values.ts) and a RoutePolicy's sourceRanges (gateway-api/route-policies.ts).
import { isIP } from 'node:net';
import type { CidrIR } from '../../../ir/index.js';

/** `10.0.0.0/8`, `192.168.1.7` (one address), `2001:db8::/32`. */
export function parseCidr(text: string): CidrIR | undefined {
  const [address = '', length, ...rest] = text.split('/');
  if (rest.length > 0) return undefined;
  const family = isIP(address);
  if (family === 0) return undefined;
  const maxLength = family === 4 ? 32 : 128;
  if (length === undefined) return { address, prefixLength: maxLength };
  if (!/^\d{1,3}$/.test(length.trim())) return undefined;
  const prefixLength = Number(length.trim());
  return prefixLength <= maxLength ? { address, prefixLength } : undefined;
}
