// The build pipeline: what the store holds -> a build -> the snapshot cache. Every kind of build is made here:
// `full`, `routes` and `secrets` (ConfigBuilder, from the whole state, starting from the last build when the change
// allows) and `endpoints` (EndpointBuilder, from the endpoint objects of the Services whose endpoints changed).
// The reconciler only decides when to build and which kind is due.
import type { ClusterEndpointsIR } from '../../ir/index.js';
import type { ResourceKind } from '../../proto/type-urls.js';
import type { SnapshotCache } from '../../xds/snapshot-cache.js';
import type { BuildOptions } from './build-config.js';
import type { ObjectStore, StoreChange } from '../store.js';
import type { TranslationResult } from '../translate/translate.js';
import { ConfigBuilder } from './config-builder.js';
import { EndpointBuilder } from './endpoint-builder.js';

export type BuildKind = 'full' | 'routes' | 'secrets' | 'endpoints';

/** A published build: its kind and the resource types whose content changed in the cache. */
export interface PipelineBuild {
  kind: BuildKind;
  changedTypes: ResourceKind[];
}

/** A build from the whole state, with the translation it published. */
export interface ConfigurationBuild extends PipelineBuild {
  kind: Exclude<BuildKind, 'endpoints'>;
  translation: TranslationResult;
}

export class BuildPipeline {
  readonly #config: ConfigBuilder;
  readonly #endpoints = new EndpointBuilder();

  constructor(
    private readonly store: Pick<ObjectStore, 'buildState' | 'get'>,
    private readonly cache: SnapshotCache,
    options: BuildOptions,
  ) {
    this.#config = new ConfigBuilder(options);
  }

  /** Endpoints of the last published builds, by cluster name (what Envoy's EDS carries). */
  get endpoints(): ReadonlyMap<string, ClusterEndpointsIR> {
    return this.#endpoints.endpoints;
  }

  /**
   * Builds what the store holds now and publishes it: a full build, or a routes or secrets build when only
   * Ingresses and Services, or only certificates, changed. Throws when the build or the cache fails; the cache then
   * keeps the last good config.
   */
  build(): ConfigurationBuild {
    // The builds' view: a status write coming back leaves the objects the last build translated in place.
    const state = this.store.buildState();
    const { built, published: changedTypes } = this.#config.build(state, (update) => this.cache.update(update));
    this.#endpoints.rebase(built.translation.ir, state, built.endpoints);
    return { kind: built.kind, translation: built.translation, changedTypes };
  }

  /**
   * Recomputes and publishes the endpoints of these Services' clusters (`namespace/name`) only: the cost of an
   * endpoint change does not grow with the number of Services. Throws when the cache refuses them; the endpoints
   * then stay those Envoy has.
   */
  buildEndpoints(services: readonly string[]): PipelineBuild {
    const build = this.#endpoints.build(services, this.store);
    const changedTypes = this.cache.patch('clusterLoadAssignment', build.resources);
    this.#endpoints.commit(build);
    return { kind: 'endpoints', changedTypes };
  }

  /** Follows an EndpointSlice change between builds (a relabelled slice moves to another Service). */
  trackEndpointSlice(change: StoreChange): void {
    this.#endpoints.trackSlice(change);
  }

  /** Makes what the next incremental build starts from now, while nothing waits for a build. */
  prepare(): void {
    this.#config.prepare();
  }
}
