// The whole pure pipeline in one call: cluster state -> translation (IR + diagnostics) -> endpoints -> Envoy
// resources. `buildConfig` is used by `render` / `validate`; the reconciler's builds go through ConfigBuilder,
// which also knows when a change touched only Secrets and then rebuilds SDS alone.
import type { ClusterEndpointsIR, TlsSecretIR } from '../ir/index.js';
import { buildResources } from '../envoy/build-resources.js';
import type { EnvoyOptions, EnvoyResources, NamedResource } from '../envoy/resource-types.js';
import { buildSecret } from '../envoy/secret.js';
import { splitVirtualHosts } from '../envoy/virtual-host-discovery.js';
import type { ResourceKind } from '../proto/type-urls.js';
import type { SnapshotUpdate } from '../xds/snapshot-cache.js';
import { endpointsForCluster, indexEndpointSources, serviceKeyOfSlice } from './translate/endpoints.js';
import type { ClusterState, Secret } from './translate/kube-objects.js';
import type { TranslateOptions } from './translate/options.js';
import { HostIndex, translateIncrementally } from './translate/incremental-translate.js';
import { isServedByUs } from './translate/ingress-class.js';
import { sameObjects } from './translate/same-objects.js';
import { secretResourceName, validateTlsSecret } from './translate/tls-secret.js';
import { translate, type TranslationResult } from './translate/translate.js';

export interface BuiltConfig {
  translation: TranslationResult;
  /** Endpoints per cluster name. */
  endpoints: Map<string, ClusterEndpointsIR>;
  resources: EnvoyResources;
}

export interface BuildOptions {
  translate: TranslateOptions;
  envoy: EnvoyOptions;
}

function endpointsOf(state: ClusterState, translation: TranslationResult): Map<string, ClusterEndpointsIR> {
  const index = indexEndpointSources(state);
  const endpoints = new Map<string, ClusterEndpointsIR>();
  for (const cluster of translation.ir.clusters) endpoints.set(cluster.name, endpointsForCluster(state, cluster, index));
  return endpoints;
}

export function buildConfig(state: ClusterState, options: BuildOptions): BuiltConfig {
  const translation = translate(state, options.translate);
  const endpoints = endpointsOf(state, translation);
  const resources = buildResources(translation.ir, [...endpoints.values()], options.envoy);
  return { translation, endpoints, resources };
}

/**
 * The snapshot update for every type of a full build. Route configurations are served in their VHDS form (one
 * resource per virtual host), so a change to one host costs that host on the wire; state-of-the-world streams
 * get them re-assembled (xds/embedded-virtual-hosts.ts).
 */
export function fullUpdate(resources: EnvoyResources): SnapshotUpdate {
  const vhds = splitVirtualHosts(resources.routeConfigurations);
  return {
    listener: resources.listeners,
    routeConfiguration: vhds.routeConfigurations,
    virtualHost: vhds.virtualHosts,
    cluster: resources.clusters,
    clusterLoadAssignment: resources.clusterLoadAssignments,
    secret: resources.secrets,
  };
}

