// ListenerSet (GEP-1713, gateway.networking.k8s.io/v1): listeners added to one of our Gateways from another object,
// possibly of another namespace. Which ListenerSets a Gateway takes is the Gateway owner's decision alone:
// spec.allowedListeners.namespaces (None by default, Same, All, Selector over Namespace labels). A taken set's
// listeners then go through listener-acceptance.ts after the Gateway's own, sets oldest first (then namespace/name),
// so a set never takes a port's protocol or a hostname from the Gateway or from an older set (the spec's listener
// precedence), and routes attach to them only through a parentRef of kind ListenerSet (route-attachment.ts).
import { namespaceOf } from '../shared/kinds.js';
import type { ClusterState, Gateway, ListenerSet } from '../shared/kube-objects.js';
import { objectsOf } from '../shared/kube-objects.js';
import { compareByAge } from '../shared/ordering.js';
import { gatewayGroup } from './backend-refs.js';
import { matchesLabelSelector } from './namespace-selection.js';

/** A ListenerSet whose parentRef names one of our Gateways. */
export interface ListenerSetParent {
  set: ListenerSet;
  gateway: Gateway;
  /** Why the Gateway does not take it (spec.allowedListeners); absent: taken. */
  notAllowed?: string;
}

export interface ListenerSets {
  /** Every ListenerSet of one of our Gateways, oldest first (then namespace/name): the spec's listener precedence. */
  all: ListenerSetParent[];
  /** Per Gateway, the ListenerSets it takes, in that order. */
  taken: ReadonlyMap<Gateway, readonly ListenerSet[]>;
  /** By `namespace/name`: a route's parentRef of kind ListenerSet resolves here. */
  byKey: ReadonlyMap<string, ListenerSetParent>;
}

/** Why `gateway` does not take a ListenerSet of `namespace`; undefined: it does. */
export function listenerSetRefusal(gateway: Gateway, namespace: string, namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>): string | undefined {
  const rule = gateway.spec?.allowedListeners?.namespaces;
  const from = rule?.from ?? 'None';
  const gatewayName = `Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name}`;
  switch (from) {
    case 'All':
      return undefined;
    case 'Same':
      return namespace === namespaceOf(gateway.metadata) ? undefined : `${gatewayName} takes ListenerSets of its own namespace only (allowedListeners.namespaces.from: Same)`;
    case 'Selector':
      // A Selector without a selector: the CRD refuses it; take none if one gets through (tenant safety).
      return rule?.selector !== undefined && matchesLabelSelector(rule.selector, namespaceLabels.get(namespace) ?? {})
        ? undefined
        : `namespace ${namespace} does not match the allowedListeners selector of ${gatewayName}`;
    default:
      return `${gatewayName} takes no ListenerSets (allowedListeners.namespaces.from: ${rule?.from ?? 'None, the default'})`;
  }
}

/** `gateways`: ours, by `namespace/name`. ListenerSets naming another controller's Gateway are not ours at all. */
export function listenerSetsOf(state: ClusterState, gateways: ReadonlyMap<string, Gateway>): ListenerSets {
  const labels = new Map(objectsOf(state, 'Namespace').map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
  const all: ListenerSetParent[] = [];
  const taken = new Map<Gateway, ListenerSet[]>();
  for (const set of [...objectsOf(state, 'ListenerSet')].sort(compareByAge)) {
    const ref = set.spec?.parentRef;
    if (ref === undefined || (ref.group ?? gatewayGroup) !== gatewayGroup || (ref.kind ?? 'Gateway') !== 'Gateway') continue;
    const namespace = namespaceOf(set.metadata);
    const gateway = gateways.get(`${ref.namespace ?? namespace}/${ref.name}`);
    if (gateway === undefined) continue;
    const notAllowed = listenerSetRefusal(gateway, namespace, labels);
    all.push({ set, gateway, ...(notAllowed === undefined ? {} : { notAllowed }) });
    if (notAllowed !== undefined) continue;
    let list = taken.get(gateway);
    if (list === undefined) taken.set(gateway, (list = []));
    list.push(set);
  }
  return { all, taken, byKey: new Map(all.map((p) => [`${namespaceOf(p.set.metadata)}/${p.set.metadata.name}`, p])) };
}
