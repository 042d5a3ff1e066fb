// VHDS through a real Envoy: over delta xDS the one route configuration both listeners use ('ingress') carries
// no virtual hosts, each virtual host is its own resource (`ingress/<host>`), so a change to one Ingress sends
// only that Ingress's virtual host and never the route table; a new host is pushed before any request asks for
// it. A state-of-the-world Envoy (no VHDS there) gets the route configuration with its virtual hosts embedded.
// And the first TLS host on a running Envoy brings the HTTPS listener, which uses the table Envoy already has.
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { ResourceKind } from '../proto/type-urls.js';
import type { PushEvent } from '../xds/ads-server.js';
import { clientSync } from '../xds/client-sync.js';
import type { AckEvent } from '../xds/stream-session.js';
import { useEchoBackend } from './harness/ava-fixtures.js';
import type { ConfigDumpSection } from './harness/envoy-process.js';
import { httpGet, httpsGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, tlsSecret, toYaml, type PathSpec } from './fixtures/manifests.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';
import { counterChanges } from './harness/counter-changes.js';

interface World {
  dir: string;
  ca: TestCA;
  stack: Stack;
}

async function writeManifest(dir: string, name: string, objects: object[]): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(`${file}.tmp`, toYaml(objects));
  await rename(`${file}.tmp`, file);
}

/** One Ingress per file (one host each), so a change to one of them is a change to one file. */
function hostIngress(name: string, paths: PathSpec[], tls = false): object[] {
  const host = `${name}.example.test`;
  return [ingress(name, { rules: [{ host, paths }], ...(tls ? { tls: [{ hosts: [host], secretName: `${name}-tls` }] } : {}) })];
}

/**
 * Hosts a and b (plain HTTP), c (TLS: it makes the HTTPS listener; left out with `tls: false`), and a default
 * backend.
 */
async function setUp(t: ExecutionContext, xdsProtocol: 'delta' | 'sotw', { tls = true } = {}): Promise<World> {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const dir = tmp.path;
  const ca = await createTestCA();
  const cert = await ca.issue({ dnsNames: ['c.example.test'] });
  const backends = {
    web: await useEchoBackend(t, { service: 'web' }),
    api: await useEchoBackend(t, { service: 'api' }),
    fallback: await useEchoBackend(t, { service: 'fallback' }),
  };
  const services = Object.entries(backends).flatMap(([name, b]) => serviceWithEndpoints(name, [{ address: b.address, port: b.port }]));
  await writeManifest(dir, 'services.yaml', [ingressClass(), ...services, tlsSecret('c-tls', cert.certPem, cert.keyPem)]);
  // Every Service stays in use by some other host whatever the tests change: no cluster comes or goes.
  await writeManifest(dir, 'a.yaml', hostIngress('a', [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }]));
  await writeManifest(dir, 'b.yaml', hostIngress('b', [{ path: '/', service: 'api' }, { path: '/api', service: 'web' }]));
  if (tls) await writeManifest(dir, 'c.yaml', hostIngress('c', [{ path: '/', service: 'web' }], true));
  await writeManifest(dir, 'fallback.yaml', [ingress('fallback', { defaultBackend: 'fallback' })]);
  // The fallback Ingress is the operator's: its default backend answers every host (tenant-default-backends.ts).
  const stack = await startStack(t, { manifestsDir: dir, xdsProtocol, translate: { defaultBackendNamespace: 'default' } });
  await stack.envoy.waitForListener('ingress_http');
  if (tls) await stack.envoy.waitForListener('ingress_https');
  await settled(stack);
  return { dir, ca, stack };
}

/** The controller has nothing left to build and the (one) Envoy has ACKed every resource of the snapshot. */
async function settled(stack: Stack): Promise<void> {
  await stack.controller.reconciler.idle();
  await waitFor(
    () => {
      const clients = stack.controller.server.clients();
      return clients.length === 1 && clientSync(clients[0]!.acked, stack.controller.cache.snapshot).inSync;
    },
    { timeoutMs: 20_000, description: 'Envoy to ACK every resource of the current snapshot' },
  );
}

async function serviceAt(w: World, host: string, p: string): Promise<string> {
  const res = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: p });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

