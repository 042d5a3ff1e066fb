// Virtual hosts and route tables, and the one order both the translator and the Envoy builders keep them in.
import { compareStrings } from './ordering.js';
import type { RouteIR } from './route.js';
import type { ClientCertificateCheckIR } from './tls.js';

/** The host name of the virtual host that matches any host (the Ingress rule without a host). */
export const catchAllHost = '*';


export interface VirtualHostIR {
  /** Deterministic and unique within its route configuration, e.g. `foo.example.com` or `*`. */
  name: string;
  /**
   * Host names as in the Ingress (lower case): `foo.example.com`, `*.example.com` (exactly one label), or `*`
   * for the catch-all host.
   */
  hostnames: string[];
  /** In match order: the first route that matches wins. The last route is the fallback (default backend/404). */
  routes: RouteIR[];
  /**
   * What a `*.example.com` host name covers: absent, exactly one label (the Ingress API); `one-or-more`, any number
   * of labels (the Gateway API).
   */
  wildcardLabels?: 'one-or-more';
  /** Checked on every route of the host before anything else (ingress-nginx auth-tls-*); absent: none. */
  clientCertificate?: ClientCertificateCheckIR;
}

export interface RouteTableIR {
  /** RDS resource name. */
  name: string;
  virtualHosts: VirtualHostIR[];
}

/** By name, with the catch-all `*` last (it must be the last resort in the route table). */
export function compareVirtualHosts(a: VirtualHostIR, b: VirtualHostIR): number {
  return compareVirtualHostNames(a.name, b.name);
}

/** The order of compareVirtualHosts, on the names alone. */
export function compareVirtualHostNames(a: string, b: string): number {
  if (a === catchAllHost || b === catchAllHost) return (a === catchAllHost ? 1 : 0) - (b === catchAllHost ? 1 : 0);
  return compareStrings(a, b);
}
