// Incremental translation of both input APIs: each translator's last result is kept beside the joined one
// (translate.ts), a part whose inputs did not change is reused as it was, a changed part is translated
// incrementally (Ingresses: ingress/incremental-translate.ts, splicing the hosts around the changed Ingresses;
// HTTPRoutes: gateway-api/translate-gateway-api.ts, the changed routes and the virtual hosts they touch), and the
// parts are joined again as translate() joins them (coexistence.ts decides who keeps a host both APIs claim on a
// shared port, from the parts as they are now). Exact by construction: each part equals its full translation and
// the join is the same function, so an Ingress and an HTTPRoute sharing a host and port need no fallback; the join
// itself walks the listeners (and, on a shared port, the Ingress virtual hosts by name), keeping every unchanged
// virtual host, cluster and certificate object. Undefined (the caller translates in full) whenever a part cannot be
// made incrementally: a change of a Gateway API kind other than HTTPRoute, of a Secret, ConfigMap, Namespace or a
// Service the Gateway API context reads (gateway-api/route-work.ts servicesChanged; a backend Service's change
// remakes the routes naming it) while a Gateway API part has anything of ours, or whatever the Ingress splice declines.
import type { ClusterState } from './shared/kube-objects.js';
import { gatewayApiKinds, kindTable } from './shared/kinds.js';
import type { TranslateOptions } from './shared/options.js';
import { unchangedBesides } from './shared/unchanged-inputs.js';
import { translateGatewayApiIncrementally, type GatewayApiTranslation } from './gateway-api/translate-gateway-api.js';
import { type TranslationBase, translateIncrementally as translateIngressesIncrementally } from './ingress/incremental-translate.js';
import type { TranslationResult as IngressTranslationResult } from './ingress/translate-ingresses.js';
import { joinTranslations, translationPartsOf, type TranslationResult } from './translate.js';

export type { TranslationBase };

const endpointFields = [kindTable.EndpointSlice.state, kindTable.Endpoints.state];
/** What the Gateway API translator does not read. */
const notReadByGatewayApi: ReadonlySet<string> = new Set([kindTable.Ingress.state, ...endpointFields]);
/** What the Ingress translator does not read. */
const notReadByIngress: ReadonlySet<string> = new Set([...gatewayApiKinds.map((kind) => kindTable[kind].state), ...endpointFields]);
/** The Gateway API kinds' lists. */
const gatewayApiFields: ReadonlySet<string> = new Set(gatewayApiKinds.map((kind) => kindTable[kind].state));

/**
 * The translation of `state`, made from `base` (the last state and its translation, with the Ingress host index,
 * updated in place when the Ingress part is spliced), or undefined when it cannot be made incrementally.
 */
export function translateIncrementally(base: TranslationBase, state: ClusterState, options: TranslateOptions): TranslationResult | undefined {
  const parts = translationPartsOf(base.result);
  if (parts === undefined) return undefined;
  // The Gateway API part first: it declines without touching the host index, which the Ingress splice moves on.
  const gateway = gatewayPart(parts.gateway, base.state, state, options);
  if (gateway === undefined) return undefined;
  const ingress = unchangedBesides(notReadByIngress, base.state, state)
    ? parts.ingress
    : translateIngressesIncrementally({ state: base.state, result: parts.ingress, index: base.index }, state, options);
  if (ingress === undefined) return undefined;
  // Nothing either translator reads changed (endpoint objects only): not a translation's business.
  if (ingress === parts.ingress && gateway === parts.gateway) return undefined;
  return joinTranslations(state, ingress, gateway, options, base.result);
}

function gatewayPart(previous: GatewayApiTranslation, before: ClusterState, after: ClusterState, options: TranslateOptions): GatewayApiTranslation | undefined {
  if (unchangedBesides(notReadByGatewayApi, before, after)) return previous;
  // Nothing of ours (no GatewayClass of ours, hence no Gateway, route or diagnostic of ours) and no Gateway API
  // object changed: a Service, Secret or Ingress change cannot give it anything (what translate() relied on before
  // the Gateway API part could be incremental).
  const inert = previous.served.length === 0 && previous.diagnostics.length === 0 && previous.status.gatewayClasses.length === 0;
  if (inert && unchangedBesides(new Set([...allFieldsOf(before, after)].filter((f) => !gatewayApiFields.has(f))), before, after)) return previous;
  return translateGatewayApiIncrementally(previous, before, after, options);
}

function allFieldsOf(before: ClusterState, after: ClusterState): Set<string> {
  return new Set([...Object.keys(before), ...Object.keys(after), ...Object.values(kindTable).map((k) => k.state)]);
}