export interface IncrementalBuild {
  translation: TranslationResult;
  /** Endpoints per cluster name. */
  endpoints: Map<string, ClusterEndpointsIR>;
  /**
   * `full`: everything was translated and built; `routes`: only some Ingresses changed, and only the Ingresses
   * sharing hosts with them were translated (incremental-translate.ts), unchanged parts reused as they were;
   * `secrets`: only Secrets changed, only SDS was rebuilt.
   */
  kind: 'full' | 'routes' | 'secrets';
  /** What to hand to the snapshot cache: every type for a full build, only `secret` for a Secrets-only one. */
  update: SnapshotUpdate;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

function secretKey(secret: Secret): string {
  return secretResourceName(secret.metadata.namespace ?? 'default', secret.metadata.name);
}

/**
 * The new TLS secrets when the Secrets that changed between `before` and `after` cannot change anything but
 * certificate bytes, else undefined. Translation uses a Secret only through its validation (valid or not, with
 * which error) and the DNS names of its certificate (diagnostics for hosts it does not cover): when every changed
 * Secret was valid and still is, for the same names, every translation outcome (TLS hosts, conflicts, redirects,
 * diagnostics) is the same, and only the SDS resources of those Secrets differ.
 */
function certificateOnlyChanges(before: readonly Secret[], after: readonly Secret[]): Map<string, TlsSecretIR> | undefined {
  const old = new Map(before.map((s) => [secretKey(s), s]));
  const changed = new Map<string, TlsSecretIR>();
  for (const secret of after) {
    const key = secretKey(secret);
    const previous = old.get(key);
    old.delete(key);
    if (previous === secret) continue;
    if (previous === undefined) return undefined; // a new Secret may make a TLS host valid
    const was = validateTlsSecret(previous);
    const now = validateTlsSecret(secret);
    if (!was.valid || !now.valid || !sameNames(was.dnsNames, now.dnsNames)) return undefined;
    changed.set(key, now.secret);
  }
  if (old.size > 0) return undefined; // a deleted Secret may make a TLS host invalid
  return changed;
}

interface LastBuild {
  state: ClusterState;
  translation: TranslationResult;
  endpoints: Map<string, ClusterEndpointsIR>;
  /** SDS resources as built (the other types' JSON is not kept: the cache holds their bytes). */
  secrets: readonly NamedResource[];
  /** Served Ingresses by host, made on the first incremental build and carried forward from then on. */
  index: HostIndex | undefined;
}

/**
 * Builds for the reconciler, remembering the last published build. When only Secrets changed and no TLS host's
 * outcome can change (see certificateOnlyChanges), the translation is reused with the new certificates swapped
 * in and only the SDS resources are built and handed to the cache: listeners, routes and clusters are neither
 * translated, built nor encoded. Anything else is a full build. Endpoint objects are not compared (the reconciler
 * patches endpoints on its own path); they are recomputed only if they changed since the last build.
 */
export class ConfigBuilder {
  #last: LastBuild | undefined;

  constructor(private readonly options: BuildOptions) {}

  /**
   * Builds for `state` and hands the update to `publish` (the snapshot cache). The build is remembered as the
   * base of the next incremental one only if `publish` does not throw, so a refused build never becomes the base.
   */
  build<T>(state: ClusterState, publish: (update: SnapshotUpdate) => T): { built: IncrementalBuild; published: T } {
    let built: IncrementalBuild;
    let published: T;
    try {
      built = this.#secretsOnly(state) ?? this.#routesOnly(state) ?? this.#full(state);
      published = publish(built.update);
    } catch (err: unknown) {
      // The host index may already describe `state`, which did not become the last build: start over.
      this.#last = undefined;
      throw err;
    }
    const index = built.kind === 'full' ? undefined : this.#last?.index;
    this.#last = { state, translation: built.translation, endpoints: built.endpoints, secrets: built.update.secret ?? this.#last?.secrets ?? [], index };
    return { built, published };
  }

  /** Makes what an incremental build starts from (the host index) now, while nothing waits for a build. */
  prepare(): void {
    const last = this.#last;
    if (last !== undefined) last.index ??= this.#indexOf(last.state);
  }

  #indexOf(state: ClusterState): HostIndex {
    return HostIndex.of(state.ingresses.filter((ingress) => isServedByUs(ingress, state.ingressClasses, this.options.translate)));
  }

  /** Forget the last build: the next one is full (e.g. after options changed or the cache was replaced). */
  reset(): void {
    this.#last = undefined;
  }