async function serviceOverTls(w: World, host: string, p: string): Promise<string> {
  const res = await httpsGet({ port: w.stack.httpsPort, hostHeader: host, servername: 'c.example.test', path: p, ca: w.ca.certPem });
  return res.status === 200 ? String(res.json?.service) : `status ${res.status}`;
}

/** Every response the controller writes from now on, until stop(). */
function recordPushes(w: World): { pushes: PushEvent[]; stop(): void } {
  const pushes: PushEvent[] = [];
  const onPush = (e: PushEvent): void => void pushes.push(e);
  w.stack.controller.server.on('push', onPush);
  return { pushes, stop: () => w.stack.controller.server.off('push', onPush) };
}

function kindsOf(pushes: readonly PushEvent[]): ResourceKind[] {
  return [...new Set(pushes.map((p) => p.kind))].sort();
}

function namesOf(pushes: readonly PushEvent[], field: 'resourceNames' | 'removedNames'): string[] {
  return pushes.flatMap((p) => p[field]).sort();
}

/** The route configurations of /config_dump's RoutesConfigDump (dynamic_route_configs) by name, or their version_info. */
async function dynamicRouteConfigs(w: World): Promise<Map<string, Record<string, any>>>;
async function dynamicRouteConfigs(w: World, field: 'version_info'): Promise<Map<string, string>>;
async function dynamicRouteConfigs(w: World, field?: 'version_info'): Promise<Map<string, unknown>> {
  const dump = await w.stack.envoy.configDump();
  const routes = dump.configs.find((c: ConfigDumpSection) => c['@type'].endsWith('.RoutesConfigDump'));
  const out = new Map<string, unknown>();
  for (const entry of routes?.['dynamic_route_configs'] ?? []) out.set(entry.route_config.name, field === undefined ? entry.route_config : entry[field]);
  return out;
}

function virtualHostNames(routeConfig: Record<string, any> | undefined): string[] {
  return ((routeConfig?.['virtual_hosts'] ?? []) as { name: string }[]).map((v) => v.name).sort();
}

/**
 * Envoy's own counters of accepted route configurations (RDS) and virtual host sets (VHDS) of the 'ingress'
 * table. Both listeners' connection managers share its one subscription, counted under the first one's prefix.
 */
async function routeCounters(w: World): Promise<Record<string, number>> {
  return w.stack.envoy.stats('^http\\.ingress_https?\\.rds\\.(vhds\\.)?ingress\\.update_success$');
}

/** The one counter that changed, by its name without the listener prefix, and by how much. */
function routeCounterChanges(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counterChanges(before, after)).map(([name, by]) => [name.replace(/^http\.ingress_https?\./, ''), by]));
}

test.serial('delta: changing one Ingress sends only its virtual hosts (VHDS), never a route configuration, and Envoy serves the change', async (t) => {
  const w = await setUp(t, 'delta');
  t.is(await serviceAt(w, 'a.example.test', '/v2/x'), 'web');
  t.is(await serviceAt(w, 'a.example.test', '/'), 'web');
  t.is(await serviceAt(w, 'b.example.test', '/'), 'api');
  t.is(await serviceOverTls(w, 'a.example.test', '/v2/x'), 'web');

  const changes: { what: string; paths: PathSpec[]; expect: () => Promise<boolean> }[] = [
    {
      what: 'a new path on host a',
      paths: [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }, { path: '/v2', service: 'api' }],
      expect: async () => (await serviceAt(w, 'a.example.test', '/v2/x')) === 'api' && (await serviceOverTls(w, 'a.example.test', '/v2/x')) === 'api',
    },
    {
      what: 'another backend for a path of host a',
      paths: [{ path: '/', service: 'api' }, { path: '/api', service: 'api' }, { path: '/v2', service: 'api' }],
      expect: async () => (await serviceAt(w, 'a.example.test', '/')) === 'api' && (await serviceOverTls(w, 'a.example.test', '/')) === 'api',
    },
  ];
  for (const change of changes) {
    const countersBefore = await routeCounters(w);
    const recorder = recordPushes(w);
    await writeManifest(w.dir, 'a.yaml', hostIngress('a', change.paths));
    await w.stack.envoy.waitUntil(change.expect, 20_000, `Envoy to serve ${change.what}`);
    await settled(w.stack);
    recorder.stop();
    const { pushes } = recorder;
    t.deepEqual(kindsOf(pushes), ['virtualHost'], `${change.what}: only VHDS was pushed: ${JSON.stringify(pushes.map((p) => [p.kind, p.resourceNames]))}`);
    t.deepEqual(namesOf(pushes, 'resourceNames'), ['ingress/a.example.test'], `${change.what}: exactly host a's virtual host`);
    t.deepEqual(namesOf(pushes, 'removedNames'), []);
    // Envoy's side: the one table took one VHDS update (one table rebuild for both listeners) and no RDS update.
    t.deepEqual(
      routeCounterChanges(countersBefore, await routeCounters(w)),
      { 'rds.vhds.ingress.update_success': 1 },
      `${change.what}: Envoy's RDS/VHDS counters`,
    );
  }
  // The other hosts are untouched and still served.
  t.is(await serviceAt(w, 'b.example.test', '/'), 'api');
  t.is(await serviceAt(w, 'b.example.test', '/api'), 'web');
  t.is(await serviceAt(w, 'unknown.example.test', '/'), 'fallback');
  t.is(await serviceOverTls(w, 'c.example.test', '/'), 'web');
});

