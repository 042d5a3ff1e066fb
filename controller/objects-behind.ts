// Which Kubernetes objects an xDS resource was built from, so a NACK from Envoy can name them. Pure.
import { type DataPlaneIR, type RouteTableIR, servedRouteTables, type SourceRef } from '../ir/index.js';
import { routeConfigurationOf, type ResourceKind } from '../proto/type-urls.js';
import { refKey } from './translate/shared/kube-objects.js';

function routeSources(table: RouteTableIR, onlyCluster?: string): SourceRef[] {
  const out: SourceRef[] = [];
  for (const vhost of table.virtualHosts) {
    for (const route of vhost.routes) {
      if (!route.source) continue;
      const action = route.action;
      const uses = action.kind === 'forward' && (action.cluster === onlyCluster || (action.split?.backends ?? []).some((backend) => backend.cluster === onlyCluster));
      if (onlyCluster !== undefined && !uses) continue;
      out.push(route.source);
      // A route carries the users of its basic-auth Secret (ingress-nginx auth-secret): a route NACK may be theirs.
      if (onlyCluster === undefined && route.policy?.basicAuth !== undefined) out.push(route.policy.basicAuth.secret);
    }
  }
  return out;
}

function tables(ir: DataPlaneIR): RouteTableIR[] {
  return servedRouteTables(ir.listeners);
}

export function objectsBehind(ir: DataPlaneIR, kind: ResourceKind, names: readonly string[]): SourceRef[] {
  const found = new Map<string, SourceRef>();
  const add = (refs: Iterable<SourceRef>): void => {
    for (const r of refs) found.set(refKey(r), r);
  };
  for (const name of names) {
    switch (kind) {
      case 'cluster':
      case 'clusterLoadAssignment': {
        const cluster = ir.clusters.find((c) => c.name === name);
        if (cluster) add([{ kind: 'Service', namespace: cluster.service.namespace, name: cluster.service.name }]);
        for (const t of tables(ir)) add(routeSources(t, name));
        break;
      }
      case 'routeConfiguration':
        // One RouteConfiguration holds both tables (envoy/route-configuration.ts).
        for (const t of tables(ir)) add(routeSources(t));
        break;
      case 'virtualHost': {
        // `<route configuration>/<virtual host>` (VHDS): the routes of that one host, as both tables serve it.
        const host = name.slice(routeConfigurationOf(name).length + 1);
        for (const t of tables(ir)) add(routeSources({ ...t, virtualHosts: t.virtualHosts.filter((v) => v.name === host) }));
        break;
      }
      case 'listener':
        for (const listener of ir.listeners) if (listener.name === name && listener.routeTable !== undefined) add(routeSources(listener.routeTable));
        break;
      case 'secret': {
        const [namespace = '', secretName = ''] = name.split('/');
        add([{ kind: 'Secret', namespace, name: secretName }]);
        for (const listener of ir.listeners) {
          if (listener.routeTable !== undefined && (listener.tlsServers ?? []).some((s) => s.secret === name)) add(routeSources(listener.routeTable));
        }
        break;
      }
    }
  }
  return [...found.values()].sort((a, b) => (refKey(a) < refKey(b) ? -1 : 1));
}
