// What a connection manager must do because of some route of its tables, though the setting is per connection
// manager (so it then holds for the whole listener):
// - keepClientRequestId: keep the client's own X-Request-ID (Envoy preserve_external_request_id) instead of replacing
//   it, when a route asks (RoutePolicyIR.keepClientRequestId: Ingresses read with the ingress-nginx annotations, as
//   nginx passes the client's X-Request-ID on as $req_id);
// - accessLogFilter: some route writes no access log line (RoutePolicyIR.accessLog false: ingress-nginx
//   enable-access-log "false"), so the access log gets a filter that reads the route's metadata (access-log.ts);
//   without such a route there is no filter to evaluate.
import type { RouteTableIR, VirtualHostIR } from '../ir/index.js';
import { incrementalHostScan } from './host-scan.js';

export interface ListenerRouteNeeds {
  keepClientRequestId: boolean;
  accessLogFilter: boolean;
}

/** Per virtual host: an incremental build meets most hosts again. */
const byHost = new WeakMap<VirtualHostIR, ListenerRouteNeeds>();

function hostNeeds(vhost: VirtualHostIR): ListenerRouteNeeds {
  let needs = byHost.get(vhost);
  if (needs === undefined) {
    needs = {
      keepClientRequestId: vhost.routes.some((route) => route.policy?.keepClientRequestId === true),
      accessLogFilter: vhost.routes.some((route) => route.policy?.accessLog === false),
    };
    byHost.set(vhost, needs);
  }
  return needs;
}

/** Incremental over the routes builds, which change few hosts (host-scan.ts). */
export const listenerRouteNeeds: (tables: readonly RouteTableIR[]) => ListenerRouteNeeds = incrementalHostScan(
  hostNeeds,
  (needs) => needs.keepClientRequestId || needs.accessLogFilter,
  (hosts) => ({ keepClientRequestId: hosts.some((h) => h.keepClientRequestId), accessLogFilter: hosts.some((h) => h.accessLogFilter) }),
);
