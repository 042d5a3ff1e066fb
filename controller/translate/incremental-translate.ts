// Incremental translation: when only some Ingresses changed, translate just the Ingresses that share a host with
// them (transitively) and splice their virtual hosts into the previous result, instead of translating every
// Ingress again. Exact, not approximate: every input of a host's virtual host is an Ingress contributing to that
// host (rules or TLS), a Service they name, or something global (classes, Secrets, the default backend, options),
// so a set of Ingresses closed under sharing hosts translates to the same virtual hosts alone as among all others
// (a changed Service brings the Ingresses naming it). Whatever
// this cannot prove unchanged (a global input, a host-less rule, TLS sections, ingress-nginx annotations) makes
// it decline, and the caller translates everything. Pure; the host index it keeps is a cache of the state.
import { catchAllHost, type ClusterIR, compareStrings, compareVirtualHosts, type RouteTableIR, type VirtualHostIR } from '../../ir/index.js';
import type { Diagnostic } from './diagnostics.js';
import { isServedByUs } from './ingress-class.js';
import { type ClusterState, type Ingress, type ObjectRef, refKey, refOf } from './kube-objects.js';
import type { TranslateOptions } from './options.js';
import { sameObjects } from './same-objects.js';
import { collectReferences, type References } from './references.js';
import { translate, type TranslationResult } from './translate.js';

/** At most this many changed Ingresses, and a closure of at most this share of all, are worth splicing. */
const maxChanged = 64;
const maxClosureShare = 0.25;

const nginxPrefix = 'nginx.ingress.kubernetes.io/';

/** Which served Ingresses contribute to each host (rules or TLS), kept up to date from build to build. */
export class HostIndex {
  readonly #byHost = new Map<string, Set<Ingress>>();
  readonly #byService = new Map<string, Set<Ingress>>();
  readonly #hostsOf = new WeakMap<Ingress, readonly string[]>();
  readonly #servicesOf = new WeakMap<Ingress, readonly string[]>();

  static of(ingresses: readonly Ingress[]): HostIndex {
    const index = new HostIndex();
    for (const ingress of ingresses) index.add(ingress);
    return index;
  }

  /** Lower-cased hosts of the Ingress's rules (`*` for a host-less rule) and TLS entries. */
  hostsOf(ingress: Ingress): readonly string[] {
    let hosts = this.#hostsOf.get(ingress);
    if (hosts === undefined) {
      const set = new Set<string>();
      for (const rule of ingress.spec?.rules ?? []) set.add(rule.host === undefined || rule.host === '' ? catchAllHost : rule.host.toLowerCase());
      for (const tls of ingress.spec?.tls ?? []) for (const host of tls.hosts ?? []) set.add(host.toLowerCase());
      hosts = [...set];
      this.#hostsOf.set(ingress, hosts);
    }
    return hosts;
  }

  /** `namespace/name` of the Services the Ingress's rules and default backend name. */
  servicesOf(ingress: Ingress): readonly string[] {
    let services = this.#servicesOf.get(ingress);
    if (services === undefined) {
      const namespace = ingress.metadata.namespace ?? 'default';
      const set = new Set<string>();
      const backend = ingress.spec?.defaultBackend?.service?.name;
      if (backend !== undefined) set.add(`${namespace}/${backend}`);
      for (const rule of ingress.spec?.rules ?? []) {
        for (const path of rule.http?.paths ?? []) if (path.backend.service !== undefined) set.add(`${namespace}/${path.backend.service.name}`);
      }
      services = [...set];
      this.#servicesOf.set(ingress, services);
    }
    return services;
  }

  add(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) addTo(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) addTo(this.#byService, service, ingress);
  }

