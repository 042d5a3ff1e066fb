// A route's parentRefs -> the served listeners it attaches to, with the host names it serves on each; each parentRef
// that attaches nowhere is reported with the spec's reason (NoMatchingParent, NotAllowedByListeners,
// NoMatchingListenerHostname). Refs to Gateways that are not ours are another controller's business.
import { namespaceOf } from '../shared/kinds.js';
import type { Gateway, ParentReference } from '../shared/kube-objects.js';
import { gatewayGroup } from './backend-refs.js';
import { claimedByMoreSpecific, intersectHostnames } from './hostname-intersection.js';
import { type AcceptedListener, allowsRoute } from './listeners.js';
import { GatewayReason } from './reasons.js';

export interface Attachment {
  listener: AcceptedListener;
  /** Lower-cased, sorted; `['*']`: every host the listener serves (neither names any). */
  hosts: string[];
}

export interface RouteParents {
  /** Whether any parentRef names one of our Gateways. */
  ours: boolean;
  attachments: Attachment[];
}

export function attachRoute(
  parentRefs: readonly ParentReference[],
  route: { kind: string; namespace: string; hostnames: readonly string[] },
  gateways: ReadonlyMap<string, Gateway>,
  listeners: readonly AcceptedListener[],
  report: (reason: string, message: string) => void,
): RouteParents {
  let ours = false;
  const attachments: Attachment[] = [];
  for (const [i, parent] of parentRefs.entries()) {
    if ((parent.group ?? gatewayGroup) !== gatewayGroup || (parent.kind ?? 'Gateway') !== 'Gateway') continue;
    const gateway = gateways.get(`${parent.namespace ?? route.namespace}/${parent.name}`);
    if (gateway === undefined) continue;
    ours = true;
    const where = `parentRef ${i} (Gateway ${namespaceOf(gateway.metadata)}/${gateway.metadata.name})`;
    const candidates = listeners.filter(
      (l) =>
        l.gateway === gateway &&
        (parent.sectionName === undefined || l.listener.name === parent.sectionName) &&
        (parent.port === undefined || l.listener.port === parent.port),
    );
    if (candidates.length === 0) {
      report(GatewayReason.NoMatchingParent, `${where}: the Gateway has no served listener${parent.sectionName === undefined ? '' : ` named ${parent.sectionName}`}${parent.port === undefined ? '' : ` on port ${parent.port}`}`);
      continue;
    }
    const allowed = candidates.filter((l) => allowsRoute(l, route.kind, route.namespace));
    if (allowed.length === 0) {
      report(GatewayReason.NotAllowedByListeners, `${where}: the listener's allowedRoutes do not admit a ${route.kind} from namespace ${route.namespace}`);
      continue;
    }
    let attached = false;
    for (const l of allowed) {
      // Listener isolation: a name another listener on the port serves more specifically is that listener's.
      const hosts = intersectHostnames(l.hostname, route.hostnames).filter(
        (host) => !listeners.some((other) => other !== l && other.listener.port === l.listener.port && claimedByMoreSpecific(host, l.hostname, other.hostname)),
      );
      if (hosts.length === 0) continue;
      attached = true;
      const known = attachments.find((a) => a.listener === l);
      if (known === undefined) attachments.push({ listener: l, hosts });
      else known.hosts = [...new Set([...known.hosts, ...hosts])].sort();
    }
    if (!attached) report(GatewayReason.NoMatchingListenerHostname, `${where}: none of the route's hostnames meets the listener's`);
  }
  return { ours, attachments };
}
