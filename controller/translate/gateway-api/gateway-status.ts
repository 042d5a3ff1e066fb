// Gateway status as data: the Gateway's Accepted/Programmed and, per listener, supportedKinds, attachedRoutes and
// Accepted/Programmed/ResolvedRefs/Conflicted with the spec's reasons. Programmed=True here means "in the translated
// configuration"; the status writer holds it back until Envoy ACKed that configuration.
import { type Gateway, type ListenerSet, refOf } from '../shared/kube-objects.js';
import type { GatewayClientCertificate } from './gateway-client-certificate.js';
import type { GatewayProblem } from './listener-bindings.js';
import type { GatewayStatusAddress } from './gateway-service.js';
import { allowsInsecureFallback } from './frontend-validation.js';
import type { AcceptedListener, ListenerVerdict } from './listener-acceptance.js';
import { type GatewayStatusData, type ListenerSetStatusData, type ListenerStatusData, type StatusCondition, condition, generationOf } from './status-data.js';

function listenerStatus(verdict: ListenerVerdict, attachedRoutes: number, generation: number): ListenerStatusData {
  const c = (type: string, status: StatusCondition['status'], reason: string, message: string): StatusCondition => condition(type, status, reason, message, generation);
  const { refusal } = verdict;
  // An unknown protocol takes no route kind; that is its Accepted=False, not a route-kind problem.
  const conditions: StatusCondition[] = [
    // A conflicted listener is not accepted either, with the conflict's reason (the conformance suite's ListenerSet tests).
    refusal?.condition === 'Accepted' || refusal?.condition === 'Conflicted' ? c('Accepted', 'False', refusal.reason, refusal.message) : c('Accepted', 'True', 'Accepted', 'Listener accepted'),
    refusal === undefined
      ? c('Programmed', 'True', 'Programmed', 'Listener programmed')
      : c('Programmed', 'False', refusal.condition === 'Conflicted' ? refusal.reason : 'Invalid', refusal.message),
    refusal?.condition === 'ResolvedRefs'
      ? c('ResolvedRefs', 'False', refusal.reason, refusal.message)
      : verdict.certificateProblem !== undefined
        ? c('ResolvedRefs', 'False', verdict.certificateProblem.reason, verdict.certificateProblem.message)
        : verdict.caProblem !== undefined
        ? c('ResolvedRefs', 'False', verdict.caProblem.reason, verdict.caProblem.message)
        : verdict.invalidRouteKinds !== undefined || (verdict.supportedKinds.length === 0 && refusal?.reason !== 'UnsupportedProtocol')
        ? c('ResolvedRefs', 'False', 'InvalidRouteKinds', verdict.invalidRouteKinds ?? 'No route kind can attach to this listener')
        : c('ResolvedRefs', 'True', 'ResolvedRefs', 'References resolved'),
    refusal?.condition === 'Conflicted' ? c('Conflicted', 'True', refusal.reason, refusal.message) : c('Conflicted', 'False', 'NoConflicts', 'No conflicts'),
  ];
  return { name: verdict.listener.name, supportedKinds: verdict.supportedKinds, attachedRoutes, conditions };
}

/** What listener-bindings.ts found about a Gateway's own addresses. */
export interface GatewayAddressing {
  /** Absent in shared mode (no addresses of its own: the status writer leaves status.addresses alone). */
  addresses: GatewayStatusAddress[] | undefined;
  /** Its addresses' or parameters' problem (listener-bindings.ts). */
  problem: Omit<GatewayProblem, 'blocking'> | undefined;
}

/** Problems that leave the whole Gateway not Accepted (the spec's Accepted reasons); others make it not Programmed. */
const notAcceptedReasons: ReadonlySet<string> = new Set(['UnsupportedAddress', 'InvalidParameters']);

/**
 * `attached`: per served listener, the routes Accepted on it (`kind/namespace/name`). `addressing`: an address type
 * not supported or parameters not read make Accepted False; an address not usable or not (yet) assigned makes
 * Programmed False with that reason, as the spec says.
 */
