// Issue 27 item 3: `migrate`'s output applied next to the original Ingresses in a live cluster (a real
// kube-apiserver, the controller as deploy/'s ServiceAccount, a real Envoy) in the documented order: the Gateway,
// then the HTTPRoutes host by host (they wait: the older Ingress keeps the host, coexistence.ts, and both are
// told), then the Ingresses deleted one by one (each host's route takes it over in one route-table update). Two
// plain-HTTP hosts and a TLS host (its HTTPS listener joins the Ingress HTTPS port, its certificate the same Secret).
// A request loop runs through every step (several clients, kept-alive and new connections, every host and path)
// and records each answer: zero failures, every answer from the right backend, no listener update (no connection
// drained), and each host answered by its Ingress until that Ingress is deleted (its route applied long before)
// and by its HTTPRoute from the moment the switch converged. Then the rollback of one host, the same rule reversed.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { ECHO_SERVICE_HEADER } from './harness/echo-backend.js';
import { httpGet, httpsGet, type HttpResult } from './harness/http-client.js';
import { createTestCA, type TestCA } from './harness/test-certs.js';
import type { RemoteEcho } from './harness/netns-host.js';
import { startRequestLoop } from './harness/request-loop.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import {
  backendServiceObjects,
  kubeControllerArgs,
  manifestYaml,
  showStackLogsOnFailure,
  startKubeE2eStack,
  startKubeEnvoy,
  stopKubeE2eStack,
  type KubeE2eStack,
} from './fixtures/kube-e2e-stack.js';
import { freePort } from './fixtures/standalone-stack.js';

interface World extends KubeE2eStack {
  backends: Record<string, RemoteEcho>;
  ports: { xds: number; http: number; https: number };
  ca: TestCA;
  controller?: ControllerProcess;
  envoy?: EnvoyProcess;
}

let world: World | undefined;
function w(): World {
  if (!world) throw new Error('cluster not started');
  return world;
}

const ns = 'switch';
const gatewayNamespace = 'edge';
/** The response header the test adds to every migrated rule: which configuration answered, without touching the backend. */
const servedByHeader = 'x-served-by';
const listenerStats = '^listener_manager\\.(listener_in_place_updated|listener_modified|total_filter_chains_draining|lds\\.update_success)$';

interface PathSpec {
  path: string;
  pathType: 'Prefix' | 'Exact';
  service: string;
  /** A request path this Ingress path (and only it, on its host) answers. */
  probe: string;
}
interface HostSpec {
  ingress: string;
  host: string;
  paths: PathSpec[];
  /** Served over HTTPS with a certificate in Secret `tlsSecret` (plain HTTP redirects to https). */
  tls?: true;
}

const tlsSecret = 'secure-tls';

/** Two hosts, several paths each, one Ingress per host (as teams own their hosts), backends shared across hosts. */
const hosts: HostSpec[] = [
  {
    ingress: 'shop',
    host: 'shop.example.test',
    paths: [
      { path: '/', pathType: 'Prefix', service: 'web', probe: '/products/42' },
      { path: '/api', pathType: 'Prefix', service: 'api', probe: '/api/cart' },
      { path: '/healthz', pathType: 'Exact', service: 'api', probe: '/healthz' },
    ],
  },
  {
    ingress: 'blog',
    host: 'blog.example.test',
    paths: [
      { path: '/', pathType: 'Prefix', service: 'blog', probe: '/2026/11/hello' },
      { path: '/feed', pathType: 'Prefix', service: 'api', probe: '/feed/atom' },
    ],
  },
  {
    ingress: 'secure',
    host: 'secure.example.test',
    tls: true,
    paths: [
      { path: '/', pathType: 'Prefix', service: 'web', probe: '/' },
      { path: '/account', pathType: 'Prefix', service: 'api', probe: '/account/orders' },
    ],
  },
];

function ingressOf(h: HostSpec): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: h.ingress, namespace: ns },
    spec: {
      ingressClassName: 'envoy-ingress',
      ...(h.tls === undefined ? {} : { tls: [{ hosts: [h.host], secretName: tlsSecret }] }),
      rules: [{ host: h.host, http: { paths: h.paths.map((p) => ({ path: p.path, pathType: p.pathType, backend: { service: { name: p.service, port: { name: 'http' } } } })) } }],
    },
  };
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  spec?: { hostnames?: string[]; rules?: { filters?: { type: string }[] }[] };
  status?: { conditions?: Condition[]; parents?: { controllerName: string; conditions: Condition[] }[]; listeners?: { name: string; conditions: Condition[] }[] };
}

