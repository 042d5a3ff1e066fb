// End to end with --nginx-annotations: ingress-nginx service-upstream, through the controller and a real Envoy.
// The Service `split` has a ClusterIP (127.0.0.2, where the echo backend `via-cluster-ip` listens on the Service
// port) and an EndpointSlice naming another backend (`via-endpoints`): who answers shows which one Envoy used.
import test from 'ava';
import { httpGet } from './harness/http-client.js';
import { ingress, ingressClass } from './fixtures/manifests.js';
import { nginx } from './fixtures/nginx-manifests.js';
import { defineSharedWorld } from './fixtures/shared-stack.js';
import type { Stack } from './fixtures/standalone-stack.js';

interface World {
  stack: Stack;
  port: number;
}

function service(name: string, port: number, clusterIP: string | undefined, endpoint: { address: string; port: number }): object[] {
  return [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ...(clusterIP === undefined ? {} : { clusterIP }), ports: [{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-0`, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: endpoint.port, protocol: 'TCP' }],
      endpoints: [{ addresses: [endpoint.address], conditions: { ready: true } }],
    },
  ];
}

const world = defineSharedWorld<World>(async (scope) => {
  const dir = await scope.tempDir();
  const viaClusterIp = await scope.startBackend({ service: 'via-cluster-ip', host: '127.0.0.2' });
  const viaEndpoints = await scope.startBackend({ service: 'via-endpoints' });
  const port = viaClusterIp.port;
  const endpoint = { address: viaEndpoints.address, port: viaEndpoints.port };
  const route = (name: string, host: string, svc: string, values: Record<string, string>): object =>
    ingress(name, { annotations: nginx(values), rules: [{ host, paths: [{ path: '/', service: svc, port }] }] });
  const objects = [
    ingressClass(),
    ...service('split', port, '127.0.0.2', endpoint),
    ...service('headless', port, 'None', endpoint),
    route('upstream', 'upstream.test', 'split', { 'service-upstream': 'true' }),
    route('endpoints', 'endpoints.test', 'split', { 'service-upstream': 'false' }),
    route('headless', 'headless.test', 'headless', { 'service-upstream': 'true' }),
  ];
  const stack = await scope.startStack({ dir, objects, translate: { nginxAnnotations: true }, ready: { host: 'endpoints.test' } });
  return { stack, port };
});

const served = async (w: World, host: string): Promise<string> => String((await httpGet({ port: w.stack.httpPort, hostHeader: host, path: '/' })).json?.service);

test('service-upstream "true": the Service ClusterIP and port are used, not its endpoints', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'upstream.test'), 'via-cluster-ip');
  t.is(await served(w, 'endpoints.test'), 'via-endpoints', '"false": the endpoints, as by default');
});

test('service-upstream on a headless Service: its endpoints are used and the Ingress is told why', async (t) => {
  const w = await world(t);
  t.is(await served(w, 'headless.test'), 'via-endpoints');
  const messages = w.stack.controller.reconciler.diagnostics.filter((d) => d.object.name === 'headless').map((d) => d.message);
  t.true(messages.some((m) => /service-upstream: service default\/headless has no ClusterIP; its endpoints are used/.test(m)), messages.join('\n'));
});
