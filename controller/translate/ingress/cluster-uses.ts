// Which clusters a spliced result uses: per result, how many virtual hosts of its served tables use each cluster,
// carried from splice to splice (minus the hosts taken out, plus those put in) instead of a walk of every route.
import { type ClusterIR, type RouteTableIR, routeClusters, type VirtualHostIR } from '../../../ir/index.js';
import type { Service } from '../shared/kube-objects.js';
import { ingressListenersOf, ingressTlsServersOf } from './ingress-listeners.js';
import type { Changed } from './splice-changes.js';
import type { SplicedTables } from './table-splice.js';
import { mergeByKey, sortedIncludes } from '../shared/sorted-merge.js';
import type { TranslationResult } from './translate-ingresses.js';

/** How many virtual hosts use each cluster after a splice, and whether a cluster came or went. */
export interface ClusterUses {
  counts: Map<string, number>;
  /** Some cluster is used now that was not, or no longer used: the cluster list changes. */
  setChanged: boolean;
}

/**
 * Which clusters the spliced tables use: the last result's counts, minus the hosts taken out, plus those put in
 * (not a walk of every route of both tables). The counts move from the last result to this one rather than being
 * copied (a copy of 50,000 entries per build): the last result is not spliced from again once it has a successor
 * (a declined or refused build starts over with a full translation), and should it be, its counts are made anew.
 * When the https table starts or stops being served (the first TLS chain, or the last one gone), counted again.
 */
export function clusterUsesAfter(previous: TranslationResult, tables: SplicedTables): ClusterUses {
  if (ingressTlsServersOf(previous.ir).length > 0 !== tables.tlsServers.length > 0) {
    return { counts: countClusterUses(tables.tlsServers.length > 0 ? [tables.http, tables.httpsTable] : [tables.http]), setChanged: true };
  }
  const counts = clusterUsesOf(previous);
  clusterUses.delete(previous);
  let setChanged = false;
  for (const vhost of tables.removed) {
    for (const name of clusterNamesOf(vhost)) {
      const count = counts.get(name)! - 1;
      if (count === 0) {
        counts.delete(name);
        setChanged = true;
      } else counts.set(name, count);
    }
  }
  for (const vhost of tables.added) {
    for (const name of clusterNamesOf(vhost)) {
      const count = counts.get(name) ?? 0;
      if (count === 0) setChanged = true;
      counts.set(name, count + 1);
    }
  }
  return { counts, setChanged };
}

/**
 * The clusters the tables use, as objects of the previous translation where it had them (a cluster's name says
 * everything about it, given the same Services), else of the partial one; undefined when neither has one of them
 * (the partial translation serves no TLS chain, so it leaves out clusters only its https table uses).
 */
export function spliceClusters(previous: TranslationResult, partial: TranslationResult, { counts: uses, setChanged }: ClusterUses, changedServices: Changed<Service>): ClusterIR[] | undefined {
  // The same clusters used, of the same Services: the same list (no walk of it), so what is keyed by it is kept.
  if (!setChanged && changedServices.size === 0 && uses.size === previous.ir.clusters.length) return previous.ir.clusters;
  // Both lists are sorted by name: the kept ones stay in order and the partial translation's are merged in.
  const serviceChanged = (cluster: ClusterIR): boolean =>
    changedServices.size > 0 && changedServices.has(`${cluster.service.namespace}/${cluster.service.name}`);
  const kept = previous.ir.clusters.filter((cluster) => uses.has(cluster.name) && !serviceChanged(cluster));
  const keptNames = kept.map((cluster) => cluster.name);
  const fromPartial = partial.ir.clusters.filter((cluster) => uses.has(cluster.name) && !sortedIncludes(keptNames, cluster.name));
  if (kept.length + fromPartial.length !== uses.size) return undefined;
  // The same list when nothing changed, so what is keyed by it downstream (endpoints, the endpoint index) is kept.
  if (fromPartial.length === 0 && kept.length === previous.ir.clusters.length) return previous.ir.clusters;
  return mergeByKey(kept, fromPartial, (cluster) => cluster.name);
}

/** Per virtual host: the clusters its routes forward to (the HTTPS table and later builds meet most hosts again). */
export const clusterNamesByHost = new WeakMap<VirtualHostIR, readonly string[]>();

export function clusterNamesOf(vhost: VirtualHostIR): readonly string[] {
  let names = clusterNamesByHost.get(vhost);
  if (names === undefined) {
    const found = new Set<string>();
    for (const route of vhost.routes) for (const name of routeClusters(route)) found.add(name);
    names = [...found];
    clusterNamesByHost.set(vhost, names);
  }
  return names;
}

/** Per translation result: how many virtual hosts of its served tables use each cluster (see clusterUsesAfter). */
export const clusterUses = new WeakMap<TranslationResult, Map<string, number>>();

/** Counted once per result (a full translation's on its first splice), then carried from splice to splice. */
export function clusterUsesOf(result: TranslationResult): Map<string, number> {
  let uses = clusterUses.get(result);
  if (uses === undefined) {
    const http = ingressListenersOf(result.ir).http.routeTable;
    uses = countClusterUses(ingressTlsServersOf(result.ir).length > 0 ? [http, result.httpsTable] : [http]);
    clusterUses.set(result, uses);
  }
  return uses;
}

export function countClusterUses(tables: readonly RouteTableIR[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    for (const vhost of table.virtualHosts) for (const name of clusterNamesOf(vhost)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** Hands a spliced result's counts on to the next splice from it. */
export function recordClusterUses(result: TranslationResult, counts: Map<string, number>): void {
  clusterUses.set(result, counts);
}
