// The Gateway API objects as the controller sees them, for /debug/gateway-api, the status page and the per-Gateway
// metrics: each Gateway of our classes with its listeners (port, protocol, hostname from the spec; attached routes
// and conditions from the last build's status data), addresses and the routes attached to it; each ListenerSet of
// one of them with its conditions and listeners; each route with its parents' conditions. Pure: built from the translator's status data and the objects.
import type { GatewayApiStatus, StatusCondition } from '../controller/translate/gateway-api/status-data.js';
import type { Gateway, GatewayListener, ListenerSet } from '../controller/translate/shared/kube-objects.js';
import { namespaceOf } from '../controller/translate/shared/kinds.js';

export interface GatewayListenerView {
  name: string;
  port: number | null;
  protocol: string | null;
  hostname: string | null;
  attachedRoutes: number;
  /** Programmed condition status: `True` when served. */
  programmed: string;
  conditions: StatusCondition[];
}

export interface GatewayView {
  namespace: string;
  name: string;
  addresses: string[];
  conditions: StatusCondition[];
  listeners: GatewayListenerView[];
  /** `Kind namespace/name` of the routes Accepted by this Gateway, sorted. */
  attachedRoutes: string[];
  /** `Kind namespace/name` of the routes Accepted by a ListenerSet of this Gateway (its listeners are the Gateway's sockets), sorted. */
  attachedThroughListenerSets: string[];
}

export interface ListenerSetView {
  namespace: string;
  name: string;
  /** `namespace/name` of its parent Gateway. */
  gateway: string;
  conditions: StatusCondition[];
  listeners: GatewayListenerView[];
}

export interface RouteParentView {
  /**
   * `namespace/name` of the Gateway (`ListenerSet namespace/name` for a ListenerSet), and `/sectionName` or `:port`
   * when the parentRef names one.
   */
  parent: string;
  conditions: StatusCondition[];
}

export interface RouteView {
  kind: string;
  namespace: string;
  name: string;
  parents: RouteParentView[];
}

export interface GatewayApiView {
  gateways: GatewayView[];
  listenerSets: ListenerSetView[];
  routes: RouteView[];
}

export const emptyGatewayApiView: GatewayApiView = { gateways: [], listenerSets: [], routes: [] };

function conditionStatus(conditions: readonly StatusCondition[], type: string): string {
  return conditions.find((c) => c.type === type)?.status ?? 'Unknown';
}

/** Listener entries of a status with the spec's port, protocol and hostname. */
function listenerViews(listeners: GatewayApiStatus['gateways'][number]['listeners'], spec: readonly GatewayListener[]): GatewayListenerView[] {
  return listeners.map((l) => {
    const s = spec.find((x) => x.name === l.name);
    return {
      name: l.name,
      port: typeof s?.port === 'number' ? s.port : null,
      protocol: typeof s?.protocol === 'string' ? s.protocol : null,
      hostname: typeof s?.hostname === 'string' ? s.hostname : null,
      attachedRoutes: l.attachedRoutes,
      programmed: conditionStatus(l.conditions, 'Programmed'),
      conditions: l.conditions,
    };
  });
}

export function gatewayApiView(status: GatewayApiStatus | undefined, gateways: readonly Gateway[], listenerSets: readonly ListenerSet[] = []): GatewayApiView {
  if (status === undefined) return emptyGatewayApiView;
  const routes = status.routes.map(
    (r): RouteView => ({
      kind: r.ref.kind,
      namespace: r.ref.namespace,
      name: r.ref.name,
      parents: r.parents.map((p) => ({
        parent: `${p.parentRef.kind === 'ListenerSet' ? 'ListenerSet ' : ''}${p.parentRef.namespace ?? r.ref.namespace}/${p.parentRef.name}${p.parentRef.sectionName === undefined ? '' : `/${p.parentRef.sectionName}`}${p.parentRef.port === undefined ? '' : `:${p.parentRef.port}`}`,
        conditions: p.conditions,
      })),
    }),
  );
  const views = status.gateways.map((g): GatewayView => {
    const { namespace, name } = g.ref;
    const spec = gateways.find((x) => namespaceOf(x.metadata) === namespace && x.metadata.name === name)?.spec?.listeners ?? [];
    const attached = status.routes
      .filter((r) =>
        r.parents.some(
          (p) =>
            (p.parentRef.kind ?? 'Gateway') === 'Gateway' &&
            (p.parentRef.namespace ?? r.ref.namespace) === namespace &&
            p.parentRef.name === name &&
            conditionStatus(p.conditions, 'Accepted') === 'True',
        ),
      )
      .map((r) => `${r.ref.kind} ${r.ref.namespace}/${r.ref.name}`)
      .sort();
    const setKeys = new Set(
      listenerSets
        .filter((set) => set.spec?.parentRef !== undefined && (set.spec.parentRef.namespace ?? namespaceOf(set.metadata)) === namespace && set.spec.parentRef.name === name)
        .map((set) => `${namespaceOf(set.metadata)}/${set.metadata.name}`),
    );
    const throughSets = status.routes
      .filter((r) =>
        r.parents.some(
          (p) => p.parentRef.kind === 'ListenerSet' && setKeys.has(`${p.parentRef.namespace ?? r.ref.namespace}/${p.parentRef.name}`) && conditionStatus(p.conditions, 'Accepted') === 'True',
        ),
      )
      .map((r) => `${r.ref.kind} ${r.ref.namespace}/${r.ref.name}`)
      .sort();
    return {
      namespace,
      name,
      addresses: (g.addresses ?? []).map((a) => a.value),
      conditions: g.conditions,
      listeners: listenerViews(g.listeners, spec),
      attachedRoutes: [...new Set(attached)],
      attachedThroughListenerSets: [...new Set(throughSets)],
    };
  });
  const sets = (status.listenerSets ?? []).map((l): ListenerSetView => {
    const { namespace, name } = l.ref;
    const set = listenerSets.find((x) => namespaceOf(x.metadata) === namespace && x.metadata.name === name);
    const parent = set?.spec?.parentRef;
    return {
      namespace,
      name,
      gateway: parent === undefined ? '' : `${parent.namespace ?? namespace}/${parent.name}`,
      conditions: l.conditions,
      listeners: listenerViews(l.listeners, set?.spec?.listeners ?? []),
    };
  });
  return { gateways: views, listenerSets: sets, routes };
}
