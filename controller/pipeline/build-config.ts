// The whole pure pipeline in one call: cluster state -> translation (IR + diagnostics) -> endpoints -> Envoy
// resources. `buildConfig` is used by `render` / `validate`; the reconciler's builds go through the build pipeline
// (build-pipeline.ts), which starts from the last build when it can (routes, secrets and endpoints builds).
import type { ClusterEndpointsIR } from '../../ir/index.js';
import { buildResources } from '../../envoy/build-resources.js';
import type { EnvoyOptions, EnvoyResources } from '../../envoy/resource-types.js';
import { splitVirtualHosts } from '../../envoy/virtual-host-discovery.js';
import type { ResourceKind } from '../../proto/type-urls.js';
import type { SnapshotUpdate } from '../../xds/snapshot-cache.js';
import { endpointsForCluster, indexEndpointSources } from '../translate/shared/endpoints.js';
import type { ClusterState } from '../translate/shared/kube-objects.js';
import type { TranslateOptions } from '../translate/shared/options.js';
import { translate, type TranslationResult } from '../translate/translate.js';

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

/** Endpoints of every cluster of `translation`, per cluster name. */
export function endpointsOf(state: ClusterState, translation: TranslationResult): Map<string, ClusterEndpointsIR> {
  const index = indexEndpointSources(state);
  const endpoints = new Map<string, ClusterEndpointsIR>();
  for (const cluster of translation.ir.clusters) endpoints.set(cluster.name, endpointsForCluster(state, cluster, index));
  return endpoints;
}

const withPorts = new WeakMap<BuildOptions, TranslateOptions>();

/**
 * The translator's options with the Ingress listeners on the Envoy options' ports (--http-port, --https-port): the
 * flags give both, and the listeners are IR nodes the translator makes. Memoised per options object, so a builder's
 * translations all see one options object.
 */
export function translateOptionsOf(options: BuildOptions): TranslateOptions {
  let translateOptions = withPorts.get(options);
  if (translateOptions === undefined) {
    translateOptions = { ...options.translate, listenerPorts: { http: options.envoy.httpPort, https: options.envoy.httpsPort } };
    withPorts.set(options, translateOptions);
  }
  return translateOptions;
}
export function buildConfig(state: ClusterState, options: BuildOptions): BuiltConfig {
  const translation = translate(state, translateOptionsOf(options));
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
    // The same list every build (http-filters.ts): the cache sees it unchanged without a look.
    extensionConfig: resources.extensionConfigs,
  };
}

/** Kinds a build hands to the cache (for logs and benchmarks). */
export function updatedKinds(update: SnapshotUpdate): ResourceKind[] {
  return Object.keys(update) as ResourceKind[];
}
