// Splicing a partial translation into the last result: the closure's virtual hosts, TLS chains, certificates,
// diagnostics, served Ingresses and references replace the last result's, everything else is kept as it was.
import { compareStrings, compareVirtualHostNames, type RouteTableIR, type TlsSecretIR, type TlsServerIR, type VirtualHostIR } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { type Ingress, type ObjectRef, refKey, refOf } from '../shared/kube-objects.js';
import { collectReferences, type References } from '../shared/references.js';
import { spliceSorted, type SortedOrder } from '../shared/sorted-splice.js';
import { mergeByKey, mergeSorted } from '../shared/sorted-merge.js';
import { ingressListenersOf, ingressTlsServersOf } from './ingress-listeners.js';
import type { Changed, Served } from './splice-changes.js';
import type { TranslationResult } from './translate-ingresses.js';

export interface SplicedTables {
  http: RouteTableIR;
  httpsTable: RouteTableIR;
  tlsServers: TlsServerIR[];
  /** Virtual hosts taken out of the served tables, and those put in. */
  removed: VirtualHostIR[];
  added: VirtualHostIR[];
}

/** The last result's tables and TLS chains with the closure's hosts replaced by the partial translation's. */
export function spliceTables(previous: TranslationResult, partial: TranslationResult, hosts: ReadonlySet<string>): SplicedTables {
  const taken = (table: RouteTableIR): VirtualHostIR[] => table.virtualHosts.filter((vhost) => hosts.has(vhost.name));
  const removedHttp: VirtualHostIR[] = [];
  const removedHttps: VirtualHostIR[] = [];
  const addedHttp = taken(ingressListenersOf(partial.ir).http.routeTable);
  const addedHttps = taken(partial.httpsTable);
  const http = splice(ingressListenersOf(previous.ir).http.routeTable, hosts, addedHttp, removedHttp);
  const httpsTable = splice(previous.httpsTable, hosts, addedHttps, removedHttps);
  const previousTlsServers = ingressTlsServersOf(previous.ir);
  const tlsServers = spliceTlsServers(previousTlsServers, ingressTlsServersOf(partial.ir), hosts);
  // The https table is served (and its clusters used) only with TLS servers.
  const servedBefore = previousTlsServers.length > 0;
  const servedAfter = tlsServers.length > 0;
  return {
    http,
    httpsTable,
    tlsServers,
    removed: servedBefore ? [...removedHttp, ...removedHttps] : removedHttp,
    added: servedAfter ? [...addedHttp, ...addedHttps] : addedHttp,
  };
}

/**
 * The TLS chains: those of the closure's hosts from the partial translation, the others as they were, in the
 * translator's order (by host, the default certificate's chain last); they serve the spliced https table.
 */
export function spliceTlsServers(previous: readonly TlsServerIR[], partial: readonly TlsServerIR[], hosts: ReadonlySet<string>): TlsServerIR[] {
  const hostOf = (server: TlsServerIR): string | undefined => (server.serverNames.length === 1 ? server.serverNames[0] : undefined);
  const inClosure = (server: TlsServerIR): boolean => {
    const host = hostOf(server);
    return host !== undefined && hosts.has(host);
  };
  const kept = previous.filter((server) => !inClosure(server));
  const keptHosts = kept.filter((server) => hostOf(server) !== undefined);
  const others = kept.filter((server) => hostOf(server) === undefined); // the default certificate's chain
  const added = partial.filter(inClosure);
  const merged = mergeByKey(keptHosts, added, (server) => hostOf(server)!);
  return [...merged, ...others];
}

/**
 * The certificates the spliced TLS chains use: the partial translation's where it has them (a Secret's certificate
 * object is the same for the same Secret object, tls-secret.ts), the others as they were. The last result's list
 * itself when that is what they are (no SDS change to hand on).
 */
export function spliceSecrets(previous: TranslationResult, partial: TranslationResult, tlsServers: readonly TlsServerIR[]): TlsSecretIR[] | undefined {
  const byName = new Map<string, TlsSecretIR>();
  for (const secret of previous.ir.secrets) byName.set(secret.name, secret);
  for (const secret of partial.ir.secrets) byName.set(secret.name, secret);
  const names = [...new Set(tlsServers.map((server) => server.secret))].sort(compareStrings);
  const secrets: TlsSecretIR[] = [];
  for (const name of names) {
    const secret = byName.get(name);
    if (secret === undefined) return undefined; // not expected: every chain's certificate is in one of both
    secrets.push(secret);
  }
  const same = secrets.length === previous.ir.secrets.length && secrets.every((secret, i) => secret === previous.ir.secrets[i]);
  return same ? previous.ir.secrets : secrets;
}

/** Diagnostics of the re-translated Ingresses (and of the old versions of changed ones) are replaced. */
export function spliceDiagnostics(previous: TranslationResult, partial: TranslationResult, closure: ReadonlySet<Ingress>, changed: Changed<Ingress>): Diagnostic[] {
  const retranslated = new Set<string>();
  for (const ingress of closure) retranslated.add(refKey(refOf(ingress)));
  for (const [was, now] of changed.values()) for (const version of [was, now]) if (version !== undefined) retranslated.add(refKey(refOf(version)));
  // Both lists are sorted by object (each object's diagnostics in the order found), and no object is in both:
  // merging them gives what sorting the whole list would.
  const diagnosticKey = (d: Diagnostic): string => refKey(d.object);
  return mergeByKey(
    previous.diagnostics.filter((d) => !retranslated.has(refKey(d.object))),
    partial.diagnostics.filter((d) => retranslated.has(refKey(d.object))),
    diagnosticKey,
  );
}

/** The served Ingresses: the changed ones out, those of them served now back in. */
export function spliceServedIngresses(previous: TranslationResult, changed: Changed<Ingress>, served: Served): ObjectRef[] {
  const changedRefs = new Set<string>();
  for (const [was, now] of changed.values()) for (const version of [was, now]) if (version !== undefined) changedRefs.add(refKey(refOf(version)));
  const servedNow: ObjectRef[] = [];
  for (const [, now] of changed.values()) if (served(now)) servedNow.push(refOf(now));
  return spliceSorted(previous.servedIngresses, refOrder, changedRefs, servedNow);
}

/** The last result's references plus those of the changed Ingresses served now (see translateIncrementally). */
export function spliceReferences(previous: TranslationResult, changed: Changed<Ingress>, served: Served): References {
  const added = collectReferences([...changed.values()].flatMap(([, now]) => (served(now) ? [now] : [])));
  return {
    services: mergeSorted(previous.references.services, added.services),
    secrets: mergeSorted(previous.references.secrets, added.secrets),
  };
}

/** Served Ingresses are sorted by their key; virtual hosts by name, the catch-all last. */
export const refOrder: SortedOrder<ObjectRef, string> = { keyOf: refKey, compare: compareStrings };

export const virtualHostOrder: SortedOrder<VirtualHostIR, string> = { keyOf: (vhost) => vhost.name, compare: compareVirtualHostNames };

/** `table` with the virtual hosts named in `replaced` taken out and `added` merged in, in table order. */
/** Also pushes the virtual hosts taken out onto `removed`. */
export function splice(table: RouteTableIR, replaced: ReadonlySet<string>, added: readonly VirtualHostIR[], removed: VirtualHostIR[]): RouteTableIR {
  return { name: table.name, virtualHosts: spliceSorted(table.virtualHosts, virtualHostOrder, replaced, added, removed) };
}

