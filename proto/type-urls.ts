// xDS v3 type URLs, and the short keys used for them across the code base.
export const typeUrlPrefix = 'type.googleapis.com/';

export const TypeUrl = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  routeConfiguration: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  clusterLoadAssignment: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
  /** VHDS: the virtual hosts of a RouteConfiguration, one resource each, named `<route configuration>/<name>`. */
  virtualHost: 'type.googleapis.com/envoy.config.route.v3.VirtualHost',
  /** ECDS: an HTTP filter's configuration, named as the filter that references it with `config_discovery`. */
  extensionConfig: 'type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig',
} as const;

export type ResourceKind = keyof typeof TypeUrl;
export type XdsTypeUrl = (typeof TypeUrl)[ResourceKind];

export const resourceKinds: readonly ResourceKind[] = [
  'cluster',
  'clusterLoadAssignment',
  'secret',
  'extensionConfig',
  'listener',
  'routeConfiguration',
  'virtualHost',
];

const kindByUrl = new Map<string, ResourceKind>(
  (Object.entries(TypeUrl) as [ResourceKind, string][]).map(([k, url]) => [url, k]),
);

export function kindOfTypeUrl(typeUrl: string): ResourceKind | undefined {
  return kindByUrl.get(typeUrl);
}

export function messageNameOfTypeUrl(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

/** Short names for logs and metrics: LDS, RDS, CDS, EDS, SDS, VHDS, ECDS. */
export const shortName: Record<ResourceKind, string> = {
  listener: 'LDS',
  routeConfiguration: 'RDS',
  cluster: 'CDS',
  clusterLoadAssignment: 'EDS',
  secret: 'SDS',
  virtualHost: 'VHDS',
  extensionConfig: 'ECDS',
};

/**
 * VHDS names a virtual host `<route configuration name>/<virtual host name>` (Envoy matches a subscription to a
 * route configuration by that namespace); the VirtualHost's own `name` must be the same, since Envoy keys and
 * removes virtual hosts by it.
 */
export function virtualHostResourceName(routeConfiguration: string, virtualHost: string): string {
  return `${routeConfiguration}/${virtualHost}`;
}

/** The route configuration a VHDS resource belongs to (its namespace: up to the last `/`, as Envoy reads it). */
export function routeConfigurationOf(virtualHostResource: string): string {
  const slash = virtualHostResource.lastIndexOf('/');
  return slash < 0 ? '' : virtualHostResource.slice(0, slash);
}
