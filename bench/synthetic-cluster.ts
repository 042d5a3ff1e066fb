// Synthetic cluster states for the benchmarks: deterministic (seeded), shaped like the issue asks: per Ingress
// 1-3 hosts with 1-4 paths each, one Service per Ingress with 10 endpoints, 10% of Ingresses with a TLS host.
import type { ClusterState, EndpointSlice, Ingress, Secret, Service } from '../controller/translate/shared/kube-objects.js';

export interface SyntheticOptions {
  ingresses: number;
  endpointsPerService?: number;
  tlsFraction?: number;
  /** PEM certificate and key used by every TLS Secret (generated once by the caller). */
  tls: { certPem: string; keyPem: string };
  /** Where the endpoints point (default 10.x.y.z addresses that nothing answers on). */
  endpointAddress?: (service: number, endpoint: number) => { address: string; port: number };
  seed?: number;
}

/** Small deterministic PRNG (mulberry32), so every run measures the same cluster. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const benchNamespace = 'bench';

export function serviceName(i: number): string {
  return `svc-${i}`;
}

export function hostOf(i: number, h: number): string {
  return `app-${i}-${h}.bench.test`;
}

export function defaultEndpointAddress(service: number, endpoint: number): { address: string; port: number } {
  return { address: `10.${(service >> 8) & 255}.${service & 255}.${endpoint + 1}`, port: 8080 };
}

export function syntheticService(i: number): Service {
  return {
    kind: 'Service',
    metadata: { name: serviceName(i), namespace: benchNamespace },
    spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
  };
}

export function syntheticSlice(
  i: number,
  endpoints: number,
  address: (service: number, endpoint: number) => { address: string; port: number } = defaultEndpointAddress,
  generation = 0,
): EndpointSlice {
  const list = Array.from({ length: endpoints }, (_, e) => address(i, e));
  return {
    kind: 'EndpointSlice',
    metadata: {
      name: `${serviceName(i)}-0`,
      namespace: benchNamespace,
      labels: { 'kubernetes.io/service-name': serviceName(i) },
      resourceVersion: String(generation),
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: list[0]?.port ?? 8080, protocol: 'TCP' }],
    endpoints: list.map((a) => ({ addresses: [a.address], conditions: { ready: true } })),
  };
}

export function syntheticIngress(i: number, random: () => number, tls: boolean, pathSuffix = ''): Ingress {
  const hosts = 1 + Math.floor(random() * 3);
  const rules = Array.from({ length: hosts }, (_, h) => {
    const paths = 1 + Math.floor(random() * 4);
    return {
      host: hostOf(i, h),
      http: {
        paths: Array.from({ length: paths }, (_, p) => ({
          path: p === 0 ? '/' : `/p${p}${pathSuffix}`,
          pathType: p % 2 === 0 ? 'Prefix' : 'Exact',
          backend: { service: { name: serviceName(i), port: { number: 80 } } },
        })),
      },
    };
  });
  const ingress: Ingress = {
    kind: 'Ingress',
    metadata: { name: `ing-${i}`, namespace: benchNamespace },
    spec: { ingressClassName: 'envoy-ingress', rules },
  };
  if (tls) ingress.spec!.tls = [{ hosts: [hostOf(i, 0)], secretName: `tls-${i}` }];
  return ingress;
}

export function syntheticSecret(i: number, pem: { certPem: string; keyPem: string }): Secret {
  return {
    kind: 'Secret',
    metadata: { name: `tls-${i}`, namespace: benchNamespace },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(pem.certPem).toString('base64'),
      'tls.key': Buffer.from(pem.keyPem).toString('base64'),
    },
  };
}

export function syntheticCluster(o: SyntheticOptions): ClusterState {
  const random = seededRandom(o.seed ?? 42);
  const endpoints = o.endpointsPerService ?? 10;
  const tlsEvery = Math.round(1 / (o.tlsFraction ?? 0.1));
  const ingresses: Ingress[] = [];
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  const secrets: Secret[] = [];
  for (let i = 0; i < o.ingresses; i++) {
    const tls = i % tlsEvery === 0;
    ingresses.push(syntheticIngress(i, random, tls));
    services.push(syntheticService(i));
    endpointSlices.push(syntheticSlice(i, endpoints, o.endpointAddress));
    if (tls) secrets.push(syntheticSecret(i, o.tls));
  }
  return {
    ingresses,
    ingressClasses: [
      {
        kind: 'IngressClass',
        metadata: { name: 'envoy-ingress' },
        spec: { controller: 'envoy-ingress.io/ingress-controller' },
      },
    ],
    services,
    endpointSlices,
    endpoints: [],
    secrets,
  };
}

/** All objects of a state as one list (for loading into an ObjectStore or writing manifests). */
export function objectsOf(state: ClusterState): object[] {
  return [
    ...state.ingressClasses,
    ...state.services,
    ...state.endpointSlices,
    ...state.endpoints,
    ...state.secrets,
    ...state.ingresses,
    // Gateway API objects after what they name: the class, its Gateways, their routes.
    ...(state.gatewayClasses ?? []),
    ...(state.gateways ?? []),
    ...(state.httpRoutes ?? []),
  ];
}
