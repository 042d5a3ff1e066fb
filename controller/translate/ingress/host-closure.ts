// The Ingresses an incremental translation translates again: those sharing a host with a changed one, transitively,
// found through the host index (which moves to the new state as it goes).
import { catchAllHost } from '../../../ir/index.js';
import type { Ingress } from '../shared/kube-objects.js';
import type { HostIndex } from './host-index.js';
import { type Changed, type Changes, reachesBeyondHosts, type Served } from './splice-changes.js';

/** The index moved to the new state: old versions out, new ones in. Returns what undoes it (splice declined). */
export function updateHostIndex(index: HostIndex, changed: Changed<Ingress>, served: Served): () => void {
  const undo: (() => void)[] = [];
  for (const [was, now] of changed.values()) {
    if (served(was)) {
      index.remove(was);
      undo.push(() => index.add(was));
    }
    if (served(now)) {
      index.add(now);
      undo.push(() => index.remove(now));
    }
  }
  return () => {
    for (const step of undo.reverse()) step();
  };
}

/**
 * The Ingresses sharing a host with a changed one (or naming a changed Service or Secret), transitively, and every
 * host they or the old versions touch; undefined when that reaches beyond hosts (the catch-all, a default backend,
 * a default certificate, ingress-nginx annotations) or over `limit` Ingresses.
 */
export function hostClosure(index: HostIndex, changes: Changes, served: Served, limit: number): { hosts: Set<string>; ingresses: Set<Ingress> } | undefined {
  const hosts = new Set<string>();
  const closure = new Set<Ingress>();
  const queue: string[] = [];
  const visitHost = (host: string): void => {
    if (!hosts.has(host)) {
      hosts.add(host);
      queue.push(host);
    }
  };
  for (const [was, now] of changes.ingresses.values()) {
    if (served(was)) for (const host of index.hostsOf(was)) visitHost(host);
    if (served(now)) for (const host of index.hostsOf(now)) visitHost(host);
  }
  for (const service of changes.services.keys()) {
    for (const user of index.users(service)) {
      if (user.spec?.defaultBackend !== undefined) return undefined; // in every virtual host
      for (const host of index.hostsOf(user)) visitHost(host);
    }
  }
  // An Ingress naming a changed Secret is translated again, with its hosts (and so everyone sharing them). Who else
  // may read a Secret (auth Secrets of ingress-nginx annotations, a default certificate) reaches beyond hosts.
  for (const secret of changes.secrets.keys()) {
    for (const user of index.secretUsers(secret)) {
      if (reachesBeyondHosts(user)) return undefined;
      closure.add(user);
      for (const host of index.hostsOf(user)) visitHost(host);
    }
  }
  while (queue.length > 0) {
    const host = queue.pop()!;
    if (host === catchAllHost) return undefined; // host-less rules: the catch-all is everyone's
    for (const ingress of index.contributors(host)) {
      if (closure.has(ingress)) continue;
      if (reachesBeyondHosts(ingress)) return undefined;
      closure.add(ingress);
      if (closure.size > limit) return undefined;
      for (const next of index.hostsOf(ingress)) visitHost(next);
    }
  }
  return { hosts, ingresses: closure };
}
