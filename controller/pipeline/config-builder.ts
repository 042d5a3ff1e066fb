// The configuration builds of the build pipeline (full, routes, secrets), each starting from the last published
// build when the change allows it.
import type { ClusterEndpointsIR, ClusterIR } from '../../ir/index.js';
import { buildResources } from '../../envoy/build-resources.js';
import type { NamedResource } from '../../envoy/resource-types.js';
import { buildSecret } from '../../envoy/secret.js';
import type { SnapshotUpdate } from '../../xds/snapshot-cache.js';
import { buildConfig, endpointsOf, fullUpdate, translateOptionsOf, type BuildOptions } from './build-config.js';
import { serviceKey } from '../translate/shared/backend.js';
import { endpointsForCluster, indexEndpointSources } from '../translate/shared/endpoints.js';
import { HostIndex } from '../translate/ingress/host-index.js';
import { translateIncrementally } from '../translate/incremental-translate.js';
import { isServedByUs } from '../translate/ingress/ingress-class.js';
import type { ClusterState } from '../translate/shared/kube-objects.js';
import { unchangedBeyond } from '../translate/shared/unchanged-inputs.js';
import { carryPartsAfterSecrets, type TranslationResult } from '../translate/translate.js';
import { certificateOnlyChanges } from './certificate-only-changes.js';
import { changedEndpointServices, sameEndpointObjects } from './changed-endpoint-services.js';

