import { buildSocketAddress } from './address.js';
import { downstreamTlsContextType } from './downstream-tls-context.js';
import { httpConnectionManagerType } from './http-connection-manager.js';
import { buildLayeredRuntime } from './layered-runtime.js';
import type { EnvoyResources, NamedResource, ResourceJson } from './resource-types.js';

// `envoy --mode validate` fetches no xDS, so this turns a set of xDS resources into an equivalent static
// bootstrap: what the xDS references point at is put in place (RDS, EDS, SDS and ECDS). Only the shapes envoy/
// builds are rewritten.

function isObject(value: unknown): value is ResourceJson {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asObjects(value: unknown): ResourceJson[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** An xDS resource as a plain message: without the `@type` it carries as an Any. */
function withoutType(resource: ResourceJson): ResourceJson {
  const { '@type': _type, ...message } = resource;
  return message;
}

function lookup(resources: readonly NamedResource[], name: string, kind: string): ResourceJson {
  const found = resources.find((r) => r.name === name);
  if (found === undefined) {
    throw new Error(`static bootstrap: ${kind} ${JSON.stringify(name)} is referenced but missing`);
  }
  return withoutType(found.resource);
}

/** HCM with `rds` -> HCM with the named RouteConfiguration inline as `route_config`. */
function inlineRoutes(hcm: ResourceJson, routeConfigurations: readonly NamedResource[]): ResourceJson {
  const { rds, ...rest } = hcm;
  if (!isObject(rds) || typeof rds['route_config_name'] !== 'string') return hcm;
  return { ...rest, route_config: lookup(routeConfigurations, rds['route_config_name'], 'RouteConfiguration') };
}

/**
 * HCM whose HTTP filters fetch their configuration over ECDS (`config_discovery`) -> the same filters with the named
 * TypedExtensionConfig's configuration inline, in the same place and still disabled.
 */
function inlineDiscoveredFilters(hcm: ResourceJson, extensionConfigs: readonly NamedResource[]): ResourceJson {
  const filters = hcm['http_filters'];
  if (!Array.isArray(filters) || !filters.some((f) => isObject(f) && f['config_discovery'] !== undefined)) return hcm;
  const inlined = asObjects(filters).map((filter) => {
    const { config_discovery: discovery, ...rest } = filter;
    if (discovery === undefined) return filter;
    const config = lookup(extensionConfigs, String(filter['name']), 'TypedExtensionConfig');
    return { name: rest['name'], typed_config: config['typed_config'], ...(rest['disabled'] === undefined ? {} : { disabled: rest['disabled'] }) };
  });
  return { ...hcm, http_filters: inlined };
}

/**
 * A Downstream/UpstreamTlsContext with SDS references -> references (by name only) to static secrets: certificates
 * and the trusted CAs of a combined validation context.
 */
function referToStaticSecrets(tlsContext: ResourceJson): ResourceJson {
  const common = tlsContext['common_tls_context'];
  if (!isObject(common)) return tlsContext;
  const result: ResourceJson = { ...common };
  if (common['tls_certificate_sds_secret_configs'] !== undefined) {
    result['tls_certificate_sds_secret_configs'] = asObjects(common['tls_certificate_sds_secret_configs']).map(({ sds_config: _sds, ...rest }) => rest);
  }
  const combined = common['combined_validation_context'];
  if (isObject(combined) && isObject(combined['validation_context_sds_secret_config'])) {
    const { sds_config: _sds, ...rest } = combined['validation_context_sds_secret_config'];
    result['combined_validation_context'] = { ...combined, validation_context_sds_secret_config: rest };
  }
  return { ...tlsContext, common_tls_context: result };
}

/** A cluster whose upstream TLS names SDS secrets -> names static ones. */
function withStaticUpstreamSecrets(cluster: ResourceJson): ResourceJson {
  const socket = cluster['transport_socket'];
  const tlsContext = isObject(socket) ? socket['typed_config'] : undefined;
  if (!isObject(socket) || !isObject(tlsContext)) return cluster;
  return { ...cluster, transport_socket: { ...socket, typed_config: referToStaticSecrets(tlsContext) } };
}

function inlineFilterChain(chain: ResourceJson, resources: EnvoyResources): ResourceJson {
  const filters = asObjects(chain['filters']).map((filter) => {
    const config = filter['typed_config'];
    if (!isObject(config) || config['@type'] !== httpConnectionManagerType) return filter;
    return { ...filter, typed_config: inlineDiscoveredFilters(inlineRoutes(config, resources.routeConfigurations), resources.extensionConfigs) };
  });
  const result: ResourceJson = { ...chain, filters };
  const socket = chain['transport_socket'];
  const tlsContext = isObject(socket) ? socket['typed_config'] : undefined;
  if (isObject(socket) && isObject(tlsContext) && tlsContext['@type'] === downstreamTlsContextType) {
    result['transport_socket'] = { ...socket, typed_config: referToStaticSecrets(tlsContext) };
  }
  return result;
}

function inlineListener(listener: ResourceJson, resources: EnvoyResources): ResourceJson {
  const chains = asObjects(listener['filter_chains']).map((chain) => inlineFilterChain(chain, resources));
  return { ...withoutType(listener), filter_chains: chains };
}

/** EDS cluster -> STATIC cluster carrying its ClusterLoadAssignment inline (empty if there is none). */
function inlineEndpoints(cluster: NamedResource, assignments: readonly NamedResource[]): ResourceJson {
  // A DNS cluster (ExternalName Service) already carries its endpoints.
  if (cluster.resource['type'] !== 'EDS') return withStaticUpstreamSecrets(withoutType(cluster.resource));
  const { eds_cluster_config: _eds, ...rest } = withStaticUpstreamSecrets(withoutType(cluster.resource));
  const assignment = assignments.find((a) => a.name === cluster.name);
  const loadAssignment = assignment ? withoutType(assignment.resource) : { cluster_name: cluster.name };
  return { ...rest, type: 'STATIC', load_assignment: loadAssignment };
}

/**
 * A bootstrap with every resource static, for `envoy --mode validate`. Listener ports are kept (nothing binds);
 * the runtime is the served bootstrap's, so limits apply alike.
 */
export function inlineIntoStaticBootstrap(resources: EnvoyResources): ResourceJson {
  return {
    admin: { address: buildSocketAddress('127.0.0.1', 0) },
    static_resources: {
      listeners: resources.listeners.map((l) => inlineListener(l.resource, resources)),
      clusters: resources.clusters.map((c) => inlineEndpoints(c, resources.clusterLoadAssignments)),
      secrets: resources.secrets.map((s) => withoutType(s.resource)),
    },
    layered_runtime: buildLayeredRuntime(),
  };
}