test.serial('delta: a new host is pushed proactively (no on-demand filter): the first request after the ACK is served; a removed host is removed alone', async (t) => {
  const w = await setUp(t, 'delta');
  // Nothing fetches virtual hosts on demand: the HTTP connection managers have no on_demand filter.
  const listeners = JSON.stringify((await w.stack.envoy.configDump()).configs.find((c) => c['@type'].endsWith('.ListenersConfigDump')));
  t.true(listeners.includes('envoy.filters.network.http_connection_manager'));
  t.false(listeners.includes('on_demand'), 'no on_demand HTTP filter');

  const host = 'd.example.test';
  const wanted = ['ingress/d.example.test'];
  const recorder = recordPushes(w);
  const acked = new Promise<AckEvent>((resolve) => {
    const onAck = (e: AckEvent): void => {
      if (e.kind === 'virtualHost' && e.resourceNames.includes('ingress/d.example.test')) {
        w.stack.controller.server.off('ack', onAck);
        resolve(e);
      }
    };
    w.stack.controller.server.on('ack', onAck);
  });
  await writeManifest(w.dir, 'd.yaml', hostIngress('d', [{ path: '/', service: 'api' }]));
  const ack = await acked;
  // The very first request for the host, sent only once Envoy has ACKed it: served by the new rule at once.
  const first = await httpGet({ port: w.stack.httpPort, hostHeader: host, path: '/first' });
  t.is(first.status, 200, 'the first request for the new host is not a 404');
  t.is(first.json?.service, 'api', 'and it is routed by the new host, not the default backend');
  t.deepEqual([...ack.resourceNames].sort(), wanted);
  await settled(w.stack);
  recorder.stop();
  t.deepEqual(kindsOf(recorder.pushes), ['virtualHost'], JSON.stringify(recorder.pushes.map((p) => [p.kind, p.resourceNames])));
  t.deepEqual(namesOf(recorder.pushes, 'resourceNames'), wanted);
  t.is(await serviceOverTls(w, host, '/'), 'api');

  // Removing the host: its virtual hosts are named as removed, nothing else is sent; it falls to the default backend.
  const removal = recordPushes(w);
  await rm(path.join(w.dir, 'd.yaml'));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, host, '/')) === 'fallback', 20_000, 'the removed host to fall to the default backend');
  await settled(w.stack);
  removal.stop();
  t.deepEqual(kindsOf(removal.pushes), ['virtualHost'], JSON.stringify(removal.pushes.map((p) => [p.kind, p.resourceNames, p.removedNames])));
  t.deepEqual(namesOf(removal.pushes, 'removedNames'), wanted);
  t.deepEqual(namesOf(removal.pushes, 'resourceNames'), []);
  t.deepEqual(virtualHostNames((await dynamicRouteConfigs(w)).get('ingress')), ['ingress/*', 'ingress/a.example.test', 'ingress/b.example.test', 'ingress/c.example.test']);
});