async function apply(objects: readonly object[]): Promise<void> {
  await w().cluster.kubectlOk(['apply', '-f', '-'], { input: manifestYaml(objects) });
}

async function get(kind: string, name: string, namespace: string): Promise<KubeObject> {
  return JSON.parse(await w().cluster.kubectlOk(['get', kind, name, '-n', namespace, '-o', 'json'])) as KubeObject;
}

function conditionOf(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** What a request of the loop asks: `expected` is the Service that must answer, or `redirectExpected`. */
interface Target {
  host: string;
  tls?: true | undefined;
  path: string;
  expected: string;
}
const redirectExpected = 'https redirect';

/** One answer of the request loop. */
interface Answer extends Target {
  keepAlive: boolean;
  location?: string;
  /** Milliseconds (Date.now()) when the request was sent and when its answer (or error) arrived. */
  sentAt: number;
  doneAt: number;
  status?: number;
  error?: string;
  service?: string;
  servedBy?: string;
}

/** A GET of `path` on host `h`: over HTTPS (the test CA trusted, SNI the host) for a TLS host, else plain HTTP. */
function request(h: { host: string; tls?: true | undefined }, path: string, agent?: Agent | HttpsAgent | false): Promise<HttpResult> {
  return h.tls === undefined
    ? httpGet({ port: w().ports.http, hostHeader: h.host, path, agent: agent as Agent | false | undefined ?? false, timeoutMs: 5000 })
    : httpsGet({ port: w().ports.https, hostHeader: h.host, servername: h.host, ca: w().ca.certPem, path, agent: agent as HttpsAgent | false | undefined ?? false, timeoutMs: 5000 });
}

/** Which configuration answers `path` on `host` now, over a new connection: 'route', 'ingress', or what went wrong. */
async function answeredBy(h: HostSpec, p: PathSpec): Promise<string> {
  try {
    const res = await request(h, p.probe);
    if (res.status !== 200 || res.headers[ECHO_SERVICE_HEADER] !== p.service) return `status ${res.status} from ${String(res.headers[ECHO_SERVICE_HEADER])}`;
    return res.headers[servedByHeader] === undefined ? 'ingress' : 'route';
  } catch (err: unknown) {
    return `error ${String(err)}`;
  }
}

test.before(async (t) => {
  const stack = await startKubeE2eStack(t, 'starting the cluster, installing the Gateway API CRDs');
  const backends = {
    web: await stack.host.startEcho({ service: 'web' }),
    api: await stack.host.startEcho({ service: 'api' }),
    blog: await stack.host.startEcho({ service: 'blog' }),
  };
  world = { ...stack, backends, ports: { xds: await freePort(), http: await freePort(), https: await freePort() }, ca: await createTestCA() };
  await stack.cluster.kubectlOk(['apply', '--server-side', '-f', path.join(findRepoRoot(), 'deploy/gateway-api/')]);
  await stack.cluster.kubectlOk(['wait', '--for=condition=Established', '--timeout=60s', 'crd/gatewayclasses.gateway.networking.k8s.io', 'crd/gateways.gateway.networking.k8s.io', 'crd/httproutes.gateway.networking.k8s.io']);
  await stack.cluster.kubectlOk(['create', 'namespace', ns]);
  await stack.cluster.kubectlOk(['create', 'namespace', gatewayNamespace]);
  world.controller = startControllerProcess([
    ...kubeControllerArgs({ kubeconfig: stack.saKubeconfig, xdsPort: world.ports.xds, publishAddress: '192.0.2.30', identity: 'migrate-switch', httpPort: world.ports.http, httpsPort: world.ports.https }),
    '--log-level=debug',
  ]);
  await world.controller.waitForLog('all informers synced');
  world.envoy = await startKubeEnvoy(world.ports.xds, 'migrate-switch-envoy');
  await world.envoy.waitForLive(60_000);
});

test.after.always(async () => {
  if (world) await stopKubeE2eStack(world);
});

test.serial('Gateway, then the HTTPRoutes host by host, then the Ingresses removed one by one: each host switches to its route with zero failed requests; the rollback too', async (t) => {
  t.timeout(600_000);
  showStackLogsOnFailure(t, () => world);
  const root = findRepoRoot();
  const services = Object.entries(w().backends).flatMap(([name, echo]) => backendServiceObjects(ns, name, echo));
  const cert = await w().ca.issue({ dnsNames: hosts.filter((h) => h.tls !== undefined).map((h) => h.host) });
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: tlsSecret, namespace: ns },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(cert.certPem).toString('base64'), 'tls.key': Buffer.from(cert.keyPem).toString('base64') },
  };
  const ingresses = hosts.map(ingressOf);

  // The manifests as a team keeps them: applied with kubectl, and `migrate` run on the same files (with the
  // IngressClass the cluster has, deploy/'s), its ports those the controller serves Ingresses on and redirects to.
  const input = await createTempDir('migrate-switch-in-');
  const out = await createTempDir('migrate-switch-out-');
  t.teardown(() => Promise.all([input.remove(), out.remove()]).then(() => undefined));
  await writeFile(path.join(input.path, 'apps.yaml'), manifestYaml([...ingresses, ...services, secret]));
  await writeFile(path.join(input.path, 'ingress-class.yaml'), await readFile(path.join(root, 'deploy/03-ingress-class.yaml'), 'utf8'));
  await w().cluster.kubectlOk(['apply', '-f', path.join(input.path, 'apps.yaml')]);
  for (const h of hosts) {
    for (const p of h.paths) await waitFor(async () => (await answeredBy(h, p)) === 'ingress', { description: `${h.host}${p.probe} served by its Ingress`, timeoutMs: 30_000 });
  }

  await promisify(execFile)(process.execPath, [
    path.join(root, 'dist/cli/main.js'), 'migrate', '--manifests', input.path, '--out', out.path,
    '--gateway-namespace', gatewayNamespace, '--http-port', String(w().ports.http), '--https-port', String(w().ports.https),
    // The controller's (its default: clients reach HTTPS on 443, in front of the Envoy port). migrate's own default,
    // --https-port, names the Envoy port: the redirect would change at the switch.
    '--https-redirect-port', '443',
  ], { cwd: root });
  const report = JSON.parse(await readFile(path.join(out.path, 'migration-report.json'), 'utf8')) as { ingresses: { name: string; paths: { host: string; path: string; result: string }[] }[] };
  t.deepEqual(
    report.ingresses.flatMap((i) => i.paths.map((p) => `${i.name} ${p.host}${p.path} ${p.result}`)).sort(),
    hosts.flatMap((h) => h.paths.map((p) => `${h.ingress} ${h.host}${p.path} same`)).sort(),
    'the report calls every path the same',
  );
  const migrated = parseAllDocuments(await readFile(path.join(out.path, 'gateway-api-migrated.yaml'), 'utf8')).map((d) => d.toJS() as KubeObject);
  const ofKind = (kind: string): KubeObject[] => migrated.filter((o) => o.kind === kind);
  // A Gateway (an HTTP listener, an HTTPS listener for the TLS host), a ReferenceGrant (the Secret is in the
  // Ingresses' namespace, the Gateway in its own), a route per host and, for the TLS host, its https redirect route.
  t.deepEqual(migrated.map((o) => o.kind).sort(), ['Gateway', 'GatewayClass', 'HTTPRoute', 'HTTPRoute', 'HTTPRoute', 'HTTPRoute', 'ReferenceGrant']);
  // The only edit to migrate's output: each rule that proxies also sets a response header naming its route, so an
  // answer shows which configuration served it (the backend and the request it receives stay the same).
  const routes = ofKind('HTTPRoute').map((r) => ({
    ...r,
    spec: {
      ...r.spec,
      rules: (r.spec?.rules ?? []).map((rule) =>
        rule.filters?.some((f) => f.type === 'RequestRedirect') === true
          ? rule
          : { ...rule, filters: [...(rule.filters ?? []), { type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: servedByHeader, value: `HTTPRoute ${r.metadata.namespace}/${r.metadata.name}` }] } }] },
      ),
    },
  }));
  const routesOf = (h: HostSpec): KubeObject[] => routes.filter((r) => r.spec.hostnames?.includes(h.host) === true);
  /** The route that serves the host's paths (not the https redirect). */
  const mainRouteOf = (h: HostSpec): KubeObject => routesOf(h).find((r) => !r.metadata.name.endsWith('-https-redirect'))!;
  for (const h of hosts) t.is(routesOf(h).length, h.tls === undefined ? 1 : 2, `HTTPRoutes for ${h.host}`);

  // The request loop: every (host, path) in turn, over kept-alive connections (one agent per client and scheme) and
  // new ones; a TLS host over HTTPS, and over plain HTTP too (its https redirect, the same Location throughout).
  const answers: Answer[] = [];
  const targets: Target[] = hosts.flatMap((h) => [
    ...h.paths.map((p) => ({ host: h.host, tls: h.tls, path: p.probe, expected: p.service })),
    ...(h.tls === undefined ? [] : h.paths.map((p) => ({ host: h.host, path: p.probe, expected: redirectExpected }))),
  ]);
  const clients = 6;
  const agents = Array.from({ length: clients / 2 }, () => ({ http: new Agent({ keepAlive: true, maxSockets: 1 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 1 }) }));
  t.teardown(() => {
    for (const a of agents) {
      a.http.destroy();
      a.https.destroy();
    }
  });
  // The kept-alive connections, by local port: a listener update would drain them (new connections, and answers
  // with `connection: close`).
  const keptAlivePorts = new Set<number>();
  for (const a of agents) for (const agent of [a.http, a.https]) agent.on('free', (socket: { localPort?: number }) => keptAlivePorts.add(socket.localPort ?? 0));
  let toldToClose = 0;
  let sent = 0;
  const send = async (): Promise<{ status: number }> => {
    const n = sent++;
    const target = targets[n % targets.length]!;
    // Alternate: even numbers over a kept-alive connection (agents in turn), odd ones over a new connection.
    const pair = n % 2 === 0 ? agents[(n / 2) % agents.length]! : undefined;
    const agent = pair === undefined ? false : target.tls === undefined ? pair.http : pair.https;
    const answer: Answer = { ...target, keepAlive: agent !== false, sentAt: Date.now(), doneAt: 0 };
    answers.push(answer);
    try {
      const res = await request(target, target.path, agent);
      answer.doneAt = Date.now();
      answer.status = res.status;
      answer.service = String(res.headers[ECHO_SERVICE_HEADER]);
      if (typeof res.headers.location === 'string') answer.location = res.headers.location;
      if (agent !== false && res.headers.connection === 'close') toldToClose += 1;
      const servedBy = res.headers[servedByHeader];
      if (typeof servedBy === 'string') answer.servedBy = servedBy;
      // Status 200 from another backend than the path's is a failure too; a redirect must be a 301 to https.
      if (target.expected === redirectExpected) return { status: res.status === 301 && answer.location?.startsWith(`https://${target.host}`) === true ? 200 : 599 };
      return { status: answer.service === target.expected ? res.status : 599 };
    } catch (err: unknown) {
      answer.doneAt = Date.now();
      answer.error = String(err);
      throw err;
    }
  };
  const loop = startRequestLoop(send, { concurrency: clients, intervalMs: 5, maxRequests: 1_000_000, maxDurationMs: 400_000, isSuccess: (s) => s === 200 });
  await waitFor(() => loop.snapshot().total > targets.length * 10, { description: 'requests flowing', timeoutMs: 30_000 });

  const listenersBefore = await w().envoy!.stats(listenerStats);
  const keptAliveBefore = keptAlivePorts.size;
  const steps: string[] = [];
  /** Lets the loop run on the current configuration: at least `ms` and a few rounds of every target. */
  const holdTraffic = async (ms: number): Promise<void> => {
    const [since, count] = [Date.now(), loop.snapshot().total];
    await waitFor(() => Date.now() - since >= ms && loop.snapshot().total > count + targets.length * 20, { description: 'requests on this configuration', timeoutMs: 60_000, intervalMs: 100 });
  };
  /** Who answers each path of `h` now (a new connection per probe). */
  const answersOf = async (h: HostSpec): Promise<string[]> => Promise.all(h.paths.map((p) => answeredBy(h, p)));
  const sharedCondition = 'envoy-ingress.io/HostSharedWithIngress';
  const ourConditions = async (route: KubeObject): Promise<Condition[] | undefined> =>
    (await get('httproute', route.metadata.name, route.metadata.namespace!)).status?.parents?.find((p) => p.controllerName === 'envoy-ingress.io/gateway-controller')?.conditions;
  const routeName = (h: HostSpec): string => `HTTPRoute ${mainRouteOf(h).metadata.namespace}/${mainRouteOf(h).metadata.name}`;
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  // 1. The Gateway, with its class and the ReferenceGrant that lets it use the Secret. Its HTTP listener is on the
  // Ingress HTTP port and its HTTPS listener (a hostname) on the Ingress HTTPS port: they join the Ingress listeners.
  await apply([...ofKind('GatewayClass'), ...ofKind('ReferenceGrant'), ...ofKind('Gateway')]);
  const gatewayName = ofKind('Gateway')[0]!.metadata.name;
  await waitFor(async () => conditionOf((await get('gateway', gatewayName, gatewayNamespace)).status?.conditions, 'Programmed')?.status === 'True', { description: 'Gateway Programmed', timeoutMs: 60_000 });
  const listenerConditions = (await get('gateway', gatewayName, gatewayNamespace)).status?.listeners?.map((l) => `${l.name} ${l.conditions.map((c) => `${c.type}=${c.status}`).join(',')}`);
  t.deepEqual(listenerConditions?.filter((l) => !/Accepted=True,Programmed=True,ResolvedRefs=True/.test(l)), [], 'every listener accepted and programmed');
  steps.push('Gateway applied, Programmed');
  await holdTraffic(2000);

  // 2. The HTTPRoutes, one host at a time. Each Ingress is older: it keeps its host, and both objects say so.
  for (const h of hosts) {
    await apply(routesOf(h));
    for (const route of routesOf(h)) {
      const waiting = await waitFor(async () => {
        const conditions = await ourConditions(route);
        return conditionOf(conditions, sharedCondition)?.reason === 'IngressOwnsHost' ? conditions : undefined;
      }, { description: `${route.metadata.name}: route status IngressOwnsHost`, timeoutMs: 60_000 });
      t.like(conditionOf(waiting, 'Accepted'), { status: 'True' });
      t.like(conditionOf(waiting, 'ResolvedRefs'), { status: 'True' });
      t.like(conditionOf(waiting, sharedCondition), { status: 'True' });
      // The host's route on the HTTPS listener waits on the HTTPS port, its redirect route on the HTTP port.
      const port = h.tls !== undefined && route === mainRouteOf(h) ? w().ports.https : w().ports.http;
      t.regex(conditionOf(waiting, sharedCondition)!.message, new RegExp(`${escaped(h.host)} on port ${port}: IngressOwnsHost`));
    }
    const described = await waitFor(async () => {
      const text = await w().cluster.kubectlOk(['describe', 'ingress', h.ingress, '-n', ns]);
      return /HostSharedWithHTTPRoute/.test(text) ? text : undefined;
    }, { description: `${h.host}: Event HostSharedWithHTTPRoute on the Ingress`, timeoutMs: 60_000 });
    t.regex(described, new RegExp(`Warning\\s+HostSharedWithHTTPRoute.*${escaped(h.host)}.*the older keeps it: Ingress ${ns}/${h.ingress}`));
    // Applied, accepted, and not serving: the Ingress still answers every path of the host.
    t.deepEqual(await answersOf(h), h.paths.map(() => 'ingress'), `${h.host} while Ingress and route both claim it`);
    steps.push(`${h.host}: ${routesOf(h).map((r) => r.metadata.name).join(' and ')} applied: Accepted, ResolvedRefs, ${sharedCondition}=True/IngressOwnsHost; Event HostSharedWithHTTPRoute on the Ingress`);
    await holdTraffic(2000);
  }

  // 3. The Ingresses removed, one at a time: the host's routes take it over.
  /** Per host, the windows in which one configuration must have answered every request. */
  const windows: { host: string; from: number; to: number; servedBy: string | undefined }[] = [];
  for (const h of hosts) {
    const deleteIssuedAt = Date.now();
    await w().cluster.kubectlOk(['delete', 'ingress', h.ingress, '-n', ns]);
    await waitFor(async () => (await answersOf(h)).every((a) => a === 'route'), { description: `${h.host} served by the route`, timeoutMs: 60_000, intervalMs: 50 });
    const convergedAt = Date.now();
    windows.push({ host: h.host, from: 0, to: deleteIssuedAt, servedBy: undefined }, { host: h.host, from: convergedAt, to: Number.POSITIVE_INFINITY, servedBy: routeName(h) });
    // The routes alone claim the host now: the coexistence condition leaves their status.
    for (const route of routesOf(h)) {
      await waitFor(async () => conditionOf(await ourConditions(route), sharedCondition) === undefined, { description: `${route.metadata.name}: ${sharedCondition} gone`, timeoutMs: 60_000 });
    }
    steps.push(`${h.host}: Ingress deleted, every path answered by the route ${convergedAt - deleteIssuedAt} ms later`);
    await holdTraffic(2000);
  }

  // 4. Rollback of the first host, the same rule the other way: its Ingress applied again is now the newer claim
  // (the route keeps the host, the Ingress is told), and deleting the route gives the host back to the Ingress.
  const back = hosts[0]!;
  const backRoute = mainRouteOf(back);
  await apply([ingressOf(back)]);
  await waitFor(async () => conditionOf(await ourConditions(backRoute), sharedCondition)?.reason === 'RouteOwnsHost', { description: `${back.host}: RouteOwnsHost`, timeoutMs: 60_000 });
  t.deepEqual(await answersOf(back), back.paths.map(() => 'route'), `${back.host}: the re-applied Ingress does not take the host back`);
  await holdTraffic(2000);
  const routeDeleteIssuedAt = Date.now();
  await w().cluster.kubectlOk(['delete', 'httproute', backRoute.metadata.name, '-n', backRoute.metadata.namespace!]);
  await waitFor(async () => (await answersOf(back)).every((a) => a === 'ingress'), { description: `${back.host} served by its Ingress again`, timeoutMs: 60_000, intervalMs: 50 });
  const rolledBackAt = Date.now();
  const routeWindow = windows.find((x) => x.host === back.host && x.servedBy !== undefined)!;
  routeWindow.to = routeDeleteIssuedAt;
  windows.push({ host: back.host, from: rolledBackAt, to: Number.POSITIVE_INFINITY, servedBy: undefined });
  steps.push(`${back.host}: rollback: Ingress re-applied (RouteOwnsHost, route still serving), route deleted, Ingress serving ${rolledBackAt - routeDeleteIssuedAt} ms later`);
  await holdTraffic(2000);

  const result = await loop.stop();
  const listenersAfter = await w().envoy!.stats(listenerStats);
  t.log(steps.join('\n'));
  t.log(`requests: ${result.total} (${answers.filter((a) => a.keepAlive).length} over kept-alive connections), by status: ${JSON.stringify(result.byStatus)}`);
  t.log(`kept-alive connections: ${keptAliveBefore} before the Gateway, ${keptAlivePorts.size} at the end; answers asking to close: ${toldToClose}`);

  // Zero failed requests: every answer a 200 from the path's own backend.
  t.deepEqual(result.failures, [], `failed requests: ${JSON.stringify(answers.filter((a) => a.status !== 200 || a.error !== undefined).slice(0, 20))}`);
  t.true(result.total > 2000, `only ${result.total} requests`);
  const redirects = answers.filter((a) => a.expected === redirectExpected);
  t.deepEqual(answers.filter((a) => a.expected !== redirectExpected && (a.status !== 200 || a.service !== a.expected)).slice(0, 20), [], 'answers from another backend');
  t.deepEqual(redirects.filter((a) => a.status !== 301).slice(0, 20), [], 'plain HTTP to the TLS host: 301');
  // The https redirect of each path is the same, from the Ingress and from the migrated redirect route.
  for (const p of new Set(redirects.map((a) => a.path))) {
    const locations = [...new Set(redirects.filter((a) => a.path === p).map((a) => `${a.location} (${a.servedBy ?? 'no header'})`))];
    t.is(locations.length, 1, `${p}: Locations ${locations.join(', ')}`);
  }
  // Every change was a route-table change: no listener update, so no connection was drained or told to close.
  t.deepEqual(listenersAfter, listenersBefore, 'no LDS update, no filter chain drained');
  t.is(keptAlivePorts.size, keptAliveBefore, 'the kept-alive connections stayed the same ones');
  t.is(toldToClose, 0);
  // Which configuration answered: the Ingress for every request answered before its delete was issued (while the
  // route was already applied), the route for every request sent once the switch converged, until the rollback.
  // Requests in flight during a switch may see either.
  for (const win of windows) {
    const inside = answers.filter((a) => a.host === win.host && a.expected !== redirectExpected && a.sentAt >= win.from && a.doneAt <= win.to);
    t.true(inside.length > 0, `${win.host}: no answer between ${win.from} and ${win.to}`);
    const wrong = inside.filter((a) => a.servedBy !== win.servedBy);
    t.deepEqual(wrong.slice(0, 5).map((a) => `${a.path} ${a.servedBy ?? 'Ingress'}`), [], `${win.host}: ${wrong.length} of ${inside.length} answers not from ${win.servedBy ?? 'the Ingress'}`);
  }
  for (const h of hosts) {
    const ofHost = answers.filter((a) => a.host === h.host);
    t.log(`${h.host}: ${ofHost.length} answers, ${ofHost.filter((a) => a.servedBy === undefined).length} by the Ingress, ${ofHost.filter((a) => a.servedBy !== undefined).length} by the route`);
  }
});
