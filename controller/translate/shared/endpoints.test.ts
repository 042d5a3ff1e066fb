import type { ClusterIR } from '../../../ir/index.js';
import test from 'ava';
import {
  clustersOfService,
  endpointsForCluster,
  indexEndpointSources,
  serviceKeyOfSlice,
  translateEndpoints,
} from './endpoints.js';
import type { ClusterState, EndpointSlice, Endpoints, Service, ServicePort } from './kube-objects.js';

function service(name: string, ports: ServicePort[]): Service {
  return { kind: 'Service', metadata: { name, namespace: 'ns' }, spec: { ports } };
}

function slice(name: string, svc: string, addresses: string[], ports: EndpointSlice['ports']): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'ns', labels: { 'kubernetes.io/service-name': svc } },
    addressType: 'IPv4',
    endpoints: addresses.map((a) => ({ addresses: [a] })),
    ...(ports === undefined ? {} : { ports }),
  };
}

function state(parts: Partial<ClusterState>): ClusterState {
  return { ingresses: [], ingressClasses: [], services: [], endpointSlices: [], endpoints: [], secrets: [], ...parts };
}

const cluster = (name: string, port: number): ClusterIR => ({
  name: `ns/${name}/${port}`,
  service: { namespace: 'ns', name, port },
});

test('an unnamed Service port matches the unnamed slice port', (t) => {
  const s = state({
    services: [service('web', [{ port: 80, targetPort: 8080 }])],
    endpointSlices: [
      slice('web-1', 'web', ['10.0.0.1'], [{ port: 8080 }]),
      slice('web-2', 'web', ['10.0.0.2'], [{ name: '', port: 8080 }]),
    ],
  });
  t.deepEqual(endpointsForCluster(s, cluster('web', 80)), {
    cluster: 'ns/web/80',
    endpoints: [
      { address: '10.0.0.1', port: 8080 },
      { address: '10.0.0.2', port: 8080 },
    ],
  });
});

test('a slice port named differently from the Service port is not used', (t) => {
  const s = state({
    services: [service('web', [{ name: 'http', port: 80 }])],
    endpointSlices: [slice('web-1', 'web', ['10.0.0.1'], [{ name: 'metrics', port: 9090 }])],
  });
  t.deepEqual(endpointsForCluster(s, cluster('web', 80)).endpoints, []);
});

test('a missing Service, or a cluster port the Service lacks, has no endpoints', (t) => {
  const s = state({
    services: [service('web', [{ name: 'http', port: 80 }])],
    endpointSlices: [slice('web-1', 'web', ['10.0.0.1'], [{ name: 'http', port: 8080 }])],
  });
  t.deepEqual(endpointsForCluster(s, cluster('gone', 80)).endpoints, []);
  t.deepEqual(endpointsForCluster(s, cluster('web', 81)).endpoints, []);
});

test('Endpoints are a fallback only for Services without any EndpointSlice', (t) => {
  const legacy: Endpoints = {
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'ns' },
    subsets: [{ addresses: [{ ip: '10.0.9.9' }], ports: [{ name: 'http', port: 8080 }] }],
  };
  const withoutSlices = state({ services: [service('web', [{ name: 'http', port: 80 }])], endpoints: [legacy] });
  t.deepEqual(endpointsForCluster(withoutSlices, cluster('web', 80)).endpoints, [{ address: '10.0.9.9', port: 8080 }]);
  const withSlice = state({
    ...withoutSlices,
    endpointSlices: [slice('web-1', 'web', ['10.0.0.1'], [{ name: 'http', port: 8080 }])],
  });
  t.deepEqual(endpointsForCluster(withSlice, cluster('web', 80)).endpoints, [{ address: '10.0.0.1', port: 8080 }]);
});

test('translateEndpoints keeps the clusters order and equals per-cluster results with a shared index', (t) => {
  const s = state({
    services: [service('a', [{ name: 'http', port: 80 }]), service('b', [{ name: 'http', port: 80 }])],
    endpointSlices: [
      slice('a-1', 'a', ['10.0.0.2', '10.0.0.1'], [{ name: 'http', port: 8080 }]),
      slice('b-1', 'b', ['10.0.1.1'], [{ name: 'http', port: 8080 }]),
    ],
  });
  const clusters = [cluster('a', 80), cluster('b', 80)];
  const index = indexEndpointSources(s);
  const all = translateEndpoints(s, clusters);
  t.deepEqual(all.map((e) => e.cluster), ['ns/a/80', 'ns/b/80']);
  t.deepEqual(all, clusters.map((c) => endpointsForCluster(s, c, index)));
  t.deepEqual(all[0]?.endpoints.map((e) => e.address), ['10.0.0.1', '10.0.0.2']);
  // An index of some Services only (a routes build with a new Service) answers those alike, and holds no other.
  const some = indexEndpointSources(s, new Set(['ns/b']));
  t.deepEqual(endpointsForCluster(s, clusters[1]!, some), all[1]);
  t.deepEqual([...some.services.keys(), ...some.slices.keys()], ['ns/b', 'ns/b']);
});

test('a slice event maps to the clusters of its Service', (t) => {
  const s = slice('web-1', 'web', [], undefined);
  t.is(serviceKeyOfSlice(s), 'ns/web');
  t.is(serviceKeyOfSlice({ ...s, metadata: { name: 'x', namespace: 'ns' } }), undefined);
  const clusters = [cluster('web', 80), cluster('web', 443), cluster('api', 80)];
  t.deepEqual(clustersOfService(clusters, 'ns', 'web').map((c) => c.name), ['ns/web/80', 'ns/web/443']);
  t.deepEqual(clustersOfService(clusters, 'other', 'web'), []);
});

// Objects from manifest files are not validated by an API server; an address or port Envoy cannot use would make
// it reject the ClusterLoadAssignment (with SotW EDS, the whole update of every cluster), so such endpoints are
// left out.
test('endpoints with an address that is not an IP or a port outside 1-65535 are left out', (t) => {
  const bad = ['10.0.0.300', 'localhost', ' 10.0.0.1', '010.0.0.1', '10.0.0.1/32', ''];
  const s = state({
    services: [service('web', [{ name: 'http', port: 80 }]), service('api', [{ name: 'http', port: 80 }])],
    endpointSlices: [
      slice('web-1', 'web', ['10.0.0.1', 'fd00::1', ...bad], [{ name: 'http', port: 8080 }]),
      slice('api-1', 'api', ['10.0.0.2'], [{ name: 'http', port: 70000 }]),
      slice('api-2', 'api', ['10.0.0.3'], [{ name: 'http', port: 0 }]),
    ],
    endpoints: [
      {
        kind: 'Endpoints',
        metadata: { name: 'legacy', namespace: 'ns' },
        subsets: [{ addresses: [{ ip: 'not-an-ip' }, { ip: '10.0.0.4' }], ports: [{ name: 'http', port: 8080 }] }],
      },
    ],
  });
  t.deepEqual(endpointsForCluster(s, cluster('web', 80)).endpoints, [
    { address: '10.0.0.1', port: 8080 },
    { address: 'fd00::1', port: 8080 },
  ]);
  t.deepEqual(endpointsForCluster(s, cluster('api', 80)).endpoints, []);
  const legacy = state({ ...s, services: [service('legacy', [{ name: 'http', port: 80 }])] });
  t.deepEqual(endpointsForCluster(legacy, cluster('legacy', 80)).endpoints, [{ address: '10.0.0.4', port: 8080 }]);
});
