// xDS v3 type URLs, and the short keys used for them across the code base.
export const typeUrlPrefix = 'type.googleapis.com/';

export const TypeUrl = {
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  routeConfiguration: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  clusterLoadAssignment: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
  secret: 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret',
} as const;

export type ResourceKind = keyof typeof TypeUrl;
export type XdsTypeUrl = (typeof TypeUrl)[ResourceKind];

export const resourceKinds: readonly ResourceKind[] = [
  'cluster',
  'clusterLoadAssignment',
  'secret',
  'listener',
  'routeConfiguration',
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

/** Short names for logs and metrics: LDS, RDS, CDS, EDS, SDS. */
export const shortName: Record<ResourceKind, string> = {
  listener: 'LDS',
  routeConfiguration: 'RDS',
  cluster: 'CDS',
  clusterLoadAssignment: 'EDS',
  secret: 'SDS',
};
