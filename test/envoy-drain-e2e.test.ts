// Graceful drain of the Envoy pods exactly as deploy/ and deploy-variants/ configure it, against a real Envoy
// started with the generated bootstrap (deploy/04-envoy-bootstrap.yaml) and the Envoy container's own arguments:
// - split: the Envoy DaemonSet's `drainer` container (`envoy-ingress drain-envoy ... --wait-for-signal`) gets
//   SIGTERM when the pod stops;
// - default: the controller container (`run ... --envoy-admin-url --drain-seconds`) gets SIGTERM (edge-nodes,
//   whose admin interface is a Unix socket: test/edge-nodes-uds-e2e.test.ts).
// Either way Envoy's readiness endpoint (what the kubelet probes) stops answering 200 at once, clients on a
// kept-alive connection are told to close it, Envoy stops listening after the drain time, and the drainer exits 0.
// Only the ports (the test's own) and the drain time (2 s instead of 15) are changed, and Envoy's admin interface
// and xDS, Unix sockets in the manifests, become loopback ports the test harness reads Envoy's state from (each
// manifest's drain command must name the bootstrap's admin socket; draining over the socket itself is shown by
// test/edge-nodes-uds-e2e.test.ts and test/loopback-isolation-e2e.test.ts).
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController } from '../cli/standalone-controller.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { useEnvoy } from './harness/ava-fixtures.js';
import type { EnvoyProcess } from './harness/envoy-process.js';
import { createKeepAliveAgent, httpGet } from './harness/http-client.js';
import { findRepoRoot } from './harness/repo-root.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess } from './fixtures/controller-process.js';
import { useWebAppManifests } from './fixtures/echo-app-manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

const root = findRepoRoot();
const drainSeconds = 2;
type Container = { name: string; args?: string[]; readinessProbe?: any; lifecycle?: any };

async function podContainers(file: string): Promise<Container[]> {
  const docs = parseAllDocuments(await readFile(path.join(root, file), 'utf8')).map((d) => d.toJS() as any);
  const workload = docs.find((d) => d.kind === 'Deployment' || d.kind === 'DaemonSet');
  return workload.spec.template.spec.containers as Container[];
}

/** `--flag=value` from a container's args. */
function flagValue(args: readonly string[], flag: string): string {
  const arg = args.find((a) => a.startsWith(`${flag}=`));
  if (arg === undefined) throw new Error(`no ${flag} in ${args.join(' ')}`);
  return arg.slice(flag.length + 1);
}

/** The container's args with each `--flag=` in `values` given that value instead. */
function withValues(args: readonly string[], values: Record<string, string>): string[] {
  return args.map((a) => {
    const flag = a.split('=')[0]!;
    return flag in values ? `${flag}=${values[flag]}` : a;
  });
}

/** Where the manifests put Envoy's admin interface (the bootstrap's admin pipe). */
const adminSocketUrl = 'unix:/run/envoy-ingress/admin.sock';

/** The generated bootstrap with the test's ports: admin, readiness listener, controller's xDS. */
async function deployedBootstrap(ports: { admin: number; ready: number; xds: number }): Promise<any> {
  const [configMap] = parseAllDocuments(await readFile(path.join(root, 'deploy/04-envoy-bootstrap.yaml'), 'utf8')).map((d) => d.toJS() as any);
  const bootstrap = parse(configMap.data['bootstrap.yaml']);
  if (`unix:${bootstrap.admin.address.pipe?.path}` !== adminSocketUrl) throw new Error(`admin is not at ${adminSocketUrl}`);
  bootstrap.admin.address = { socket_address: { address: '127.0.0.1', port_value: ports.admin } };
  const ready = bootstrap.static_resources.listeners.find((l: any) => l.name === 'envoy_ready');
  ready.address.socket_address.address = '127.0.0.1';
  ready.address.socket_address.port_value = ports.ready;
  const xds = bootstrap.static_resources.clusters.find((c: any) => c.name === 'xds_cluster');
  xds.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address = { socket_address: { address: '127.0.0.1', port_value: ports.xds } };
  return bootstrap;
}


/** Starts Envoy with the deployed bootstrap and the deployed Envoy container's args, programmed by `xdsPort`. */
async function startDeployedEnvoy(t: ExecutionContext, envoyContainer: Container, ports: { admin: number; ready: number; xds: number }): Promise<EnvoyProcess> {
  // Envoy's arguments are `--flag value` pairs; the harness sets the config path and log level itself.
  const given = envoyContainer.args ?? [];
  const args: string[] = [];
  for (let i = 0; i < given.length; i += 2) {
    const [flag, value] = [given[i]!, given[i + 1]!];
    t.true(flag.startsWith('--') && !flag.includes('=') && !value.startsWith('--'), `Envoy argument pair ${flag} ${value}`);
    if (flag === '--config-path' || flag === '--log-level') continue;
    args.push(flag, flag === '--drain-time-s' ? String(drainSeconds) : value);
  }
  t.true(given.includes('--drain-time-s'), 'the Envoy container sets its drain time');
  return useEnvoy(t, { bootstrap: await deployedBootstrap(ports), extraArgs: args });
}

async function readyStatus(port: number): Promise<number | string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status;
  } catch (err: unknown) {
    return (err as { cause?: { code?: string } }).cause?.code ?? 'error';
  }
}

/** Envoy answers its readiness probe once it has its first config and its workers run. */
async function waitForReady(port: number): Promise<void> {
  await waitFor(async () => (await readyStatus(port)) === 200, { description: '/ready 200', timeoutMs: 30_000 });
}

