// An IP range, as access control (route-policy.ts) and basic auth's satisfy-any allow-list (auth.ts) name it.

/** An IP range; `prefixLength` 32 (IPv4) or 128 (IPv6) for one address. */
export interface CidrIR {
  address: string;
  prefixLength: number;
}