  remove(ingress: Ingress): void {
    for (const host of this.hostsOf(ingress)) removeFrom(this.#byHost, host, ingress);
    for (const service of this.servicesOf(ingress)) removeFrom(this.#byService, service, ingress);
  }

  /** Served Ingresses naming the Service (`namespace/name`). */
  users(service: string): ReadonlySet<Ingress> {
    return this.#byService.get(service) ?? new Set();
  }

  /** Every host with its contributors (for tests and debugging). */
  hosts(): ReadonlyMap<string, ReadonlySet<Ingress>> {
    return this.#byHost;
  }

  contributors(host: string): ReadonlySet<Ingress> {
    return this.#byHost.get(host) ?? new Set();
  }
}

function addTo(map: Map<string, Set<Ingress>>, key: string, ingress: Ingress): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(ingress);
}

function removeFrom(map: Map<string, Set<Ingress>>, key: string, ingress: Ingress): void {
  const set = map.get(key);
  set?.delete(ingress);
  if (set?.size === 0) map.delete(key);
}

/** What an incremental translation starts from: the previous input and its translation. */
export interface TranslationBase {
  state: ClusterState;
  result: TranslationResult;
  /** Served Ingresses of `state` by host: updated in place to `state`'s successor when a splice succeeds. */
  index: HostIndex;
}

function keyOf(object: { metadata: { name: string; namespace?: string } }): string {
  return `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
}

function hasNginxAnnotations(ingress: Ingress): boolean {
  for (const key of Object.keys(ingress.metadata.annotations ?? {})) if (key.startsWith(nginxPrefix)) return true;
  return false;
}

/** Changed objects by key: [before, after], either undefined for an added or deleted one. */
function changedObjects<T extends { metadata: { name: string; namespace?: string } }>(
  before: readonly T[],
  after: readonly T[],
): Map<string, [T | undefined, T | undefined]> | undefined {
  const changed = new Map<string, [T | undefined, T | undefined]>();
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

function compareRefs(a: ObjectRef, b: ObjectRef): number {
  return compareStrings(refKey(a), refKey(b));
}

/** `table` with the virtual hosts named in `replaced` taken out and `added` merged in, in table order. */
/** Also pushes the virtual hosts taken out onto `removed`. */
function splice(table: RouteTableIR, replaced: ReadonlySet<string>, added: readonly VirtualHostIR[], removed: VirtualHostIR[]): RouteTableIR {
  const kept: VirtualHostIR[] = [];
  for (const vhost of table.virtualHosts) (replaced.has(vhost.name) ? removed : kept).push(vhost);
  const sortedAdded = [...added].sort(compareVirtualHosts);
  const merged: VirtualHostIR[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length || j < sortedAdded.length) {
    if (j >= sortedAdded.length || (i < kept.length && compareVirtualHosts(kept[i]!, sortedAdded[j]!) <= 0)) merged.push(kept[i++]!);
    else merged.push(sortedAdded[j++]!);
  }
  return { name: table.name, virtualHosts: merged };
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

/**
 * The translation of `state`, made from `base` by re-translating only the Ingresses around the changed ones, or
 * undefined when that cannot be shown to equal a full translation (the caller then calls translate()).
 * `references` may keep names a changed Ingress no longer uses until the next full translation: a superset only
 * lets an unrelated Service or Secret event cause a build, it never hides a relevant one.
 */
export function translateIncrementally(base: TranslationBase, state: ClusterState, options: TranslateOptions): TranslationResult | undefined {
  const before = base.state;
  if (!sameObjects(before.ingressClasses, state.ingressClasses) || !sameObjects(before.secrets, state.secrets)) return undefined;
  // The ingress-nginx ConfigMap is every nginx-layer Ingress's defaults.
  if (!sameObjects(before.configMaps ?? [], state.configMaps ?? [])) return undefined;
  const previous = base.result;
  if ((previous.ir.fallbackClusters?.length ?? 0) > 0 || (previous.ir.tlsPassthrough?.length ?? 0) > 0) return undefined;
  if (previous.serverNameCopies === true) return undefined;
  const changed = changedObjects(before.ingresses, state.ingresses);
  // A Service changes what the Ingresses naming it translate to (ports, ExternalName): those come along.
  const changedServices = changedObjects(before.services, state.services);
  if (changed === undefined || changedServices === undefined || changed.size + changedServices.size === 0) return undefined;
  const served = (ingress: Ingress | undefined): ingress is Ingress => ingress !== undefined && isServedByUs(ingress, state.ingressClasses, options);

  for (const [was, now] of changed.values()) {
    for (const version of [was, now]) {
      if (!served(version)) continue;
      // Global inputs (the default backend), TLS (filter chains, certificates) and ingress-nginx features (canaries,
      // fallbacks, passthrough) reach beyond the hosts: not spliced.
      if (version.spec?.defaultBackend !== undefined || hasNginxAnnotations(version)) return undefined;
    }
    const tlsBefore = served(was) ? JSON.stringify(was.spec?.tls ?? []) : '[]';
    const tlsAfter = served(now) ? JSON.stringify(now.spec?.tls ?? []) : '[]';
    if (tlsBefore !== tlsAfter) return undefined;
  }

  // The new index: old versions out, new ones in (undone below if the splice is declined).
  const index = base.index;
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
  const decline = (): undefined => {
    for (const step of undo.reverse()) step();
    return undefined;
  };

  // The Ingresses sharing a host with a changed one, transitively, and every host they or the old versions touch.
  const hosts = new Set<string>();
  const closure = new Set<Ingress>();
  const queue: string[] = [];
  const visitHost = (host: string): void => {
    if (!hosts.has(host)) {
      hosts.add(host);
      queue.push(host);
    }
  };
  for (const [was, now] of changed.values()) {
    if (served(was)) for (const host of index.hostsOf(was)) visitHost(host);
    if (served(now)) for (const host of index.hostsOf(now)) visitHost(host);
  }
  for (const service of changedServices.keys()) {
    for (const user of index.users(service)) {
      if (user.spec?.defaultBackend !== undefined) return decline(); // in every virtual host
      for (const host of index.hostsOf(user)) visitHost(host);
    }
  }
  const limit = Math.max(maxChanged, state.ingresses.length * maxClosureShare);
  while (queue.length > 0) {
    const host = queue.pop()!;
    if (host === catchAllHost) return decline(); // host-less rules: the catch-all is everyone's
    for (const ingress of index.contributors(host)) {
      if (closure.has(ingress)) continue;
      if (hasNginxAnnotations(ingress) || ingress.spec?.defaultBackend !== undefined) return decline();
      closure.add(ingress);
      if (closure.size > limit) return decline();
      for (const next of index.hostsOf(ingress)) visitHost(next);
    }
  }

  // The default backend is every virtual host's last route: the Ingresses that may provide it come along (their
  // own hosts are not taken from this translation).
  const defaultBackends = state.ingresses.filter((ingress) => ingress.spec?.defaultBackend !== undefined && served(ingress));
  const partial = translate({ ...state, ingresses: [...closure, ...defaultBackends] }, options);

  const taken = (table: RouteTableIR): VirtualHostIR[] => table.virtualHosts.filter((vhost) => hosts.has(vhost.name));
  const previousHttps = previous.httpsTable;
  // The https table is served (and its clusters used) only with TLS servers, which a splice never changes.
  const servesHttps = previous.ir.tlsServers.length > 0;
  const removedHosts: VirtualHostIR[] = [];
  const addedHttp = taken(partial.ir.http);
  const addedHttps = taken(partial.httpsTable);
  const http = splice(previous.ir.http, hosts, addedHttp, removedHosts);
  const httpsTable = splice(previousHttps, hosts, addedHttps, servesHttps ? removedHosts : []);
  const tlsServers = previous.ir.tlsServers.map((server) => (server.routeTable === previousHttps ? { ...server, routeTable: httpsTable } : server));

  // Clusters: the ones the tables use, as objects of the previous translation where it had them (a cluster's
  // name says everything about it, given the same Services), else of the partial one.
  // Which clusters the tables use: the last result's counts, minus the hosts taken out, plus those put in (not a
  // walk of every route of both tables).
  const uses = new Map(clusterUsesOf(previous));
  for (const vhost of removedHosts) {
    for (const name of clusterNamesOf(vhost)) {
      const count = uses.get(name)! - 1;
      if (count === 0) uses.delete(name);
      else uses.set(name, count);
    }
  }
  for (const vhost of servesHttps ? [...addedHttp, ...addedHttps] : addedHttp) {
    for (const name of clusterNamesOf(vhost)) uses.set(name, (uses.get(name) ?? 0) + 1);
  }
  // Both lists are sorted by name: the kept ones stay in order and the partial translation's are merged in.
  const serviceChanged = (cluster: ClusterIR): boolean =>
    changedServices.size > 0 && changedServices.has(`${cluster.service.namespace}/${cluster.service.name}`);
  const kept = previous.ir.clusters.filter((cluster) => uses.has(cluster.name) && !serviceChanged(cluster));
  const keptNames = kept.map((cluster) => cluster.name);
  const fromPartial = partial.ir.clusters.filter((cluster) => uses.has(cluster.name) && !sortedIncludes(keptNames, cluster.name));
  const clusters = mergeByKey(kept, fromPartial, (cluster) => cluster.name);

  // Diagnostics of the re-translated Ingresses (and of the old versions of changed ones) are replaced.
  const retranslated = new Set<string>();
  for (const ingress of closure) retranslated.add(refKey(refOf(ingress)));
  for (const [was, now] of changed.values()) for (const version of [was, now]) if (version !== undefined) retranslated.add(refKey(refOf(version)));
  // Both lists are sorted by object (each object's diagnostics in the order found), and no object is in both:
  // merging them gives what sorting the whole list would.
  const diagnosticKey = (d: Diagnostic): string => refKey(d.object);
  const diagnostics = mergeByKey(
    previous.diagnostics.filter((d) => !retranslated.has(refKey(d.object))),
    partial.diagnostics.filter((d) => retranslated.has(refKey(d.object))),
    diagnosticKey,
  );

  const changedRefs = new Set<string>();
  for (const [was, now] of changed.values()) for (const version of [was, now]) if (version !== undefined) changedRefs.add(refKey(refOf(version)));
  const servedNow: ObjectRef[] = [];
  for (const [, now] of changed.values()) if (served(now)) servedNow.push(refOf(now));
  const servedIngresses = mergeByKey(
    previous.servedIngresses.filter((ref) => !changedRefs.has(refKey(ref))),
    servedNow.sort(compareRefs),
    refKey,
  );

  const added = collectReferences([...changed.values()].flatMap(([, now]) => (served(now) ? [now] : [])));
  const references: References = {
    services: mergeSorted(previous.references.services, added.services),
    secrets: mergeSorted(previous.references.secrets, added.secrets),
  };

  const result: TranslationResult = {
    ir: { ...previous.ir, http, tlsServers, clusters },
    diagnostics,
    servedIngresses,
    references,
    httpsTable,
  };
  clusterUses.set(result, uses);
  return result;
}

/** Per translation result: how many virtual hosts of its served tables use each cluster (never mutated). */
const clusterUses = new WeakMap<TranslationResult, ReadonlyMap<string, number>>();

/** Counted once per result (a full translation's on its first splice), then carried from splice to splice. */
function clusterUsesOf(result: TranslationResult): ReadonlyMap<string, number> {
  let uses = clusterUses.get(result);
  if (uses === undefined) {
    const counts = new Map<string, number>();
    for (const table of result.ir.tlsServers.length > 0 ? [result.ir.http, result.httpsTable] : [result.ir.http]) {
      for (const vhost of table.virtualHosts) for (const name of clusterNamesOf(vhost)) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    clusterUses.set(result, (uses = counts));
  }
  return uses;
}