  #full(state: ClusterState): IncrementalBuild {
    const { translation, endpoints, resources } = buildConfig(state, this.options);
    return { translation, endpoints, kind: 'full', update: fullUpdate(resources) };
  }

  /**
   * Only Ingresses changed (and no endpoint object since the last build): translate the Ingresses around them
   * and splice (incremental-translate.ts). The builders then meet the unchanged IR objects of the last build
   * again and hand back the JSON they made from them, which the cache does not encode again: a one-host change
   * costs about that host, plus walks of the tables and maps that are cheap per entry.
   */
  #routesOnly(state: ClusterState): IncrementalBuild | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const before = last.state;
    // Services whose endpoint objects changed since the last build (also by the reconciler's endpoint patches).
    const stale = changedEndpointServices(before, state);
    if (stale === undefined) return undefined;
    last.index ??= this.#indexOf(before);
    const translation = translateIncrementally({ state: before, result: last.translation, index: last.index }, state, this.options.translate);
    if (translation === undefined) return undefined;
    const endpoints = new Map<string, ClusterEndpointsIR>();
    let sources: ReturnType<typeof indexEndpointSources> | undefined;
    const fresh = new Set(translation.ir.clusters);
    for (const cluster of last.translation.ir.clusters) fresh.delete(cluster);
    for (const cluster of translation.ir.clusters) {
      // A cluster object of the last build, whose Service's endpoints did not change, has the same endpoints.
      let found =
        fresh.has(cluster) || (stale.size > 0 && stale.has(`${cluster.service.namespace}/${cluster.service.name}`)) ? undefined : last.endpoints.get(cluster.name);
      if (found === undefined) found = endpointsForCluster(state, cluster, (sources ??= indexEndpointSources(state)));
      endpoints.set(cluster.name, found);
    }
    const resources = buildResources(translation.ir, [...endpoints.values()], this.options.envoy);
    const { secret: _unchanged, ...update } = fullUpdate(resources);
    return { translation, endpoints, kind: 'routes', update };
  }

  #secretsOnly(state: ClusterState): IncrementalBuild | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const before = last.state;
    if (
      !sameObjects(before.ingresses, state.ingresses) ||
      !sameObjects(before.ingressClasses, state.ingressClasses) ||
      !sameObjects(before.services, state.services) ||
      !sameObjects(before.configMaps ?? [], state.configMaps ?? [])
    ) {
      return undefined;
    }
    const changed = certificateOnlyChanges(before.secrets, state.secrets);
    if (changed === undefined) return undefined;
    const { translation } = last;
    const secrets = translation.ir.secrets.map((secret) => changed.get(secret.name) ?? secret);
    const sds = last.secrets.map((named) => {
      const secret = changed.get(named.name);
      return secret === undefined ? named : { name: named.name, resource: buildSecret(secret) };
    });
    const endpointsUnchanged = sameObjects(before.endpointSlices, state.endpointSlices) && sameObjects(before.endpoints, state.endpoints);
    const nextTranslation: TranslationResult = { ...translation, ir: { ...translation.ir, secrets } };
    return {
      translation: nextTranslation,
      endpoints: endpointsUnchanged ? last.endpoints : endpointsOf(state, nextTranslation),
      kind: 'secrets',
      update: { secret: sds },
    };
  }
}

/** `namespace/name` of the Services whose EndpointSlices or Endpoints differ between two states (undefined: many). */
function changedEndpointServices(before: ClusterState, after: ClusterState): Set<string> | undefined {
  const services = new Set<string>();
  const slices = changedByIdentity(before.endpointSlices, after.endpointSlices);
  const legacy = changedByIdentity(before.endpoints, after.endpoints);
  if (slices === undefined || legacy === undefined) return undefined;
  for (const slice of slices) {
    const key = serviceKeyOfSlice(slice);
    if (key !== undefined) services.add(key);
  }
  for (const e of legacy) services.add(`${e.metadata.namespace ?? 'default'}/${e.metadata.name}`);
  return services;
}

/** Objects in one list and not the other (both versions of a changed one), or undefined when there are many. */
function changedByIdentity<T extends object>(before: readonly T[], after: readonly T[]): T[] | undefined {
  if (sameObjects(before, after)) return [];
  const old = new Set(before);
  const out: T[] = [];
  for (const object of after) if (!old.delete(object)) out.push(object);
  out.push(...old);
  return out.length > 256 ? undefined : out;
}

/** Kinds a build hands to the cache (for logs and benchmarks). */
export function updatedKinds(update: SnapshotUpdate): ResourceKind[] {
  return Object.keys(update) as ResourceKind[];
}
