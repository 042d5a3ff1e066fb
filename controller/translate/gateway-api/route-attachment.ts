// Route attachment, for every route kind: a route's parentRefs -> our Gateways' served listeners (sectionName, port),
// allowedRoutes (namespaces, kinds), hostname intersection and listener isolation. The result per parentRef is
// what the route's status.parents entry says (Accepted or why not) and where the route is served.
import type { GRPCRoute, Gateway, HTTPRoute, ParentReference, TCPRoute, TLSRoute } from '../shared/kube-objects.js';
import { namespaceOf } from '../shared/kinds.js';
import { gatewayGroup } from './backend-refs.js';
import { claimedByMoreSpecific, hostnameError, intersectHostnames } from './hostname-intersection.js';
import type { AcceptedListener } from './listener-acceptance.js';
import { GatewayReason } from './reasons.js';

/** Every route kind's object type (a new kind joins this union and route-kinds.ts). */
export type AttachableRoute = HTTPRoute | GRPCRoute | TLSRoute | TCPRoute;

export interface Refusal {
  reason: string;
  message: string;
}

/** One parentRef of a route to one of our Gateways. */
export interface ParentAttachment {
  /** Index in spec.parentRefs. */
  index: number;
  parentRef: ParentReference;
  gateway: Gateway;
  /** The listeners the route is served on through this parentRef, with its hosts there. Empty: see `refusal`. */
  listeners: { listener: AcceptedListener; hosts: string[] }[];
  /** Listeners refused for their certificates that the route attaches to anyway (counted, never served). */
  attachedUnserved: AcceptedListener[];
  refusal?: Refusal;
}

export interface RouteAttachment {
  /** Some parentRef names one of our Gateways (else the route is another controller's business). */
  ours: boolean;
  /** Per parentRef to one of our Gateways, in spec order. */
  parents: ParentAttachment[];
  /**
   * Hosts per Envoy socket (ListenerBinding key: a port, or a Gateway's own port) the route serves, across its
   * parentRefs (a host reached twice is served once).
   */
  hostsByBinding: Map<string, Set<string>>;
}

/** Our Gateways by `namespace/name`, and the served listeners, which attachment reads. */
export interface AttachmentContext {
  gateways: ReadonlyMap<string, Gateway>;
  listeners: readonly AcceptedListener[];
  /** Listeners refused for their certificate references alone: routes attach to them, nothing is served there. */
  attachableOnly: ReadonlySet<AcceptedListener>;
  /** Whether a listener's allowedRoutes.namespaces admit a route of `namespace` (namespace-selection.ts). */
  admitsNamespace: (listener: AcceptedListener, namespace: string) => boolean;
}

/** `report` gets the route's attachment problems as diagnostics, in the order found. */
export function attachRoute(route: AttachableRoute, context: AttachmentContext, report: (reason: string, message: string) => void): RouteAttachment {
  const routeNamespace = namespaceOf(route.metadata);
  // TCPRoutes have no host names: they take the listener's whole socket.
  const hostnames = route.kind === 'TCPRoute' ? [] : (route.spec?.hostnames ?? []);
  const badHostnames = hostnames.filter((h) => hostnameError(h) !== undefined);
  const routeHostnames = hostnames.filter((h) => hostnameError(h) === undefined);
  const hostsByBinding = new Map<string, Set<string>>();
  const parents: ParentAttachment[] = [];
  for (const [index, parentRef] of (route.spec?.parentRefs ?? []).entries()) {
    if ((parentRef.group ?? gatewayGroup) !== gatewayGroup || (parentRef.kind ?? 'Gateway') !== 'Gateway') continue;
    const gateway = context.gateways.get(`${parentRef.namespace ?? routeNamespace}/${parentRef.name}`);
    // Not one of our Gateways: another controller's business.
    if (gateway === undefined) continue;
    const parent: ParentAttachment = { index, parentRef, gateway, listeners: [], attachedUnserved: [] };
    parents.push(parent);
    const refuse = (reason: string, message: string): void => {
      report(reason, message);
      parent.refusal = { reason, message };
    };
    const where = `parentRef ${index} (Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name})`;
    const candidates = [...context.listeners, ...context.attachableOnly].filter(
      (l) =>
        l.gateway === gateway &&
        (parentRef.sectionName === undefined || l.listener.name === parentRef.sectionName) &&
        (parentRef.port === undefined || l.listener.port === parentRef.port),
    );
    if (candidates.length === 0) {
      refuse(GatewayReason.NoMatchingParent, `${where}: the Gateway has no served listener${parentRef.sectionName === undefined ? '' : ` named ${parentRef.sectionName}`}${parentRef.port === undefined ? '' : ` on port ${parentRef.port}`}`);
      continue;
    }
    const allowed = candidates.filter(
      (l) => l.supportedKinds.some((k) => k.kind === route.kind) && context.admitsNamespace(l, routeNamespace),
    );
    if (allowed.length === 0) {
      refuse(GatewayReason.NotAllowedByListeners, `${where}: the listener's allowedRoutes do not admit ${route.kind === 'HTTPRoute' ? 'an' : 'a'} ${route.kind} from namespace ${routeNamespace}`);
      continue;
    }
    for (const l of allowed) {
      // Listener isolation: a name another listener on the socket serves more specifically is that listener's (a
      // route on a catch-all listener, of any namespace it admits, never joins a host a named listener serves).
      const hosts = intersectHostnames(l.hostname, routeHostnames).filter(
        (host) => !context.listeners.some((other) => other !== l && other.binding.key === l.binding.key && claimedByMoreSpecific(host, l.hostname, other.hostname)),
      );
      if (hosts.length === 0) continue;
      if (context.attachableOnly.has(l)) {
        parent.attachedUnserved.push(l);
        continue;
      }
      parent.listeners.push({ listener: l, hosts });
      let set = hostsByBinding.get(l.binding.key);
      if (set === undefined) hostsByBinding.set(l.binding.key, (set = new Set()));
      for (const h of hosts) set.add(h);
    }
    if (parent.listeners.length === 0 && parent.attachedUnserved.length === 0) refuse(GatewayReason.NoMatchingListenerHostname, `${where}: none of the route's hostnames meets the listener's`);
  }
  // Said only of our routes: another controller's route is not ours to diagnose.
  if (parents.length > 0) for (const h of badHostnames) report(GatewayReason.InvalidHostname, hostnameError(h) ?? '');
  return { ours: parents.length > 0, parents, hostsByBinding };
}
