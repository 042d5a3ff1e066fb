// Issue 25 item 1: nothing Envoy proxies to reaches the control plane or Envoy's admin interface. Envoy resolves
// upstream names itself, so a tenant's ExternalName Service (or mirror-target) naming a host that resolves to
// 127.0.0.1 reaches whatever listens on the pod's loopback. This runs the controller and a real Envoy exactly as
// deploy/ configures them (the Deployment's args and the generated bootstrap; socket paths moved into a temp dir,
// every TCP port to a free loopback port, standalone mode instead of the API server) with Envoy resolving
// `loopback.attacker.test` to 127.0.0.1 through its own /etc/hosts, and a tenant's Ingresses aimed at every TCP
// port the two processes are configured with:
// - the attack path works (the same name reaches a loopback echo backend);
// - over HTTP/1.1 no port answers as Envoy's admin (/server_info), over h2c none as the xDS/ext_authz gRPC server;
// - a mirror-target at every port's /quitquitquit leaves Envoy serving;
// - the two processes listen on no TCP port but those configured (xDS and admin are Unix sockets).
// With xDS on 127.0.0.1:18000 and admin on 127.0.0.1:9901 (deploy/ before the fix) each of these fails.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { httpGet } from './harness/http-client.js';
import { listeningTcpPorts } from './harness/listening-ports.js';
import { assertPrivateHostsWork, withPrivateHosts, writeHostsFile } from './harness/private-hosts.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { nginxIngress } from './fixtures/nginx-manifests.js';
import { freePort } from './fixtures/standalone-stack.js';
import { annotationPrefix } from '../controller/translate/shared/options.js';

const root = findRepoRoot();
const socketDir = '/run/envoy-ingress';
const attackerName = 'loopback.attacker.test';

const clusterType = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

/** A protobuf length-delimited field. */
function field(tag: number, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(tag << 3) | 2, value.length]), value]);
}

/**
 * What an ADS stream through Envoy to `host` (routed over h2c) answers in 3 s to a first delta request for every
 * Cluster (node envoy-ingress, as the bootstrap's): an xDS server sends the clusters, whose type URL shows up in
 * the bytes; anything else (a connect failure, Envoy's gRPC-shaped local reply) does not. Read as latin1.
 */
async function adsProbe(port: number, host: string): Promise<string> {
  const node = field(1, Buffer.concat([field(1, Buffer.from('envoy-ingress')), field(2, Buffer.from('envoy-ingress'))]));
  const message = Buffer.concat([node, field(2, Buffer.from(clusterType))]);
  const frame = Buffer.concat([Buffer.from([0]), Buffer.alloc(4), message]);
  frame.writeUInt32BE(message.length, 1);
  return new Promise((resolve) => {
    let received = '';
    const req = request(
      { port, host: '127.0.0.1', method: 'POST', path: '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources',
        headers: { host, 'content-type': 'application/grpc', te: 'trailers', 'content-length': frame.length } },
      (res) => {
        res.setEncoding('latin1').on('data', (s: string) => (received += s));
        res.on('end', () => resolve(received));
      },
    );
    req.on('error', () => resolve(received));
    setTimeout(() => (req.destroy(), resolve(received)), 3000).unref();
    req.end(frame);
  });
}

function startProcess(t: ExecutionContext, label: string, bin: string, args: string[]): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  t.teardown(() => {
    if (!t.passed) t.log(`--- ${label} ---\n${output.slice(-4000)}`);
  });
  return { child, exited };
}

/** The objects of a deploy/ file. */
async function deployDocs(file: string): Promise<any[]> {
  return parseAllDocuments(await readFile(path.join(root, 'deploy', file), 'utf8')).map((d) => d.toJS());
}

