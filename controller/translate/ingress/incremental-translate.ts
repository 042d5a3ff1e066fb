// Incremental translation: when only some Ingresses changed, translate just the Ingresses that share a host with
// them (transitively) and splice their virtual hosts into the previous result, instead of translating every
// Ingress again. Exact, not approximate: every input of a host's virtual host, TLS filter chain and certificate is
// an Ingress contributing to that host (rules or TLS), a Service or Secret they name, or something global
// (classes, the default backend, options), so a set of Ingresses closed under sharing hosts translates to the same
// virtual hosts and TLS chains alone as among all others (a changed Service or Secret brings the Ingresses naming
// it). Whatever this cannot prove unchanged (a global input, a host-less rule or TLS entry, ingress-nginx
// annotations) makes it decline, and the caller translates everything. Pure; the host index it keeps is a cache
// of the state.
import { catchAllHost, type ClusterIR, compareStrings, compareVirtualHostNames, type RouteTableIR, type TlsSecretIR, type TlsServerIR, type VirtualHostIR } from '../../../ir/index.js';
import type { Diagnostic } from '../shared/diagnostics.js';
import { hasNginxAnnotations, type HostIndex } from './host-index.js';
import { isServedByUs } from './ingress-class.js';
import { type ClusterState, type Ingress, type ObjectRef, refKey, refOf, type Secret, type Service } from '../shared/kube-objects.js';
import type { TranslateOptions } from '../shared/options.js';
import { collectReferences, type References } from '../shared/references.js';
import { spliceSorted, type SortedOrder } from '../shared/sorted-splice.js';
import { unchangedBeyond } from '../shared/unchanged-inputs.js';
import { translateIngresses, type TranslationResult } from './translate-ingresses.js';

/** At most this many changed Ingresses, and a closure of at most this share of all, are worth splicing. */
const maxChanged = 64;
const maxClosureShare = 0.25;

/** What an incremental translation starts from: the previous input and its translation. */
export interface TranslationBase {
  state: ClusterState;
  result: TranslationResult;
  /** Served Ingresses of `state` by host: updated in place to `state`'s successor when a splice succeeds. */
  index: HostIndex;
}

/**
 * The translation of `state`, made from `base` by re-translating only the Ingresses around the changed ones, or
 * undefined when that cannot be shown to equal a full translation (the caller then calls translate()).
 * `references` may keep names a changed Ingress no longer uses until the next full translation: a superset only
 * lets an unrelated Service or Secret event cause a build, it never hides a relevant one.
 */
export function translateIncrementally(base: TranslationBase, state: ClusterState, options: TranslateOptions): TranslationResult | undefined {
  const previous = base.result;
  if (!sameGlobalInputs(base.state, state) || !isSpliceable(previous)) return undefined;
  const changes = changesBetween(base.state, state);
  if (changes === undefined) return undefined;
  const served = (ingress: Ingress | undefined): ingress is Ingress => ingress !== undefined && isServedByUs(ingress, state.ingressClasses, options);
  if (!changesStayWithinHosts(changes.ingresses, served)) return undefined;

  const undoIndex = updateHostIndex(base.index, changes.ingresses, served);
  const around = hostClosure(base.index, changes, served, Math.max(maxChanged, state.ingresses.length * maxClosureShare));
  if (around === undefined) {
    undoIndex();
    return undefined;
  }
  const partial = translateAround(state, around.ingresses, served, options);

  const tables = spliceTables(previous, partial, around.hosts);
  const uses = clusterUsesAfter(previous, tables);
  const clusters = spliceClusters(previous, partial, uses, changes.services);
  const secrets = spliceSecrets(previous, partial, tables.tlsServers);
  if (clusters === undefined || secrets === undefined) {
    undoIndex();
    return undefined;
  }
  const result: TranslationResult = {
    ir: { ...previous.ir, http: tables.http, tlsServers: tables.tlsServers, clusters, secrets },
    diagnostics: spliceDiagnostics(previous, partial, around.ingresses, changes.ingresses),
    servedIngresses: spliceServedIngresses(previous, changes.ingresses, served),
    references: spliceReferences(previous, changes.ingresses, served),
    httpsTable: tables.httpsTable,
  };
  clusterUses.set(result, uses.counts);
  return result;
}

