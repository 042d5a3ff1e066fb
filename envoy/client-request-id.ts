// Whether a connection manager keeps the client's own X-Request-ID (Envoy preserve_external_request_id) instead of
// replacing it with its own: when some route of its tables asks for it (RoutePolicyIR.keepClientRequestId, set for
// Ingresses read with the ingress-nginx annotations, as nginx passes the client's X-Request-ID on as $req_id).
// The setting is per connection manager, so it then holds for every route of the listener.
import type { RouteTableIR, VirtualHostIR } from '../controller/translate/ir.js';

/** Per virtual host: an incremental build meets most hosts again. */
const byHost = new WeakMap<VirtualHostIR, boolean>();

function hostKeeps(vhost: VirtualHostIR): boolean {
  let keeps = byHost.get(vhost);
  if (keeps === undefined) {
    keeps = vhost.routes.some((route) => route.policy?.keepClientRequestId === true);
    byHost.set(vhost, keeps);
  }
  return keeps;
}

export function tablesKeepClientRequestId(tables: readonly RouteTableIR[]): boolean {
  return tables.some((table) => table.virtualHosts.some(hostKeeps));
}
