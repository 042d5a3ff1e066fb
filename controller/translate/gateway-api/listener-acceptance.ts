// Listener validation per Gateway: which listeners are served and, for each listener, why not when it is not. Common
// checks here (protocol known, not on an Ingress port, valid hostname, no hostname conflict on its port); a
// protocol's own checks come from listener-protocols.ts.
import { catchAllHost } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { namespaceOf } from '../shared/kinds.js';
import { type Gateway, type GatewayListener, refOf } from '../shared/kube-objects.js';
import { type TranslateOptions, defaultListenerPorts } from '../shared/options.js';
import { gatewayGroup } from './backend-refs.js';
import { hostnameError } from './hostname-intersection.js';
import type { GatewayBindings, ListenerBinding } from './listener-bindings.js';
import { type ListenerRefusal, listenerProtocols } from './listener-protocols.js';
import { GatewayReason } from './reasons.js';
import type { RouteGroupKind } from './status-data.js';

/** A Gateway listener that is served. */
export interface AcceptedListener {
  gateway: Gateway;
  listener: GatewayListener;
  /** Lower-cased; absent: every host. */
  hostname: string | undefined;
  /** The route kinds it takes: its protocol's, narrowed by allowedRoutes.kinds. */
  supportedKinds: RouteGroupKind[];
  /** The Envoy socket serving it (listener-bindings.ts): shared per port, or the Gateway's own. */
  binding: ListenerBinding;
}

/** What acceptance found about one listener of one Gateway (status.listeners reads it). */
export interface ListenerVerdict {
  listener: GatewayListener;
  supportedKinds: RouteGroupKind[];
  /** Absent: served (then `accepted` is set). */
  refusal?: ListenerRefusal;
  accepted?: AcceptedListener;
  /** allowedRoutes.kinds names a kind this listener cannot take (the listener is served for the others). */
  invalidRouteKinds?: string;
}

export interface ListenerAcceptance {
  /** Served listeners, Gateways oldest first, each Gateway's in its order. */
  accepted: AcceptedListener[];
  /** Per Gateway, a verdict per listener in the Gateway's order. */
  verdicts: Map<Gateway, ListenerVerdict[]>;
}

/** The route kinds a listener takes, and the kinds allowedRoutes names that it cannot take. */
function routeKindsOf(listener: GatewayListener, protocolKinds: readonly string[]): { supported: RouteGroupKind[]; invalid: string[] } {
  const named = listener.allowedRoutes?.kinds;
  if (named === undefined || named.length === 0) return { supported: protocolKinds.map((kind) => ({ group: gatewayGroup, kind })), invalid: [] };
  const supported: RouteGroupKind[] = [];
  const invalid: string[] = [];
  for (const k of named) {
    const group = k.group ?? gatewayGroup;
    if (group === gatewayGroup && protocolKinds.includes(k.kind)) {
      if (!supported.some((s) => s.kind === k.kind)) supported.push({ group, kind: k.kind });
    } else invalid.push(group === '' ? k.kind : `${k.kind}.${group}`);
  }
  return { supported, invalid };
}

export function acceptListeners(gateways: readonly Gateway[], options: TranslateOptions, bindings: GatewayBindings, diagnostics: Diagnostic[]): ListenerAcceptance {
  const ingressPorts = options.listenerPorts ?? defaultListenerPorts;
  const claimed = new Map<string, string>();
  const accepted: AcceptedListener[] = [];
  const verdicts = new Map<Gateway, ListenerVerdict[]>();
  for (const gateway of gateways) {
    const gatewayVerdicts: ListenerVerdict[] = [];
    verdicts.set(gateway, gatewayVerdicts);
    const refuse = (listener: GatewayListener, supportedKinds: RouteGroupKind[], refusal: ListenerRefusal): void => {
      diagnostics.push({ object: refOf(gateway), severity: 'Warning', reason: refusal.reason, message: refusal.message });
      gatewayVerdicts.push({ listener, supportedKinds, refusal });
    };
    for (const listener of gateway.spec?.listeners ?? []) {
      const where = `listener ${listener.name} (port ${listener.port})`;
      const protocol = listenerProtocols[listener.protocol];
      if (protocol === undefined) {
        refuse(listener, [], { condition: 'Accepted', reason: GatewayReason.UnsupportedProtocol, message: `${where}: protocol ${listener.protocol} is not supported yet; only HTTP listeners are served` });
        continue;
      }
      const kinds = routeKindsOf(listener, protocol.routeKinds);
      // Ingress keeps its ports: one plaintext port has one route table, and sharing it is later work. (A Gateway
      // with Envoy ports of its own maps its listener ports elsewhere.)
      if (bindings.sharesIngressPorts && (listener.port === ingressPorts.http || listener.port === ingressPorts.https)) {
        refuse(listener, kinds.supported, { condition: 'Accepted', reason: GatewayReason.PortUnavailable, message: `${where}: port ${listener.port} is the Ingress listeners' (--http-port, --https-port); choose another port` });
        continue;
      }
      if (listener.hostname !== undefined) {
        const error = hostnameError(listener.hostname);
        if (error !== undefined) {
          refuse(listener, kinds.supported, { condition: 'Accepted', reason: GatewayReason.InvalidHostname, message: `${where}: ${error}` });
          continue;
        }
      }
      const addressProblem = bindings.addressProblem(gateway);
      const binding = bindings.bindingOf(gateway, listener.port);
      if (binding === undefined) {
        // A Gateway without an address was reported once, for the Gateway; its listeners just say so.
        const why = addressProblem?.blocking === true ? `the Gateway has no address (${addressProblem.reason})` : (bindings.portProblem(gateway, listener.port) ?? 'no Envoy port');
        const refusal: ListenerRefusal = { condition: 'Accepted', reason: GatewayReason.PortUnavailable, message: `${where}: ${why}` };
        if (addressProblem?.blocking === true) gatewayVerdicts.push({ listener, supportedKinds: kinds.supported, refusal });
        else refuse(listener, kinds.supported, refusal);
        continue;
      }
      const hostname = listener.hostname?.toLowerCase();
      // Listeners conflict only on one socket: Gateways with sockets of their own never conflict with each other.
      const key = `${binding.key}/${hostname ?? catchAllHost}`;
      const owner = claimed.get(key);
      if (owner !== undefined) {
        refuse(listener, kinds.supported, { condition: 'Conflicted', reason: GatewayReason.HostnameConflict, message: `${where}: hostname ${hostname ?? '(any)'} on port ${listener.port} is already served by ${owner}` });
        continue;
      }
      const ownRefusal = protocol.refuse?.(listener, gateway);
      if (ownRefusal !== undefined) {
        refuse(listener, kinds.supported, ownRefusal);
        continue;
      }
      claimed.set(key, `Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name} listener ${listener.name}`);
      const served: AcceptedListener = { gateway, listener, hostname, supportedKinds: kinds.supported, binding };
      accepted.push(served);
      gatewayVerdicts.push({
        listener,
        supportedKinds: kinds.supported,
        accepted: served,
        ...(kinds.invalid.length > 0 ? { invalidRouteKinds: `allowedRoutes.kinds ${kinds.invalid.join(', ')} cannot attach to a listener of protocol ${listener.protocol}` } : {}),
      });
    }
  }
  return { accepted, verdicts };
}