/** Whether an Ingress (version) is served by us, under the new state's classes and options. */
type Served = (ingress: Ingress | undefined) => ingress is Ingress;

/** Changed objects by key: [before, after], either undefined for an added or deleted one. */
type Changed<T> = Map<string, [T | undefined, T | undefined]>;

interface Changes {
  ingresses: Changed<Ingress>;
  services: Changed<Service>;
  secrets: Changed<Secret>;
}

/**
 * Every input the splice does not take (kinds.ts: those a `routes` build cannot take, such as IngressClasses and the
 * ingress-nginx ConfigMap, which every virtual host may depend on, and any list no kind names) is unchanged.
 */
function sameGlobalInputs(before: ClusterState, after: ClusterState): boolean {
  return unchangedBeyond('routes', before, after);
}

/** Whether the last result has nothing that reaches across hosts (fallback clusters, passthrough, server-name copies). */
function isSpliceable(previous: TranslationResult): boolean {
  if ((previous.ir.fallbackClusters?.length ?? 0) > 0 || (previous.ir.tlsPassthrough?.length ?? 0) > 0) return false;
  return previous.serverNameCopies !== true;
}

/** The changed Ingresses, Services and Secrets, or undefined when there are none or too many. */
function changesBetween(before: ClusterState, after: ClusterState): Changes | undefined {
  const ingresses = changedObjects(before.ingresses, after.ingresses);
  // A Service changes what the Ingresses naming it translate to (ports, ExternalName), a Secret what those naming
  // it in spec.tls do (TLS chains, redirects, diagnostics): those come along.
  const services = changedObjects(before.services, after.services);
  const secrets = changedObjects(before.secrets, after.secrets);
  if (ingresses === undefined || services === undefined || secrets === undefined) return undefined;
  if (ingresses.size + services.size + secrets.size === 0) return undefined;
  return { ingresses, services, secrets };
}

/** Whether no version of a changed served Ingress reaches beyond its hosts. */
function changesStayWithinHosts(changed: Changed<Ingress>, served: Served): boolean {
  for (const [was, now] of changed.values()) {
    for (const version of [was, now]) if (served(version) && reachesBeyondHosts(version)) return false;
  }
  return true;
}

/**
 * Global inputs (the default backend, the default certificate of a TLS entry without hosts) and ingress-nginx
 * features (canaries, fallbacks, passthrough, auth Secrets) reach beyond the Ingress's hosts: not spliced.
 */
function reachesBeyondHosts(ingress: Ingress): boolean {
  if (ingress.spec?.defaultBackend !== undefined || hasNginxAnnotations(ingress)) return true;
  return (ingress.spec?.tls ?? []).some((entry) => (entry.hosts ?? []).length === 0);
}

