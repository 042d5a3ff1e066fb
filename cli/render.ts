// `render` and `validate`: read a manifest directory once and show (or check with Envoy) the exact xDS
// resources the controller would serve.
import { buildConfig, type BuiltConfig } from '../controller/pipeline/build-config.js';
import { ManifestDirectorySource } from '../controller/sources/manifest-source.js';
import { ObjectStore } from '../controller/store.js';
import type { EnvoyOptions, EnvoyResources } from '../envoy/resource-types.js';
import { inlineIntoStaticBootstrap } from '../envoy/static-bootstrap.js';
import type { TranslateOptions } from '../controller/translate/shared/options.js';
import type { ManifestProblem } from '../controller/sources/manifest-parser.js';
import type { ClusterState } from '../controller/translate/shared/kube-objects.js';

const silent = { info: () => undefined, warn: () => undefined };

export interface LoadedConfig extends BuiltConfig {
  manifestProblems: ManifestProblem[];
  /** The objects read (explain looks up Gateway listener and HTTPRoute rule names in them). */
  state: ClusterState;
}

export async function loadAndBuild(dir: string, options: { translate: TranslateOptions; envoy: EnvoyOptions }): Promise<LoadedConfig> {
  const store = new ObjectStore();
  const source = new ManifestDirectorySource(dir, store, silent, { watch: false, now: () => new Date(0) });
  await source.start();
  const state = store.state();
  return { ...buildConfig(state, options), manifestProblems: source.problems, state };
}

const typeSections: [keyof EnvoyResources, string][] = [
  ['listeners', 'type.googleapis.com/envoy.config.listener.v3.Listener'],
  ['routeConfigurations', 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration'],
  ['clusters', 'type.googleapis.com/envoy.config.cluster.v3.Cluster'],
  ['clusterLoadAssignments', 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment'],
  ['secrets', 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret'],
  ['extensionConfigs', 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig'],
];

/** Private keys never leave the process through render. */
function redactSecret(resource: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(resource, (key, value: unknown) => (key === 'private_key' ? { inline_string: '[redacted]' } : value)),
  ) as Record<string, unknown>;
}

/** One JSON document per type (sorted by name), then one with the diagnostics. */
export function renderDocuments(config: LoadedConfig): string[] {
  const docs = typeSections.map(([key, typeUrl]) =>
    JSON.stringify(
      {
        typeUrl,
        resources: [...config.resources[key]]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((r) => (key === 'secrets' ? redactSecret(r.resource) : r.resource)),
      },
      null,
      2,
    ),
  );
  docs.push(
    JSON.stringify(
      {
        diagnostics: config.translation.diagnostics,
        manifestProblems: config.manifestProblems,
        servedIngresses: config.translation.servedIngresses,
      },
      null,
      2,
    ),
  );
  return docs;
}

export function staticBootstrapOf(config: LoadedConfig): Record<string, unknown> {
  return inlineIntoStaticBootstrap(config.resources);
}
