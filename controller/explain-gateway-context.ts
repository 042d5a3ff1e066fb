// What `explain` needs from the Gateway API objects beyond the IR: each Gateway's listener names and ports (to pick
// a listener by name) and each HTTPRoute's rule names (spec.rules[].name), which the IR does not carry.
import type { ExplainInput, GatewayListeners } from './explain.js';
import type { ClusterState } from './translate/shared/kube-objects.js';
import { namespaceOf } from './translate/shared/kinds.js';

export type GatewayExplainContext = Required<Pick<ExplainInput, 'gateways' | 'ruleNames'>>;

export function gatewayExplainContext(state: Pick<ClusterState, 'gateways' | 'httpRoutes'>): GatewayExplainContext {
  const gateways = (state.gateways ?? []).map(
    (g): GatewayListeners => ({
      namespace: namespaceOf(g.metadata),
      name: g.metadata.name,
      listeners: (g.spec?.listeners ?? []).flatMap((l) => (typeof l.name === 'string' && typeof l.port === 'number' ? [{ name: l.name, port: l.port }] : [])),
    }),
  );
  const ruleNames: Record<string, (string | undefined)[]> = {};
  for (const route of state.httpRoutes ?? []) {
    const names = (route.spec?.rules ?? []).map((rule) => (typeof rule.name === 'string' ? rule.name : undefined));
    if (names.some((n) => n !== undefined)) ruleNames[`${namespaceOf(route.metadata)}/${route.metadata.name}`] = names;
  }
  return { gateways, ruleNames };
}