/** The index moved to the new state: old versions out, new ones in. Returns what undoes it (splice declined). */
function updateHostIndex(index: HostIndex, changed: Changed<Ingress>, served: Served): () => void {
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
function hostClosure(index: HostIndex, changes: Changes, served: Served, limit: number): { hosts: Set<string>; ingresses: Set<Ingress> } | undefined {
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

/**
 * The translation of the closure alone. The default backend is every virtual host's last route: the Ingresses that
 * may provide it come along (their own hosts are not taken from this translation).
 */
function translateAround(state: ClusterState, closure: ReadonlySet<Ingress>, served: Served, options: TranslateOptions): TranslationResult {
  const defaultBackends = state.ingresses.filter((ingress) => ingress.spec?.defaultBackend !== undefined && served(ingress));
  return translateIngresses({ ...state, ingresses: [...closure, ...defaultBackends] }, options);
}

interface SplicedTables {
  http: RouteTableIR;
  httpsTable: RouteTableIR;
  tlsServers: TlsServerIR[];
  /** Virtual hosts taken out of the served tables, and those put in. */
  removed: VirtualHostIR[];
  added: VirtualHostIR[];
}

/** The last result's tables and TLS chains with the closure's hosts replaced by the partial translation's. */
function spliceTables(previous: TranslationResult, partial: TranslationResult, hosts: ReadonlySet<string>): SplicedTables {
  const taken = (table: RouteTableIR): VirtualHostIR[] => table.virtualHosts.filter((vhost) => hosts.has(vhost.name));
  const removedHttp: VirtualHostIR[] = [];
  const removedHttps: VirtualHostIR[] = [];
  const addedHttp = taken(partial.ir.http);
  const addedHttps = taken(partial.httpsTable);
  const http = splice(previous.ir.http, hosts, addedHttp, removedHttp);
  const httpsTable = splice(previous.httpsTable, hosts, addedHttps, removedHttps);
  const tlsServers = spliceTlsServers(previous.ir.tlsServers, partial.ir.tlsServers, hosts, httpsTable);
  // The https table is served (and its clusters used) only with TLS servers.
  const servedBefore = previous.ir.tlsServers.length > 0;
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
 * translator's order (by host, the default certificate's chain last), all serving the spliced https table.
 */
function spliceTlsServers(previous: readonly TlsServerIR[], partial: readonly TlsServerIR[], hosts: ReadonlySet<string>, httpsTable: RouteTableIR): TlsServerIR[] {
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
  return [...merged, ...others].map((server) => (server.routeTable === httpsTable ? server : { ...server, routeTable: httpsTable }));
}

/**
 * The certificates the spliced TLS chains use: the partial translation's where it has them (a Secret's certificate
 * object is the same for the same Secret object, tls-secret.ts), the others as they were. The last result's list
 * itself when that is what they are (no SDS change to hand on).
 */
function spliceSecrets(previous: TranslationResult, partial: TranslationResult, tlsServers: readonly TlsServerIR[]): TlsSecretIR[] | undefined {
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

/** How many virtual hosts use each cluster after a splice, and whether a cluster came or went. */
interface ClusterUses {
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
function clusterUsesAfter(previous: TranslationResult, tables: SplicedTables): ClusterUses {
  if (previous.ir.tlsServers.length > 0 !== tables.tlsServers.length > 0) {
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
function spliceClusters(previous: TranslationResult, partial: TranslationResult, { counts: uses, setChanged }: ClusterUses, changedServices: Changed<Service>): ClusterIR[] | undefined {
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

/** Diagnostics of the re-translated Ingresses (and of the old versions of changed ones) are replaced. */
function spliceDiagnostics(previous: TranslationResult, partial: TranslationResult, closure: ReadonlySet<Ingress>, changed: Changed<Ingress>): Diagnostic[] {
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
function spliceServedIngresses(previous: TranslationResult, changed: Changed<Ingress>, served: Served): ObjectRef[] {
  const changedRefs = new Set<string>();
  for (const [was, now] of changed.values()) for (const version of [was, now]) if (version !== undefined) changedRefs.add(refKey(refOf(version)));
  const servedNow: ObjectRef[] = [];
  for (const [, now] of changed.values()) if (served(now)) servedNow.push(refOf(now));
  return spliceSorted(previous.servedIngresses, refOrder, changedRefs, servedNow);
}

/** The last result's references plus those of the changed Ingresses served now (see translateIncrementally). */
function spliceReferences(previous: TranslationResult, changed: Changed<Ingress>, served: Served): References {
  const added = collectReferences([...changed.values()].flatMap(([, now]) => (served(now) ? [now] : [])));
  return {
    services: mergeSorted(previous.references.services, added.services),
    secrets: mergeSorted(previous.references.secrets, added.secrets),
  };
}

function keyOf(object: { metadata: { name: string; namespace?: string } }): string {
  return `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
}

/** Changed objects by key: [before, after], either undefined for an added or deleted one. */
function changedObjects<T extends { metadata: { name: string; namespace?: string } }>(before: readonly T[], after: readonly T[]): Changed<T> | undefined {
  const changed: Changed<T> = new Map();
  // The store keeps unchanged objects and their order: walk both lists in step while they agree, from the
  // start and from the end, and compare by key only what lies between.
  let i = 0;
  while (i < before.length && i < after.length && before[i] === after[i]) i++;
  if (i === before.length && i === after.length) return changed;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > i && endAfter > i && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore -= 1;
    endAfter -= 1;
  }
  const old = new Map<string, T>();
  for (let j = i; j < endBefore; j++) old.set(keyOf(before[j]!), before[j]!);
  for (let j = i; j < endAfter; j++) {
    const object = after[j]!;
    const key = keyOf(object);
    const was = old.get(key);
    old.delete(key);
    if (was !== object) changed.set(key, [was, object]);
    if (changed.size > maxChanged) return undefined;
  }
  for (const [key, was] of old) changed.set(key, [was, undefined]);
  return changed.size > maxChanged ? undefined : changed;
}

/** Served Ingresses are sorted by their key; virtual hosts by name, the catch-all last. */
const refOrder: SortedOrder<ObjectRef, string> = { keyOf: refKey, compare: compareStrings };
const virtualHostOrder: SortedOrder<VirtualHostIR, string> = { keyOf: (vhost) => vhost.name, compare: compareVirtualHostNames };

/** `table` with the virtual hosts named in `replaced` taken out and `added` merged in, in table order. */
/** Also pushes the virtual hosts taken out onto `removed`. */
function splice(table: RouteTableIR, replaced: ReadonlySet<string>, added: readonly VirtualHostIR[], removed: VirtualHostIR[]): RouteTableIR {
  return { name: table.name, virtualHosts: spliceSorted(table.virtualHosts, virtualHostOrder, replaced, added, removed) };
}

/** `a` and `b` (both sorted) merged without duplicates; `a` itself when `b` adds nothing (the usual case). */
function mergeSorted(a: string[], b: readonly string[]): string[] {
  const missing = b.filter((name) => !sortedIncludes(a, name));
  if (missing.length === 0) return a;
  return [...new Set([...a, ...missing])].sort(compareStrings);
}

/** Per virtual host: the clusters its routes forward to (the HTTPS table and later builds meet most hosts again). */
const clusterNamesByHost = new WeakMap<VirtualHostIR, readonly string[]>();

function clusterNamesOf(vhost: VirtualHostIR): readonly string[] {
  let names = clusterNamesByHost.get(vhost);
  if (names === undefined) {
    const found = new Set<string>();
    for (const route of vhost.routes) {
      if (route.action.kind !== 'forward') continue;
      found.add(route.action.cluster);
      if (route.action.split !== undefined) found.add(route.action.split.cluster);
    }
    names = [...found];
    clusterNamesByHost.set(vhost, names);
  }
  return names;
}

function sortedIncludes(list: readonly string[], name: string): boolean {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareStrings(list[mid]!, name) < 0) low = mid + 1;
    else high = mid;
  }
  return low < list.length && list[low] === name;
}

/**
 * Two lists sorted by `keyOf`, merged (stable: on equal keys `a` first). Re-sorting the whole list with a
 * comparator that builds key strings per comparison cost more than the rest of a splice at 10,000 Ingresses.
 */
function mergeByKey<T>(a: readonly T[], b: readonly T[], keyOf: (item: T) => string): T[] {
  if (b.length === 0) return [...a];
  const out: T[] = [];
  let i = 0;
  let j = 0;
  let bKey = keyOf(b[0]!);
  while (i < a.length && j < b.length) {
    if (compareStrings(keyOf(a[i]!), bKey) <= 0) out.push(a[i++]!);
    else {
      out.push(b[j++]!);
      if (j < b.length) bKey = keyOf(b[j]!);
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Per translation result: how many virtual hosts of its served tables use each cluster (see clusterUsesAfter). */
const clusterUses = new WeakMap<TranslationResult, Map<string, number>>();

/** Counted once per result (a full translation's on its first splice), then carried from splice to splice. */
function clusterUsesOf(result: TranslationResult): Map<string, number> {
  let uses = clusterUses.get(result);
  if (uses === undefined) {
    uses = countClusterUses(result.ir.tlsServers.length > 0 ? [result.ir.http, result.httpsTable] : [result.ir.http]);
    clusterUses.set(result, uses);
  }
  return uses;
}

function countClusterUses(tables: readonly RouteTableIR[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    for (const vhost of table.virtualHosts) for (const name of clusterNamesOf(vhost)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}
