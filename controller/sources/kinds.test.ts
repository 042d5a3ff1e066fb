import test from 'ava';
import { kindNames, kindTable } from '../translate/shared/kinds.js';
import { collectionPath, sourceKind, sourceKinds } from './kinds.js';

test('every kind of the table is a source kind, watched at its API path', (t) => {
  t.deepEqual(sourceKinds.map((k) => k.kind), kindNames);
  const paths = Object.fromEntries(sourceKinds.map((k) => [k.kind, [collectionPath(k, undefined), collectionPath(k, 'shop')]]));
  t.deepEqual(paths, {
    Ingress: ['/apis/networking.k8s.io/v1/ingresses', '/apis/networking.k8s.io/v1/namespaces/shop/ingresses'],
    // Cluster-scoped: the namespace watched does not apply.
    IngressClass: ['/apis/networking.k8s.io/v1/ingressclasses', '/apis/networking.k8s.io/v1/ingressclasses'],
    Service: ['/api/v1/services', '/api/v1/namespaces/shop/services'],
    EndpointSlice: ['/apis/discovery.k8s.io/v1/endpointslices', '/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices'],
    Endpoints: ['/api/v1/endpoints', '/api/v1/namespaces/shop/endpoints'],
    Secret: ['/api/v1/secrets', '/api/v1/namespaces/shop/secrets'],
    ConfigMap: ['/api/v1/configmaps', '/api/v1/namespaces/shop/configmaps'],
    Namespace: ['/api/v1/namespaces', '/api/v1/namespaces'],
    GatewayClass: ['/apis/gateway.networking.k8s.io/v1/gatewayclasses', '/apis/gateway.networking.k8s.io/v1/gatewayclasses'],
    Gateway: ['/apis/gateway.networking.k8s.io/v1/gateways', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/gateways'],
    HTTPRoute: ['/apis/gateway.networking.k8s.io/v1/httproutes', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes'],
    TLSRoute: ['/apis/gateway.networking.k8s.io/v1/tlsroutes', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/tlsroutes'],
    TCPRoute: ['/apis/gateway.networking.k8s.io/v1/tcproutes', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/tcproutes'],
    GRPCRoute: ['/apis/gateway.networking.k8s.io/v1/grpcroutes', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/grpcroutes'],
    ReferenceGrant: ['/apis/gateway.networking.k8s.io/v1/referencegrants', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/referencegrants'],
    ListenerSet: ['/apis/gateway.networking.k8s.io/v1/listenersets', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/listenersets'],
    BackendTLSPolicy: ['/apis/gateway.networking.k8s.io/v1/backendtlspolicies', '/apis/gateway.networking.k8s.io/v1/namespaces/shop/backendtlspolicies'],
    RoutePolicy: ['/apis/gateway.envoy-ingress.io/v1alpha1/routepolicies', '/apis/gateway.envoy-ingress.io/v1alpha1/namespaces/shop/routepolicies'],
  });
});

test('a source kind takes its group, version and scope from the table', (t) => {
  for (const kind of kindNames) {
    const source = sourceKind(kind);
    const apiVersion = source.group === '' ? source.version : `${source.group}/${source.version}`;
    t.is(apiVersion, kindTable[kind].apiVersions[0]);
    t.is(source.namespaced, kindTable[kind].namespaced);
    // Built-in kinds are always served; the Gateway API's CRDs may not be installed.
    t.is(source.optional, kind.startsWith('Gateway') || kind.endsWith('Route') || kind === 'ReferenceGrant' || kind === 'ListenerSet' || kind === 'BackendTLSPolicy' || kind === 'RoutePolicy');
  }
  t.throws(() => sourceKind('Widget'));
});