export interface IncrementalBuild {
  translation: TranslationResult;
  /** Endpoints per cluster name. */
  endpoints: Map<string, ClusterEndpointsIR>;
  /**
   * `full`: everything was translated and built; `routes`: only some Ingresses, Services or Secrets changed, and only
   * the Ingresses sharing hosts with them (or naming them) were translated (ingress/incremental-translate.ts), or only
   * HTTPRoutes changed and only they and the virtual hosts they touch were (translate/incremental-translate.ts),
   * unchanged parts reused as they were;
   * `secrets`: only Secrets changed, only SDS was rebuilt.
   */
  kind: 'full' | 'routes' | 'secrets';
  /**
   * What to hand to the snapshot cache: every type for a full build, only `secret` for a Secrets-only one, all but
   * `secret` for a routes build unless its certificates changed.
   */
  update: SnapshotUpdate;
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

/** The values of an endpoints map, one array per map while it is reused unchanged (see #routesOnly). */
const endpointLists = new WeakMap<Map<string, ClusterEndpointsIR>, ClusterEndpointsIR[]>();
function endpointListOf(endpoints: Map<string, ClusterEndpointsIR>): ClusterEndpointsIR[] {
  let list = endpointLists.get(endpoints);
  if (list === undefined) {
    list = [...endpoints.values()];
    endpointLists.set(endpoints, list);
  }
  return list;
}

function serviceOf(cluster: ClusterIR): string {
  return serviceKey(cluster.service.namespace, cluster.service.name);
}

/**
 * The configuration builds of the pipeline (build-pipeline.ts), remembering the last published build. When only
 * Secrets changed and no TLS host's outcome can change (see certificateOnlyChanges), the translation is reused
 * with the new certificates swapped in and only the SDS resources are built and handed to the cache: listeners,
 * routes and clusters are neither translated, built nor encoded (`secrets`). When only Ingresses, Services and
 * Secrets changed, only the Ingresses around them (or naming them) are translated, and when only HTTPRoutes (or
 * backend Services) changed, only they (the routes naming them) and the virtual hosts they touch (`routes`). Anything else is a full build. Endpoint
 * objects are not compared (endpoint changes are patched by the pipeline's endpoints build); they are recomputed
 * only if they changed since the last build.
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
   * Only Ingresses, Services or Secrets changed (and no endpoint object since the last build): translate the
   * Ingresses around them and splice (incremental-translate.ts). The builders then meet the unchanged IR objects of the last build
   * again and hand back the JSON they made from them, which the cache does not encode again: a one-host change
   * costs about that host, plus walks of the tables and maps that are cheap per entry.
   */
  #routesOnly(state: ClusterState): IncrementalBuild | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const before = last.state;
    // Both translators' parts are made incrementally where their inputs allow (translate/incremental-translate.ts:
    // the Ingress splice for Ingresses, Services and Secrets; the Gateway API translation for HTTPRoutes and backend
    // Services, reusing every untouched virtual host) and joined again as a full translation joins them; anything else declines.
    // Services whose endpoint objects changed since the last build (also by the pipeline's endpoints builds).
    const stale = changedEndpointServices(before, state);
    if (stale === undefined) return undefined;
    last.index ??= this.#indexOf(before);
    const translation = translateIncrementally({ state: before, result: last.translation, index: last.index }, state, translateOptionsOf(this.options));
    if (translation === undefined) return undefined;
    // The same clusters, and no Service's endpoints changed: the same endpoints (most one-Ingress changes), and the
    // same list of them, so the builders hand back the same CDS and EDS lists. (The pipeline's endpoints builds
    // update that map in place, but only for EndpointSlice changes, which make `stale` non-empty until the next
    // configuration build replaces the map.)
    const sameEndpoints = translation.ir.clusters === last.translation.ir.clusters && stale.size === 0;
    const endpoints = sameEndpoints ? last.endpoints : this.#endpointsAfter(translation, last, stale, state);
    const resources = buildResources(translation.ir, sameEndpoints ? endpointListOf(endpoints) : [...endpoints.values()], this.options.envoy);
    const { secret: _sds, ...routes } = fullUpdate(resources);
    // SDS only when the certificates changed (a TLS host came or went, a Secret changed): the splice hands back the
    // last list itself otherwise.
    const sameSecrets = translation.ir.secrets === last.translation.ir.secrets && translation.ir.certificateAuthorities === last.translation.ir.certificateAuthorities;
    const update = sameSecrets ? routes : { ...routes, secret: resources.secrets };
    return { translation, endpoints, kind: 'routes', update };
  }

  /** Endpoints per cluster of a spliced translation: the last build's where the cluster and its endpoints are unchanged. */
  #endpointsAfter(translation: TranslationResult, last: LastBuild, stale: ReadonlySet<string>, state: ClusterState): Map<string, ClusterEndpointsIR> {
    const endpoints = new Map<string, ClusterEndpointsIR>();
    const missing: ClusterIR[] = [];
    const fresh = new Set(translation.ir.clusters);
    for (const cluster of last.translation.ir.clusters) fresh.delete(cluster);
    for (const cluster of translation.ir.clusters) {
      // A cluster object of the last build, whose Service's endpoints did not change, has the same endpoints.
      const found =
        fresh.has(cluster) || (stale.size > 0 && stale.has(serviceOf(cluster))) ? undefined : last.endpoints.get(cluster.name);
      if (found === undefined) missing.push(cluster);
      // In cluster order (a missing one's entry is replaced below, in place).
      endpoints.set(cluster.name, found ?? { cluster: cluster.name, endpoints: [] });
    }
    if (missing.length > 0) {
      // Only the endpoint objects of these Services are indexed, not every Service's (a new Service's build).
      const sources = indexEndpointSources(state, new Set(missing.map(serviceOf)));
      for (const cluster of missing) endpoints.set(cluster.name, endpointsForCluster(state, cluster, sources));
    }
    return endpoints;
  }

  #secretsOnly(state: ClusterState): IncrementalBuild | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const before = last.state;
    // Only what a secrets build takes (kinds.ts: Secrets, endpoint objects) may have changed.
    if (!unchangedBeyond('secrets', before, state)) return undefined;
    const changed = certificateOnlyChanges(before.secrets, state.secrets);
    if (changed === undefined) return undefined;
    const { translation } = last;
    const secrets = translation.ir.secrets.map((secret) => changed.get(secret.name) ?? secret);
    const sds = last.secrets.map((named) => {
      const secret = changed.get(named.name);
      return secret === undefined ? named : { name: named.name, resource: buildSecret(secret) };
    });
    const endpointsUnchanged = sameEndpointObjects(before, state);
    const nextTranslation: TranslationResult = { ...translation, ir: { ...translation.ir, secrets } };
    carryPartsAfterSecrets(translation, nextTranslation, (secret) => changed.get(secret.name) ?? secret);
    return {
      translation: nextTranslation,
      endpoints: endpointsUnchanged ? last.endpoints : endpointsOf(state, nextTranslation),
      kind: 'secrets',
      update: { secret: sds },
    };
  }
}
