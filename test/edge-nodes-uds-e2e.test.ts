// The edge-nodes variant puts the pod on the node's network, where "loopback" is every process's on the node.
// This runs the controller and a real Envoy with the variant's own flags and bootstrap (rendered with kubectl
// kustomize; paths and ports moved into a temp dir and free loopback ports, standalone mode instead of the API
// server) and shows: requests are served (xDS works over the Unix socket), Envoy's admin answers on its socket
// and the controller drains Envoy through it, and the two processes listen on no TCP port but the data plane's,
// Envoy's readiness listener and the controller's health endpoints: no xDS, no admin, no /debug.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { httpGet } from './harness/http-client.js';
import { findKubeBinaries } from './harness/kube-available.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { useWebAppManifests } from './fixtures/echo-app-manifests.js';
import { freePort } from './fixtures/standalone-stack.js';
import { listeningTcpPorts } from './harness/listening-ports.js';

const root = findRepoRoot();
const socketDir = '/run/envoy-ingress';

function getOverSocket(socketPath: string, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: urlPath }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (s: string) => (body += s));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function startProcess(t: ExecutionContext, bin: string, args: string[]): { child: ChildProcess; output(): string; exited: Promise<number | null> } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  t.teardown(() => {
    if (!t.passed) t.log(`--- ${path.basename(bin)} ---\n${output.slice(-3000)}`);
  });
  return { child, output: () => output, exited };
}

test('edge-nodes: xDS, Envoy admin and /debug are not on any TCP port; requests are served and Envoy drains over its admin socket', async (t) => {
  t.timeout(120_000);
  const { kubectl } = await findKubeBinaries();
  const { stdout } = await promisify(execFile)(kubectl, ['kustomize', path.join(root, 'deploy-variants/edge-nodes')], { maxBuffer: 16 << 20 });
  const docs = parseAllDocuments(stdout).map((d) => d.toJS() as any);
  const pod = docs.find((d) => d.kind === 'DaemonSet').spec.template.spec;
  const controllerArgs: string[] = pod.containers.find((c: any) => c.name === 'controller').args;
  const envoyArgs: string[] = pod.containers.find((c: any) => c.name === 'envoy').args;
  const bootstrapText: string = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'envoy-ingress-bootstrap').data['bootstrap.yaml'];
  // The variant's own choices, before anything is moved.
  t.true(controllerArgs.includes(`--xds-address=unix:${socketDir}/xds.sock`), controllerArgs.join(' '));
  t.true(controllerArgs.includes('--debug-address=off'));
  t.true(pod.containers.every((c: any) => c.volumeMounts.some((m: any) => m.mountPath === socketDir)));

  // A short temp dir: Unix socket paths are limited to 107 bytes.
  const dir = await createTempDir('ei-');
  t.teardown(() => dir.remove());
  const [httpPort, httpsPort, readyPort, healthPort, dnsPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  const relocate = (s: string): string =>
    s
      .replaceAll(socketDir, dir.path)
      .replace(/^--http-port=80$/, `--http-port=${httpPort}`)
      .replace(/^--https-port=443$/, `--https-port=${httpsPort}`)
      .replace(/^--https-redirect-port=443$/, `--https-redirect-port=${httpsPort}`)
      .replace(/^--listen-address=0\.0\.0\.0$/, '--listen-address=127.0.0.1')
      .replace(/^--health-address=127\.0\.0\.1:\d+$/, `--health-address=127.0.0.1:${healthPort}`)
      .replace(/^--drain-seconds=\d+$/, '--drain-seconds=1')
      .replace(/^--upstream-dns-filter=127\.0\.0\.1:\d+$/, `--upstream-dns-filter=127.0.0.1:${dnsPort}`);
  const bootstrap = parse(bootstrapText.replaceAll(socketDir, dir.path));
  const readiness = bootstrap.static_resources.listeners.find((l: any) => l.name === 'envoy_ready');
  readiness.address.socket_address = { address: '127.0.0.1', port_value: readyPort };
  // The controller's upstream DNS filter, where Envoy resolves names (UDP: not among the TCP ports below).
  for (const resolver of bootstrap.typed_dns_resolver_config.typed_config.resolvers) resolver.socket_address.port_value = dnsPort;
  await writeFile(dir.file('bootstrap.json'), JSON.stringify(bootstrap));

  const manifests = await useWebAppManifests(t);
  // Kubernetes mode needs an API server; standalone mode serves xDS the same way. Cluster-only flags stay out.
  const args = controllerArgs
    .filter((a) => !/^--(publish-nodes|leader-election-namespace)=/.test(a))
    .map(relocate)
    .concat(['--manifests', manifests]);
  const controller = startProcess(t, process.execPath, [path.join(root, 'dist/cli/main.js'), ...args]);
  const envoyBin = await findEnvoyBinary();
  const envoy = startProcess(t, envoyBin, [
    ...envoyArgs.map((a) => (a === '/etc/envoy/bootstrap.yaml' ? dir.file('bootstrap.json') : a)),
    '--use-dynamic-base-id',
  ]);

  const served = await waitFor(
    async () => {
      const res = await httpGet({ port: httpPort, hostHeader: 'web.example.test', path: '/x' }).catch(() => undefined);
      return res?.status === 200 ? res : undefined;
    },
    { description: 'a request served through Envoy configured over the xDS socket', timeoutMs: 60_000, intervalMs: 200 },
  );
  t.is(served.json?.service, 'web');

  // Both sockets are owner-only (connecting needs write permission).
  for (const name of ['xds.sock', 'admin.sock']) t.is((await stat(dir.file(name))).mode & 0o777, 0o600, name);
  t.is((await getOverSocket(dir.file('admin.sock'), '/ready')).body.trim(), 'LIVE');

  const ports = [...listeningTcpPorts(controller.child.pid!), ...listeningTcpPorts(envoy.child.pid!)].sort((a, b) => a - b);
  t.deepEqual(ports, [httpPort, readyPort, healthPort].sort((a, b) => a - b));
  // And the old loopback defaults answer nothing.
  for (const port of [18000, 9901, 9101]) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    t.false(open, `127.0.0.1:${port}`);
  }

  // SIGTERM: the controller drains Envoy through the admin socket (readiness fails, then it keeps serving xDS).
  controller.child.kill('SIGTERM');
  await waitFor(
    async () => {
      const res = await httpGet({ port: readyPort, hostHeader: 'x', path: '/ready' }).catch(() => undefined);
      return res?.status === 503 ? true : undefined;
    },
    { description: 'Envoy readiness failed by the drain over the admin socket', timeoutMs: 20_000, intervalMs: 100 },
  );
  t.is(await controller.exited, 0);
});
