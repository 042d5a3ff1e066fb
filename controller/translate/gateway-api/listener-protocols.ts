// Listener protocols: the extension point for a new one (HTTPS, TLS, TCP). An entry says which route kinds a listener
// of the protocol takes and may refuse a listener for reasons of its own (a missing certificate, say); the join into
// IR listeners is ir-listeners.ts, keyed by the same protocol name. A protocol without an entry is refused with
// UnsupportedProtocol (listener-acceptance.ts).
import type { Gateway, GatewayListener } from '../shared/kube-objects.js';

/** Why a listener is not served: which listener condition says so, with the spec's reason. */
export interface ListenerRefusal {
  /** Accepted=False, or Conflicted=True, or ResolvedRefs=False (then also not served). */
  condition: 'Accepted' | 'Conflicted' | 'ResolvedRefs';
  reason: string;
  message: string;
}

export interface ListenerProtocol {
  /** Route kinds (group gateway.networking.k8s.io) a listener of this protocol can take, in supportedKinds order. */
  routeKinds: readonly string[];
  /** A refusal of this protocol's own, checked after the common ones; absent: none. */
  refuse?: (listener: GatewayListener, gateway: Gateway) => ListenerRefusal | undefined;
}

export const listenerProtocols: Readonly<Partial<Record<string, ListenerProtocol>>> = {
  HTTP: { routeKinds: ['HTTPRoute'] },
};
