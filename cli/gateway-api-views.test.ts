// Gateways and HTTPRoutes on /debug/gateway-api, the status page and the per-Gateway metrics, from a real standalone
// controller reading Gateway API manifests: a Gateway with a served and a refused listener, a route attached to it,
// a route refused (no such listener), a ListenerSet it takes with a route attached to the set (counted in the
// Gateway's metrics).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { serviceWithEndpoints, toYaml } from '../test/fixtures/manifests.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { startAdminServer } from './admin-server.js';
import type { GatewayApiView } from './gateway-api-view.js';
import { createLogger } from './logger.js';
import { ControllerMetrics, metricNames } from './metrics.js';
import { startStandaloneController } from './standalone-controller.js';

const gatewayApi = 'gateway.networking.k8s.io/v1';

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('Gateways (listeners, attached routes, conditions) and routes (parents\' conditions) on /debug/gateway-api, /debug/ui and /metrics', async (t) => {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  await writeFile(
    path.join(dir.path, 'all.yaml'),
    toYaml([
      ...serviceWithEndpoints('web', [{ address: '10.0.0.1', port: 8000 }]),
      { apiVersion: gatewayApi, kind: 'GatewayClass', metadata: { name: 'envoy' }, spec: { controllerName: 'envoy-ingress.io/gateway-controller' } },
      {
        apiVersion: gatewayApi,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace: 'default' },
        spec: {
          gatewayClassName: 'envoy',
          allowedListeners: { namespaces: { from: 'Same' } },
          listeners: [
            { name: 'web', port: 19080, protocol: 'HTTP', hostname: '*.example.test' },
            { name: 'udp', port: 19081, protocol: 'UDP' },
          ],
        },
      },
      {
        apiVersion: gatewayApi,
        kind: 'HTTPRoute',
        metadata: { name: 'shop', namespace: 'default' },
        spec: { parentRefs: [{ name: 'gw' }], hostnames: ['shop.example.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
      },
      {
        apiVersion: gatewayApi,
        kind: 'ListenerSet',
        metadata: { name: 'team', namespace: 'default' },
        spec: { parentRef: { name: 'gw' }, listeners: [{ name: 'team', port: 19082, protocol: 'HTTP', hostname: 'team.example.test' }] },
      },
      {
        apiVersion: gatewayApi,
        kind: 'HTTPRoute',
        metadata: { name: 'team', namespace: 'default' },
        spec: { parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name: 'team' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
      },
      {
        apiVersion: gatewayApi,
        kind: 'HTTPRoute',
        metadata: { name: 'lost', namespace: 'default' },
        spec: { parentRefs: [{ name: 'gw', sectionName: 'nope' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
      },
    ]),
  );
  const metrics = new ControllerMetrics({ processMetrics: false });
  const controller = await startStandaloneController({
    manifestsDir: dir.path,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '127.0.0.1', httpPort: 18080, httpsPort: 18443 },
    log: createLogger('silent'),
    watch: false,
    metrics,
  });
  t.teardown(() => controller.stop());
  const admin = await startAdminServer({ host: '127.0.0.1', port: 0, ready: () => ({ ready: true, reason: 'ok' }), metrics, controlPlane: controller });
  t.teardown(() => admin.close());
  const get = async (p: string): Promise<string> => (await fetch(`${admin.url}${p}`)).text();

  const view = JSON.parse(await get('/debug/gateway-api')) as GatewayApiView;
  t.is(view.gateways.length, 1);
  const gw = view.gateways[0]!;
  t.deepEqual([gw.namespace, gw.name], ['default', 'gw']);
  t.deepEqual(gw.attachedRoutes, ['HTTPRoute default/shop']);
  t.deepEqual(
    gw.listeners.map((l) => [l.name, l.protocol, l.port, l.hostname, l.attachedRoutes, l.programmed]),
    [
      ['web', 'HTTP', 19080, '*.example.test', 1, 'True'],
      ['udp', 'UDP', 19081, null, 0, 'False'],
    ],
  );
  t.is(gw.listeners[1]!.conditions.find((c) => c.type === 'Accepted')?.reason, 'UnsupportedProtocol');
  const lost = view.routes.find((r) => r.name === 'lost');
  t.is(lost?.parents[0]?.parent, 'default/gw/nope');
  t.is(lost?.parents[0]?.conditions.find((c) => c.type === 'Accepted')?.reason, 'NoMatchingParent');
  t.is(view.routes.find((r) => r.name === 'shop')?.parents[0]?.conditions.find((c) => c.type === 'Accepted')?.status, 'True');
  // The ListenerSet: its own entry; its route's parent names it, and the Gateway's attached routes leave it out.
  t.deepEqual(
    view.listenerSets.map((s) => [s.namespace, s.name, s.gateway, s.conditions.find((c) => c.type === 'Accepted')?.status, s.listeners.map((l) => [l.name, l.port, l.attachedRoutes])]),
    [['default', 'team', 'default/gw', 'True', [['team', 19082, 1]]]],
  );
  t.is(view.routes.find((r) => r.name === 'team')?.parents[0]?.parent, 'ListenerSet default/team');
  t.deepEqual(gw.attachedThroughListenerSets, ['HTTPRoute default/team']);

  const page = await get('/debug/ui');
  t.regex(page, /<h2 id="gateways">Gateways \(1\)<\/h2>/);
  t.regex(page, /<code>web<\/code> HTTP :19080 \*\.example\.test, 1 route\(s\)/);
  t.regex(page, /<span class="bad">Accepted=False<\/span> \(UnsupportedProtocol\)/);
  t.regex(page, /<h2 id="routes-gateway-api">Gateway API routes \(3\)<\/h2>/);
  t.regex(page, /HTTPRoute default\/lost<\/td><td><code>default\/gw\/nope<\/code><br><span class="bad">Accepted=False<\/span> \(NoMatchingParent\)/);
  t.regex(page, /<td>HTTPRoute default\/shop<\/td><\/tr>/, 'the route table names the HTTPRoute behind a route');

  const m = await get('/metrics');
  // Per Gateway, its ListenerSet's listener and the route attached through the set count too.
  t.is(sample(m, metricNames.gatewayAttachedRoutes, 'namespace="default",name="gw"'), 2);
  t.is(sample(m, metricNames.gatewayListeners, 'namespace="default",name="gw",programmed="true"'), 2);
  t.is(sample(m, metricNames.gatewayListeners, 'namespace="default",name="gw",programmed="false"'), 1);
});
