// Listener protocols: the extension point for a new one. An entry says which route kinds a listener of the protocol
// takes, which protocols may share its Envoy socket, whether it terminates TLS (then it needs a certificate:
// listener-certificates.ts), and may refuse a listener for reasons of its own; the join into IR listeners is
// ir-listeners.ts, keyed by the same protocol name. A protocol without an entry is refused with UnsupportedProtocol
// (listener-acceptance.ts).
import type { Gateway, GatewayListener } from '../shared/kube-objects.js';
import { GatewayReason } from './reasons.js';

/** Why a listener is not served: which listener condition says so, with the spec's reason. */
export interface ListenerRefusal {
  /** Accepted=False, or Conflicted=True, or ResolvedRefs=False (then also not served). */
  condition: 'Accepted' | 'Conflicted' | 'ResolvedRefs';
  reason: string;
  message: string;
}

/**
 * Protocols of one family may share an Envoy socket: HTTPS and TLS listeners are told apart by SNI (a filter chain
 * per name); plaintext HTTP has one route table per socket; TCP has nothing to tell two listeners apart.
 */
export type SocketFamily = 'http' | 'tls' | 'tcp';

export interface ListenerProtocol {
  /** Route kinds (group gateway.networking.k8s.io) a listener of this protocol can take, in supportedKinds order. */
  routeKinds: readonly string[];
  family: SocketFamily;
  /** Whether the listener's hostname tells it apart from others on its socket (TCP: no; the spec ignores it there). */
  hostnames: boolean;
  /** Whether TLS is terminated (HTTPS; TLS with mode Terminate): it needs a certificate. */
  terminates?: (listener: GatewayListener) => boolean;
  /** A refusal of this protocol's own, checked after the common ones; absent: none. */
  refuse?: (listener: GatewayListener, gateway: Gateway) => ListenerRefusal | undefined;
}

const where = (listener: GatewayListener): string => `listener ${listener.name} (port ${listener.port})`;

export const listenerProtocols: Readonly<Partial<Record<string, ListenerProtocol>>> = {
  HTTP: { routeKinds: ['HTTPRoute'], family: 'http', hostnames: true },
  HTTPS: {
    routeKinds: ['HTTPRoute'],
    family: 'tls',
    hostnames: true,
    terminates: () => true,
    refuse: (listener) =>
      (listener.tls?.mode ?? 'Terminate') === 'Terminate'
        ? undefined
        : { condition: 'Accepted', reason: GatewayReason.UnsupportedValue, message: `${where(listener)}: tls.mode ${listener.tls?.mode} is not allowed for HTTPS, which terminates TLS` },
  },
  TLS: {
    routeKinds: ['TLSRoute'],
    family: 'tls',
    hostnames: true,
    terminates: (listener) => listener.tls?.mode === 'Terminate',
    refuse: (listener) =>
      listener.tls?.mode === 'Terminate' || listener.tls?.mode === 'Passthrough'
        ? undefined
        : {
            condition: 'Accepted',
            reason: GatewayReason.UnsupportedValue,
            message: `${where(listener)}: a TLS listener needs tls.mode Terminate or Passthrough${listener.tls?.mode === undefined ? '' : `, not ${listener.tls.mode}`}`,
          },
  },
  TCP: { routeKinds: ['TCPRoute'], family: 'tcp', hostnames: false },
};