/** What shows a drain: probe not 200, a kept-alive client told to close, then no more listening. */
async function assertDrains(t: ExecutionContext, w: { envoy: EnvoyProcess; httpPort: number; readyPort: number }, drained: Promise<unknown>): Promise<void> {
  // The kubelet's probe as the manifest has it: GET /ready on the readiness port, which stops being 200.
  await waitFor(async () => (await readyStatus(w.readyPort)) !== 200, { description: '/ready not 200', timeoutMs: 30_000 });
  t.is(await w.envoy.serverState(), 'DRAINING');
  // A client with a kept-alive connection is asked to close it within the drain time.
  const agent = createKeepAliveAgent();
  t.teardown(() => agent.destroy());
  const closed = await waitFor(
    async () => {
      const res = await httpGet({ port: w.httpPort, hostHeader: 'web.example.test', path: '/', agent });
      return res.headers.connection === 'close' ? res : undefined;
    },
    { description: 'a response with connection: close', timeoutMs: drainSeconds * 1000 + 5000, intervalMs: 20 },
  );
  t.is(closed.status, 200, 'requests are still served while draining');
  await drained;
  // After the drain time Envoy stops listening: new connections are refused.
  await waitFor(async () => (await w.envoy.stats('^listener_manager\\.listener_stopped$'))['listener_manager.listener_stopped']! > 0, {
    description: 'listeners stopped',
    timeoutMs: 10_000,
  });
  await t.throwsAsync(httpGet({ port: w.httpPort, hostHeader: 'web.example.test', path: '/', timeoutMs: 2000 }));
}

test('split: the Envoy DaemonSet\'s drainer container drains Envoy when the pod stops', async (t) => {
  const containers = await podContainers('deploy-variants/split/envoy-daemonset.yaml');
  const envoyContainer = containers.find((c) => c.name === 'envoy')!;
  const drainer = containers.find((c) => c.name === 'drainer')!;
  t.truthy(drainer, 'the DaemonSet has a drainer container');
  const [httpPort, httpsPort, readyPort, adminPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const controller = await startStandaloneController({
    manifestsDir: await useWebAppManifests(t),
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: defaultTranslateOptions,
    envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
    log: createLogger('silent'),
  });
  t.teardown(() => controller.stop());
  const envoy = await startDeployedEnvoy(t, envoyContainer, { admin: adminPort, ready: readyPort, xds: controller.xdsPort });
  await envoy.waitForListener('ingress_http');
  await waitForReady(readyPort);
  t.is((await httpGet({ port: httpPort, hostHeader: 'web.example.test', path: '/' })).status, 200);

  // The drainer's own command line, pointed at this Envoy's admin port with the test's drain time.
  t.is(flagValue(drainer.args!, '--admin-url'), adminSocketUrl);
  const args = withValues(drainer.args!, { '--admin-url': `http://127.0.0.1:${adminPort}`, '--drain-seconds': String(drainSeconds) });
  const child = spawn(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await waitFor(() => output.includes('waiting for SIGTERM to drain Envoy'), { description: 'the drainer idles', timeoutMs: 60_000 });
  // Idle until the pod stops: Envoy is untouched.
  t.is(await readyStatus(readyPort), 200);
  child.kill('SIGTERM');
  await assertDrains(t, { envoy, httpPort, readyPort }, exited);
  t.is(await exited, 0, output);
});

// (edge-nodes drains over Envoy's admin socket instead: test/edge-nodes-uds-e2e.test.ts.)
for (const variant of [{ name: 'default', file: 'deploy/05-deployment.yaml' }]) {
  test(`${variant.name}: the controller container drains its Envoy on SIGTERM`, async (t) => {
    const containers = await podContainers(variant.file);
    const envoyContainer = containers.find((c) => c.name === 'envoy')!;
    const controllerArgs = containers.find((c) => c.name === 'controller')!.args!;
    const [httpPort, httpsPort, readyPort, adminPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    t.is(flagValue(controllerArgs, '--envoy-admin-url'), adminSocketUrl);
    // The controller's drain flags from the manifest; the Kubernetes-mode flags give way to a manifest directory.
    const drainFlags = withValues(
      controllerArgs.filter((a) => a.startsWith('--envoy-admin-url=') || a.startsWith('--drain-seconds=')),
      { '--envoy-admin-url': `http://127.0.0.1:${adminPort}`, '--drain-seconds': String(drainSeconds) },
    );
    t.is(drainFlags.length, 2);
    const xdsPort = await freePort();
    const controller = startControllerProcess([
      '--manifests', await useWebAppManifests(t),
      '--xds-address', `127.0.0.1:${xdsPort}`,
      '--listen-address', '127.0.0.1',
      '--http-port', String(httpPort),
      '--https-port', String(httpsPort),
      '--debug-address', 'off',
      ...drainFlags,
    ]);
    t.teardown(() => controller.stop());
    // As in the pod, Envoy finds xDS served (otherwise it backs off and waits out its initial fetch timeout).
    await controller.waitForLog('xDS server listening');
    const envoy = await startDeployedEnvoy(t, envoyContainer, { admin: adminPort, ready: readyPort, xds: xdsPort });
    await envoy.waitForListener('ingress_http', 30_000);
    await waitForReady(readyPort);
    controller.kill('SIGTERM');
    await assertDrains(t, { envoy, httpPort, readyPort }, controller.exited);
    t.is((await controller.exited).code, 0, controller.logs());
  });
}
