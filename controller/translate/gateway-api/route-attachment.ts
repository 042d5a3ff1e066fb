// Route attachment, for every route kind: a route's parentRefs -> our Gateways' served listeners (sectionName, port),
// allowedRoutes (namespaces, kinds), hostname intersection and listener isolation. A parentRef to a Gateway reaches
// the Gateway's own listeners only; one of kind ListenerSet reaches that set's (listener-sets.ts). The result per parentRef is
// what the route's status.parents entry says (Accepted or why not) and where the route is served.
import type { GRPCRoute, Gateway, HTTPRoute, ListenerSet, ParentReference, TCPRoute, TLSRoute } from '../shared/kube-objects.js';
import { namespaceOf } from '../shared/kinds.js';
import { gatewayGroup } from './backend-refs.js';
import { claimedByMoreSpecific, hostnameError, intersectHostnames } from './hostname-intersection.js';
import type { AcceptedListener } from './listener-acceptance.js';
import type { ListenerSetParent } from './listener-sets.js';
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
  /** The Gateway served (the ListenerSet's parent when the parentRef names a ListenerSet). */
  gateway: Gateway;
  /** The ListenerSet the parentRef names; absent: it names the Gateway. */
  set?: ListenerSet;
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
  /** ListenerSets of our Gateways by `namespace/name` (taken by their Gateway or not). */
  listenerSets: ReadonlyMap<string, ListenerSetParent>;
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
    const kind = parentRef.kind ?? 'Gateway';
    if ((parentRef.group ?? gatewayGroup) !== gatewayGroup || (kind !== 'Gateway' && kind !== 'ListenerSet')) continue;
    const key = `${parentRef.namespace ?? routeNamespace}/${parentRef.name}`;
    const set = kind === 'ListenerSet' ? context.listenerSets.get(key)?.set : undefined;
    const gateway = kind === 'ListenerSet' ? context.listenerSets.get(key)?.gateway : context.gateways.get(key);
    // Not one of our Gateways (or a ListenerSet of one): another controller's business.
    if (gateway === undefined) continue;
    const parent: ParentAttachment = { index, parentRef, gateway, ...(set === undefined ? {} : { set }), listeners: [], attachedUnserved: [] };
    parents.push(parent);
    const refuse = (reason: string, message: string): void => {
      report(reason, message);
      parent.refusal = { reason, message };
    };
    const holder = set ?? gateway;
    const where = `parentRef ${index} (${holder.kind} ${namespaceOf(holder.metadata)}/${holder.metadata.name})`;
    const candidates = [...context.listeners, ...context.attachableOnly].filter(
      (l) =>
        l.gateway === gateway &&
        l.set === set &&
        (parentRef.sectionName === undefined || l.listener.name === parentRef.sectionName) &&
        (parentRef.port === undefined || l.listener.port === parentRef.port),
    );
    const notTaken = kind === 'ListenerSet' ? context.listenerSets.get(key)?.notAllowed : undefined;
    if (notTaken !== undefined) {
      refuse(GatewayReason.NoMatchingParent, `${where}: ${notTaken}`);
      continue;
    }
    if (candidates.length === 0) {
      refuse(GatewayReason.NoMatchingParent, `${where}: the ${holder.kind} has no served listener${parentRef.sectionName === undefined ? '' : ` named ${parentRef.sectionName}`}${parentRef.port === undefined ? '' : ` on port ${parentRef.port}`}`);
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