export function gatewayStatus(
  gateway: Gateway,
  verdicts: readonly ListenerVerdict[],
  attached: ReadonlyMap<AcceptedListener, ReadonlySet<string>>,
  addressing: GatewayAddressing = { addresses: undefined, problem: undefined },
  clientCertificate?: GatewayClientCertificate,
  attachedListenerSets = 0,
): GatewayStatusData {
  const generation = generationOf(gateway);
  const attachedCount = (v: ListenerVerdict): number => {
    const listener = v.accepted ?? v.attachable;
    return listener === undefined ? 0 : (attached.get(listener)?.size ?? 0);
  };
  const listeners = verdicts.map((v) => listenerStatus(v, attachedCount(v), generation));
  const served = verdicts.filter((v) => v.accepted !== undefined).length;
  const valid = listeners.filter((l) => l.conditions.every((c) => c.status === (c.type === 'Conflicted' ? 'False' : 'True'))).length;
  const { problem } = addressing;
  const conditions: StatusCondition[] = [
    problem !== undefined && notAcceptedReasons.has(problem.reason)
      ? condition('Accepted', 'False', problem.reason, problem.message, generation)
      : valid === verdicts.length
      ? condition('Accepted', 'True', 'Accepted', 'Gateway accepted', generation)
      : condition('Accepted', served > 0 ? 'True' : 'False', 'ListenersNotValid', `${verdicts.length - valid} of ${verdicts.length} listeners not valid`, generation),
    problem !== undefined
      ? condition('Programmed', 'False', notAcceptedReasons.has(problem.reason) ? 'Invalid' : problem.reason, problem.message, generation)
      : served > 0
      ? condition('Programmed', 'True', 'Programmed', 'Gateway programmed', generation)
      : condition('Programmed', 'False', 'Invalid', 'No listener can be served', generation),
    // Present only while some validation allows it (the spec: removed when every mode is AllowValidOnly again).
    ...(allowsInsecureFallback(gateway)
      ? [condition('InsecureFrontendValidationMode', 'True', 'ConfigurationChanged', 'spec.tls.frontend allows clients without a valid certificate (AllowInsecureFallback)', generation)]
      : []),
  ];
  // ResolvedRefs on the Gateway itself: written when it names something outside its listeners (the backend client
  // certificate); its problem does not change Accepted or Programmed (the spec).
  if (clientCertificate !== undefined) {
    conditions.push(
      'problem' in clientCertificate
        ? condition('ResolvedRefs', 'False', clientCertificate.problem.reason, clientCertificate.problem.message, generation)
        : condition('ResolvedRefs', 'True', 'ResolvedRefs', 'References resolved', generation),
    );
  }
  return { ref: refOf(gateway), ...(addressing.addresses !== undefined ? { addresses: addressing.addresses } : {}), conditions, listeners, ...(attachedListenerSets > 0 ? { attachedListenerSets } : {}) };
}

/** Whether a listener's status says it is fully valid (every condition positive, not Conflicted). */
function validListener(l: ListenerStatusData): boolean {
  return l.conditions.every((c) => c.status === (c.type === 'Conflicted' ? 'False' : 'True'));
}

/**
 * A ListenerSet's status: NotAllowed when its Gateway does not take it (`notAllowed`), ParentNotAccepted when the
 * Gateway is refused as a whole; else Accepted while one listener is served (reason ListenersNotValid when some are not,
 * as the spec allows), and Programmed like a Gateway's. Listener entries as a Gateway's listeners have them.
 */
export function listenerSetStatus(
  set: ListenerSet,
  verdicts: readonly ListenerVerdict[],
  attached: ReadonlyMap<AcceptedListener, ReadonlySet<string>>,
  notAllowed: string | undefined,
  parent: GatewayStatusData | undefined,
): ListenerSetStatusData {
  const generation = generationOf(set);
  const both = (status: StatusCondition['status'], reason: string, message: string): StatusCondition[] => [
    condition('Accepted', status, reason, message, generation),
    condition('Programmed', status, status === 'True' ? 'Programmed' : reason, message, generation),
  ];
  if (notAllowed !== undefined) return { ref: refOf(set), conditions: both('False', 'NotAllowed', notAllowed), listeners: [] };
  const listeners = verdicts.map((v) => listenerStatus(v, v.accepted === undefined ? 0 : (attached.get(v.accepted)?.size ?? 0), generation));
  // A Gateway refused as a whole (UnsupportedAddress: it binds nothing) takes its sets down; one refused for its own
  // listeners only still serves its sets' listeners, which say so themselves.
  const parentAccepted = parent?.conditions.find((c) => c.type === 'Accepted');
  if (parentAccepted === undefined || (parentAccepted.status !== 'True' && parentAccepted.reason !== 'ListenersNotValid')) {
    return { ref: refOf(set), conditions: both('False', 'ParentNotAccepted', 'The parent Gateway is not accepted'), listeners };
  }
  const served = verdicts.filter((v) => v.accepted !== undefined).length;
  const invalid = listeners.filter((l) => !validListener(l)).length;
  if (served === 0) return { ref: refOf(set), conditions: both('False', 'ListenersNotValid', `none of its ${verdicts.length} listeners can be served`), listeners };
  const conditions = [
    invalid === 0
      ? condition('Accepted', 'True', 'Accepted', 'ListenerSet accepted', generation)
      : condition('Accepted', 'True', 'ListenersNotValid', `${invalid} of ${verdicts.length} listeners not valid`, generation),
    condition('Programmed', 'True', 'Programmed', 'ListenerSet programmed', generation),
  ];
  return { ref: refOf(set), conditions, listeners };
}
