// What `explain` needs from the Gateway API objects beyond the IR: each Gateway's listener names and ports (to pick
// a listener by name), its own and then those of the ListenerSets naming it as their parent (a set's listener is
// served on the Gateway's sockets: `--gateway ns/name --listener NAME` finds it; a name the Gateway has is the
// Gateway's), and each HTTPRoute's rule names (spec.rules[].name), which the IR does not carry.
import type { ExplainInput, GatewayListeners } from './explain.js';
import type { ClusterState, Gateway, ListenerSet } from './translate/shared/kube-objects.js';
import { namespaceOf } from './translate/shared/kinds.js';
import { compareByAge } from './translate/shared/ordering.js';

export type GatewayExplainContext = Required<Pick<ExplainInput, 'gateways' | 'ruleNames'>>;

export function gatewayExplainContext(state: Pick<ClusterState, 'gateways' | 'httpRoutes' | 'listenerSets'>): GatewayExplainContext {
  const gateways = (state.gateways ?? []).map(
    (g): GatewayListeners => ({
      namespace: namespaceOf(g.metadata),
      name: g.metadata.name,
      listeners: [
        ...(g.spec?.listeners ?? []),
        ...[...(state.listenerSets ?? [])].filter((set) => namesGateway(set, g)).sort(compareByAge).flatMap((set) => set.spec?.listeners ?? []),
      ].flatMap((l) => (typeof l.name === 'string' && typeof l.port === 'number' ? [{ name: l.name, port: l.port }] : [])),
    }),
  );
  const ruleNames: Record<string, (string | undefined)[]> = {};
  for (const route of state.httpRoutes ?? []) {
    const names = (route.spec?.rules ?? []).map((rule) => (typeof rule.name === 'string' ? rule.name : undefined));
    if (names.some((n) => n !== undefined)) ruleNames[`${namespaceOf(route.metadata)}/${route.metadata.name}`] = names;
  }
  return { gateways, ruleNames };
}

/** Whether the ListenerSet's parentRef names the Gateway (its namespace by default, as listener-sets.ts reads it). */
function namesGateway(set: ListenerSet, gateway: Gateway): boolean {
  const parent = set.spec?.parentRef;
  if (parent === undefined || (parent.group ?? 'gateway.networking.k8s.io') !== 'gateway.networking.k8s.io' || (parent.kind ?? 'Gateway') !== 'Gateway') return false;
  return parent.name === gateway.metadata.name && (parent.namespace ?? namespaceOf(set.metadata)) === namespaceOf(gateway.metadata);
}
