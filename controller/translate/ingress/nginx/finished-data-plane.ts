// The finished gateway as the nginx layer's final phase changes it (nginx-edge.ts, nginx-auth.ts): new route
// tables, virtual hosts and routes along the changed paths only, everything else shared. The https route table
// translate() hands back beside the IR (TranslationResult.httpsTable, what an incremental translation splices
// into) follows: it is the TLS chains' table, or, without TLS chains, still holds virtual hosts plain HTTP serves.
import type { RouteIR, RouteTableIR, VirtualHostIR } from '../../../../ir/index.js';
import type { FinishedDataPlane } from '../translator-layer.js';

export type { FinishedDataPlane };

/** The route tables the data plane serves: plain HTTP's and, with TLS chains, theirs (one, shared by every chain). */
export function servedTables({ ir, httpsTable }: FinishedDataPlane): RouteTableIR[] {
  return ir.tlsServers.length > 0 && httpsTable !== ir.http ? [ir.http, httpsTable] : [ir.http];
}

/** The gateway with its route tables replaced (`replaced`: old table -> new one); the same object without any. */
export function withTables(gateway: FinishedDataPlane, replaced: ReadonlyMap<RouteTableIR, RouteTableIR>): FinishedDataPlane {
  if (replaced.size === 0) return gateway;
  const { ir, httpsTable } = gateway;
  return {
    ir: { ...ir, http: replaced.get(ir.http) ?? ir.http },
    httpsTable: replaced.get(httpsTable) ?? httpsTable,
  };
}

/**
 * Every route of the served tables through `rewrite`, once per route object: a route shared by two virtual hosts
 * or tables stays one object. Virtual hosts and tables holding a rewritten route are new objects; the https table
 * handed back beside the IR gets the same routes where it shares them.
 */
export function withRewrittenRoutes(gateway: FinishedDataPlane, rewrite: (route: RouteIR) => RouteIR): FinishedDataPlane {
  const routes = new Map<RouteIR, RouteIR>();
  const hosts = new Map<VirtualHostIR, VirtualHostIR>();
  const tables = new Map<RouteTableIR, RouteTableIR>();
  const hostOf = (vhost: VirtualHostIR, known: (route: RouteIR) => RouteIR): VirtualHostIR => {
    let done = hosts.get(vhost);
    if (done === undefined) {
      const rewritten = vhost.routes.map(known);
      done = rewritten.every((route, i) => route === vhost.routes[i]) ? vhost : { ...vhost, routes: rewritten };
      hosts.set(vhost, done);
    }
    return done;
  };
  const tableOf = (table: RouteTableIR, known: (route: RouteIR) => RouteIR): RouteTableIR => {
    const virtualHosts = table.virtualHosts.map((vhost) => hostOf(vhost, known));
    return virtualHosts.every((vhost, i) => vhost === table.virtualHosts[i]) ? table : { ...table, virtualHosts };
  };
  const rewriteOnce = (route: RouteIR): RouteIR => {
    let done = routes.get(route);
    if (done === undefined) routes.set(route, (done = rewrite(route)));
    return done;
  };
  for (const table of servedTables(gateway)) {
    const next = tableOf(table, rewriteOnce);
    if (next !== table) tables.set(table, next);
  }
  if (!tables.has(gateway.httpsTable) && routes.size > 0) {
    // Not served (no TLS chain): only the routes it shares with the served tables change.
    const next = tableOf(gateway.httpsTable, (route) => routes.get(route) ?? route);
    if (next !== gateway.httpsTable) tables.set(gateway.httpsTable, next);
  }
  return withTables(gateway, tables);
}