test.serial('delta: /config_dump shows the route configuration with vhds and the virtual hosts received over VHDS merged in', async (t) => {
  const w = await setUp(t, 'delta');
  const tables = await dynamicRouteConfigs(w);
  t.deepEqual([...tables.keys()].sort(), ['ingress']);
  for (const [name, table] of tables) {
    t.deepEqual(table['vhds'], { config_source: { ads: {}, resource_api_version: 'V3' } }, `${name} is a VHDS route configuration`);
    t.deepEqual(virtualHostNames(table), [`${name}/*`, `${name}/a.example.test`, `${name}/b.example.test`, `${name}/c.example.test`]);
  }
  const a = (tables.get('ingress')!['virtual_hosts'] as Record<string, any>[]).find((v) => v['name'] === 'ingress/a.example.test')!;
  t.deepEqual(a['domains'], ['a.example.test']);
  t.deepEqual(
    (a['routes'] as Record<string, any>[]).map((r) => r['name']),
    ['ingress/default/a/rule/0/path/1', 'ingress/default/a/rule/0/path/0', 'ingress/default/fallback/default-backend'],
  );
  // What the controller serves over delta xDS: the tables without virtual hosts, the hosts on their own.
  const snapshot = w.stack.controller.cache.snapshot.resources;
  t.deepEqual([...snapshot.routeConfiguration.keys()].sort(), ['ingress']);
  t.deepEqual([...snapshot.virtualHost.keys()].sort(), ['ingress/*', 'ingress/a.example.test', 'ingress/b.example.test', 'ingress/c.example.test']);
  // The TLS host: plain HTTP is redirected by its first route, for plain-HTTP requests only; TLS gets the rest.
  const c = (tables.get('ingress')!['virtual_hosts'] as Record<string, any>[]).find((v) => v['name'] === 'ingress/c.example.test')!;
  t.deepEqual(
    (c['routes'] as Record<string, any>[]).map((r) => r['name']),
    ['plain-http/https-redirect', 'ingress/default/c/rule/0/path/0', 'ingress/default/fallback/default-backend'],
  );
  // After a VHDS update the dump shows the merged result.
  await writeManifest(w.dir, 'b.yaml', hostIngress('b', [{ path: '/', service: 'api' }, { path: '/api', service: 'web' }, { path: '/new', service: 'web' }]));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, 'b.example.test', '/new')) === 'web', 20_000, 'the new path of host b');
  const b = ((await dynamicRouteConfigs(w)).get('ingress')!['virtual_hosts'] as Record<string, any>[]).find((v) => v['name'] === 'ingress/b.example.test')!;
  t.true(JSON.stringify(b['routes']).includes('ingress/default/b/rule/0/path/2'), 'the dump shows the updated virtual host');
  // The table's version_info is that of the last VHDS update it took: the controller's VirtualHost type version.
  await settled(w.stack);
  const versions = [...(await dynamicRouteConfigs(w, 'version_info')).values()];
  t.deepEqual(versions, [w.stack.controller.cache.snapshot.versions.virtualHost]);
  t.not(versions[0], w.stack.controller.cache.snapshot.versions.routeConfiguration);
});