test('default install: a tenant\'s names resolving to loopback reach neither xDS nor Envoy\'s admin', async (t) => {
  t.timeout(180_000);
  const pod = (await deployDocs('05-deployment.yaml')).find((d) => d.kind === 'Deployment').spec.template.spec;
  const controllerArgs: string[] = pod.containers.find((c: any) => c.name === 'controller').args;
  const envoyArgs: string[] = pod.containers.find((c: any) => c.name === 'envoy').args;
  const bootstrapDoc = (await deployDocs('04-envoy-bootstrap.yaml')).find((d) => d.kind === 'ConfigMap');

  // A short temp dir: Unix socket paths are limited to 107 bytes.
  const dir = await createTempDir('ei-');
  t.teardown(() => dir.remove());
  /** Every TCP port the manifests name -> the free loopback port it becomes here. */
  const ports = new Map<number, number>();
  const portFor = async (port: number): Promise<number> => {
    if (!ports.has(port)) ports.set(port, await freePort());
    return ports.get(port)!;
  };
  const args: string[] = [];
  for (const arg of controllerArgs) {
    if (/^--(publish-service|leader-election-namespace)=/.test(arg)) continue; // Kubernetes mode only
    let m: RegExpExecArray | null;
    if ((m = /^(--[a-z-]+)=(?:127\.0\.0\.1|0\.0\.0\.0):(\d+)$/.exec(arg))) args.push(`${m[1]}=127.0.0.1:${await portFor(Number(m[2]))}`);
    else if ((m = /^(--[a-z-]+-port)=(\d+)$/.exec(arg))) args.push(`${m[1]}=${await portFor(Number(m[2]))}`);
    else if ((m = /^(--envoy-admin-url)=http:\/\/127\.0\.0\.1:(\d+)$/.exec(arg))) args.push(`${m[1]}=http://127.0.0.1:${await portFor(Number(m[2]))}`);
    else if (arg === '--listen-address=0.0.0.0') args.push('--listen-address=127.0.0.1');
    else if (arg.startsWith('--drain-seconds=')) args.push('--drain-seconds=1');
    else args.push(arg.replaceAll(socketDir, dir.path));
  }
  const bootstrap = parse(bootstrapDoc.data['bootstrap.yaml'].replaceAll(socketDir, dir.path));
  const relocateAddress = async (address: any): Promise<void> => {
    if (address.socket_address) address.socket_address = { address: '127.0.0.1', port_value: await portFor(address.socket_address.port_value) };
  };
  await relocateAddress(bootstrap.admin.address);
  // The controller's upstream DNS filter (UDP), where Envoy resolves names: the same port number as its flag.
  for (const resolver of bootstrap.typed_dns_resolver_config?.typed_config.resolvers ?? []) await relocateAddress(resolver);
  for (const listener of bootstrap.static_resources.listeners) await relocateAddress(listener.address);
  for (const cluster of bootstrap.static_resources.clusters) {
    for (const group of cluster.load_assignment.endpoints) for (const e of group.lb_endpoints) await relocateAddress(e.endpoint.address);
  }
  await writeFile(dir.file('bootstrap.json'), JSON.stringify(bootstrap));
  const httpPort = ports.get(Number(controllerArgs.find((a) => a.startsWith('--http-port='))!.split('=')[1]))!;
  const configured = [...ports.values()].sort((a, b) => a - b);
  // Envoy's own proxy listeners, which anyone reaches anyway (a request aimed at them loops through Envoy), are
  // left out of the targets.
  const dataPlane = controllerArgs.filter((a) => /^--https?-port=/.test(a)).map((a) => ports.get(Number(a.split('=')[1]))!);
  const targets = configured.filter((p) => !dataPlane.includes(p));

  // The tenant's objects: for every configured port, an ExternalName Service at loopback.attacker.test:PORT
  // routed over HTTP/1.1 and over h2c, and a mirror-target at its /quitquitquit; plus the same name at an echo
  // backend, which shows the way in works.
  const echo = await useEchoBackend(t, { service: 'loopback-echo' });
  const externalName = (name: string, port: number): object => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { type: 'ExternalName', externalName: attackerName, ports: [{ name: 'p', port }] },
  });
  const objects: object[] = [
    ingressClass(),
    ...serviceWithEndpoints('web', [{ address: echo.address, port: echo.port }]),
    externalName('echo-by-name', echo.port),
    ingress('echo-by-name', { rules: [{ host: 'echo.attacker.test', paths: [{ path: '/', service: 'echo-by-name', port: echo.port }] }] }),
  ];
  for (const port of targets) {
    objects.push(
      externalName(`p${port}`, port),
      ingress(`h1-${port}`, { rules: [{ host: `h1-${port}.attacker.test`, paths: [{ path: '/', service: `p${port}`, port }] }] }),
      ingress(`h2c-${port}`, {
        annotations: { [`${annotationPrefix}backend-protocol`]: 'h2c' },
        rules: [{ host: `h2c-${port}.attacker.test`, paths: [{ path: '/', service: `p${port}`, port }] }],
      }),
      nginxIngress(`mirror-${port}`, `mirror-${port}.attacker.test`, 'web', { 'mirror-target': `http://${attackerName}:${port}/quitquitquit` }),
    );
  }
  const manifests = await createTempDir();
  t.teardown(() => manifests.remove());
  await writeFile(manifests.file('tenant.yaml'), toYaml(objects));

  const hostsFile = dir.file('hosts');
  await writeHostsFile(hostsFile, { localhost: '127.0.0.1', [attackerName]: '127.0.0.1' });
  await assertPrivateHostsWork(hostsFile, attackerName);

  const controller = startProcess(t, 'controller', process.execPath, [
    path.join(root, 'dist/cli/main.js'),
    ...args,
    '--manifests', manifests.path,
    '--allow-external-name',
    '--nginx-annotations',
    // An admin could allow the name: the mirror must still never reach the proxy's ports (the DNS filter's part).
    '--allow-url-target', attackerName,
  ]);
  const envoyCommand = withPrivateHosts(hostsFile, await findEnvoyBinary(), [
    ...envoyArgs.map((a) => (a === '/etc/envoy/bootstrap.yaml' ? dir.file('bootstrap.json') : a)),
    '--use-dynamic-base-id',
  ]);
  const envoy = startProcess(t, 'envoy', envoyCommand.bin, envoyCommand.args);

  const viaEnvoy = (host: string, urlPath: string, extra: { method?: string; body?: string; timeoutMs?: number } = {}) =>
    httpGet({ port: httpPort, hostHeader: host, path: urlPath, ...extra });
  // The way in works: the tenant's name reaches a process on loopback.
  const echoed = await waitFor(
    async () => {
      const res = await viaEnvoy('echo.attacker.test', '/x').catch(() => undefined);
      return res?.status === 200 ? res : undefined;
    },
    { description: 'the echo backend through an ExternalName resolving to 127.0.0.1', timeoutMs: 60_000, intervalMs: 250 },
  );
  t.is(echoed.json?.service, 'loopback-echo');

  for (const port of targets) {
    const h1 = await viaEnvoy(`h1-${port}.attacker.test`, '/server_info', { timeoutMs: 5000 }).catch((err: unknown) => ({ status: 0, body: String(err) }));
    t.false(h1.body.includes('command_line_options'), `port ${port} answers as Envoy's admin: ${h1.status}`);
    const xds = await adsProbe(httpPort, `h2c-${port}.attacker.test`);
    t.false(xds.includes(clusterType), `port ${port} answers as the xDS server`);
  }
  for (const port of targets) {
    await viaEnvoy(`mirror-${port}.attacker.test`, '/', { method: 'POST', body: 'x' }).catch(() => undefined);
  }
  // Mirrors are sent after the response: give them time, then Envoy still serves.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.is(envoy.child.exitCode, null, 'Envoy is still running');
  t.is((await viaEnvoy('echo.attacker.test', '/after')).status, 200);

  // And no TCP port but the configured ones (data plane, readiness, health, metrics, /debug) is open.
  const listening = [...listeningTcpPorts(controller.child.pid!), ...listeningTcpPorts(envoy.child.pid!)];
  t.deepEqual(
    listening.filter((p) => !configured.includes(p)),
    [],
  );
  // xDS and the admin interface are the sockets.
  t.true(args.includes(`--xds-address=unix:${dir.path}/xds.sock`), args.join(' '));
  t.deepEqual(Object.keys(bootstrap.admin.address), ['pipe']);
});
