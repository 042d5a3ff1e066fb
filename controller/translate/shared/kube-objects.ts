// The subset of Kubernetes objects the translator reads, as plain data (the JSON shape the API server and
// YAML manifests use). Sources normalise into these types, so the pure translator never sees client classes.
import type { SourceRef } from '../../../ir/index.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339 string; sources convert Date objects to strings. */
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ServiceBackendPort {
  name?: string;
  number?: number;
}

export interface IngressBackend {
  service?: { name: string; port?: ServiceBackendPort };
  resource?: { apiGroup?: string; kind: string; name: string };
}

export interface HTTPIngressPath {
  path?: string;
  pathType?: string;
  backend: IngressBackend;
}

export interface IngressRule {
  host?: string;
  http?: { paths: HTTPIngressPath[] };
}

export interface IngressTLS {
  hosts?: string[];
  secretName?: string;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface Ingress {
  apiVersion?: string;
  kind: 'Ingress';
  metadata: ObjectMeta;
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    rules?: IngressRule[];
    tls?: IngressTLS[];
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface IngressClass {
  apiVersion?: string;
  kind: 'IngressClass';
  metadata: ObjectMeta;
  spec?: { controller?: string };
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface Service {
  apiVersion?: string;
  kind: 'Service';
  metadata: ObjectMeta;
  spec?: {
    type?: string;
    clusterIP?: string;
    externalName?: string;
    selector?: Record<string, string>;
    ports?: ServicePort[];
  };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface EndpointSliceEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  nodeName?: string;
  zone?: string;
}

export interface EndpointSlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSlice {
  apiVersion?: string;
  kind: 'EndpointSlice';
  metadata: ObjectMeta;
  addressType: string;
  endpoints?: EndpointSliceEndpoint[];
  ports?: EndpointSlicePort[];
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
}

export interface Endpoints {
  apiVersion?: string;
  kind: 'Endpoints';
  metadata: ObjectMeta;
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }[];
}

export interface Secret {
  apiVersion?: string;
  kind: 'Secret';
  metadata: ObjectMeta;
  type?: string;
  /** base64 values, as in the API. Sources fold `stringData` into `data`. */
  data?: Record<string, string>;
}

/** Only the ingress-nginx ConfigMap (--nginx-configmap) is read; its `data` holds string values. */
export interface ConfigMap {
  apiVersion?: string;
  kind: 'ConfigMap';
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

export type KubeObject = Ingress | IngressClass | Service | EndpointSlice | Endpoints | Secret | ConfigMap;
export type KubeKind = KubeObject['kind'];

/** Everything the translator reads: a consistent snapshot of the store. */
export interface ClusterState {
  ingresses: readonly Ingress[];
  ingressClasses: readonly IngressClass[];
  services: readonly Service[];
  endpointSlices: readonly EndpointSlice[];
  endpoints: readonly Endpoints[];
  secrets: readonly Secret[];
  /** ConfigMaps the sources read (the one --nginx-configmap names); absent means none. */
  configMaps?: readonly ConfigMap[];
}

/** A reference to one of the objects the translator reads: the IR's SourceRef with a known kind. */
export type ObjectRef<Kind extends KubeKind = KubeKind> = SourceRef<Kind>;

export function refOf<Obj extends KubeObject>(obj: Obj): ObjectRef<Obj['kind']> {
  return { kind: obj.kind, namespace: obj.metadata.namespace ?? 'default', name: obj.metadata.name };
}

export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}