test.serial('sotw: the route configuration arrives with its virtual hosts embedded, a change resends it and its ACK counts for the virtual hosts', async (t) => {
  // setUp waits until the controller sees every VirtualHost ACKed: the ACK of an embedding table counts for them.
  const w = await setUp(t, 'sotw');
  t.is(w.stack.controller.server.clients()[0]!.protocol, 'sotw');
  const tables = await dynamicRouteConfigs(w);
  t.deepEqual([...tables.keys()].sort(), ['ingress']);
  for (const [name, table] of tables) {
    t.is(table['vhds'], undefined, `${name} has no vhds over state-of-the-world`);
    t.deepEqual(virtualHostNames(table), [`${name}/*`, `${name}/a.example.test`, `${name}/b.example.test`, `${name}/c.example.test`]);
  }
  t.is(await serviceAt(w, 'a.example.test', '/v2/x'), 'web');
  t.is(await serviceAt(w, 'b.example.test', '/'), 'api');
  t.is(await serviceOverTls(w, 'c.example.test', '/'), 'web');

  const countersBefore = await routeCounters(w);
  const recorder = recordPushes(w);
  await writeManifest(w.dir, 'a.yaml', hostIngress('a', [{ path: '/', service: 'web' }, { path: '/api', service: 'api' }, { path: '/v2', service: 'api' }]));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, 'a.example.test', '/v2/x')) === 'api', 20_000, 'the new path of host a');
  await settled(w.stack);
  recorder.stop();
  t.deepEqual(kindsOf(recorder.pushes), ['routeConfiguration'], 'state of the world: the whole route configuration, no VHDS');
  t.deepEqual(namesOf(recorder.pushes, 'resourceNames'), ['ingress']);
  // Each pushed table carried all of its virtual hosts.
  t.deepEqual(
    recorder.pushes.flatMap((p) => p.embedded?.resourceNames ?? []).sort(),
    [...w.stack.controller.cache.snapshot.resources.virtualHost.keys()].sort(),
  );
  t.deepEqual(routeCounterChanges(countersBefore, await routeCounters(w)), { 'rds.ingress.update_success': 1 });
  t.is(await serviceOverTls(w, 'a.example.test', '/v2/x'), 'api');
  t.is(await serviceAt(w, 'b.example.test', '/'), 'api');
  t.is(await serviceAt(w, 'unknown.example.test', '/'), 'fallback');
});

test.serial('delta: the first TLS host on a running Envoy: the HTTPS listener uses the table Envoy has, only the new host is sent, and HTTPS is served', async (t) => {
  // Both listeners use one route configuration: a new HTTPS listener needs no new table (which Envoy would
  // subscribe to only once the listener arrived, and whose virtual hosts it would drop if sent before it).
  const w = await setUp(t, 'delta', { tls: false });
  t.deepEqual([...(await dynamicRouteConfigs(w)).keys()], ['ingress']);
  const recorder = recordPushes(w);
  await writeManifest(w.dir, 'c.yaml', hostIngress('c', [{ path: '/', service: 'web' }], true));
  await w.stack.envoy.waitUntil(
    async () => (await serviceOverTls(w, 'c.example.test', '/').catch((e: unknown) => String(e))) === 'web',
    20_000,
    'the new TLS host to be served over HTTPS',
  );
  await settled(w.stack);
  recorder.stop();
  const pushes = recorder.pushes.map((p) => ({ kind: p.kind, names: p.resourceNames }));
  t.false(pushes.some((p) => p.kind === 'routeConfiguration'), `no route configuration is sent: ${JSON.stringify(pushes)}`);
  t.deepEqual(pushes.filter((p) => p.kind === 'virtualHost').flatMap((p) => p.names).sort(), ['ingress/c.example.test']);
  const stats = await w.stack.envoy.stats('^http\\.ingress_https?\\.rds\\.vhds\\.ingress\\.init_fetch_timeout$');
  t.true(Object.keys(stats).length > 0 && Object.values(stats).every((n) => n === 0), JSON.stringify(stats));
  t.deepEqual(virtualHostNames((await dynamicRouteConfigs(w)).get('ingress')), ['ingress/*', 'ingress/a.example.test', 'ingress/b.example.test', 'ingress/c.example.test']);
  t.is(await serviceOverTls(w, 'a.example.test', '/api'), 'api');
  // Plain HTTP to the new TLS host redirects.
  t.is((await httpGet({ port: w.stack.httpPort, hostHeader: 'c.example.test', path: '/' })).status, 301);

  // And the last TLS host going away removes its virtual host alone.
  const removal = recordPushes(w);
  await rm(path.join(w.dir, 'c.yaml'));
  await w.stack.envoy.waitUntil(async () => (await serviceAt(w, 'c.example.test', '/')) === 'fallback', 20_000, 'the removed host to fall to the default backend');
  await settled(w.stack);
  removal.stop();
  t.deepEqual(namesOf(removal.pushes.filter((p) => p.kind === 'virtualHost'), 'removedNames'), ['ingress/c.example.test']);
  t.deepEqual([...w.stack.controller.server.clients()[0]!.acked.virtualHost.keys()].sort(), ['ingress/*', 'ingress/a.example.test', 'ingress/b.example.test']);
});
