// The whole pure pipeline in one call: cluster state -> translation (IR + diagnostics) -> endpoints -> Envoy
// resources. Used by the reconciler's full builds and by `render` / `validate`.
import { buildResources } from '../envoy/build-resources.js';
import type { EnvoyOptions, EnvoyResources } from '../envoy/resource-types.js';
import { endpointsForCluster, indexEndpointSources } from './translate/endpoints.js';
import type { ClusterEndpointsIR } from './translate/ir.js';
import type { ClusterState } from './translate/kube-objects.js';
import type { TranslateOptions } from './translate/options.js';
import { translate, type TranslationResult } from './translate/translate.js';

export interface BuiltConfig {
  translation: TranslationResult;
  /** Endpoints per cluster name. */
  endpoints: Map<string, ClusterEndpointsIR>;
  resources: EnvoyResources;
}

export function buildConfig(state: ClusterState, options: { translate: TranslateOptions; envoy: EnvoyOptions }): BuiltConfig {
  const translation = translate(state, options.translate);
  const index = indexEndpointSources(state);
  const endpoints = new Map<string, ClusterEndpointsIR>();
  for (const cluster of translation.ir.clusters) endpoints.set(cluster.name, endpointsForCluster(state, cluster, index));
  const resources = buildResources(translation.ir, [...endpoints.values()], options.envoy);
  return { translation, endpoints, resources };
}
