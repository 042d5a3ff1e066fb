// Install variants (deploy-variants/<name>, kustomize overlays of deploy/): each renders with `kubectl
// kustomize` and passes `kubectl apply --dry-run=server` against a real API server; `kubectl apply -f deploy/`
// (the default install) still reads only objects; the split variant's bootstrap is what the CLI prints; every
// Envoy is probed and drained (test/envoy-drain-e2e.test.ts runs those drain commands against a real Envoy).
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';
import { useFileKubeCluster } from './fixtures/file-kube-cluster.js';

const run = promisify(execFile);
const root = findRepoRoot();
const variants = ['default', 'edge-nodes', 'split'] as const;
type Doc = { kind: string; metadata: { name: string }; spec?: any; data?: Record<string, string> };

const kube = useFileKubeCluster();

async function render(variant: string): Promise<{ yaml: string; docs: Doc[] }> {
  const { stdout } = await run(kube.kubectl, ['kustomize', path.join(root, 'deploy-variants', variant)], { maxBuffer: 16 * 1024 * 1024 });
  return { yaml: stdout, docs: parseAllDocuments(stdout).map((d) => d.toJS() as Doc) };
}

function kinds(docs: Doc[]): string[] {
  return docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
}

for (const variant of variants) {
  test.serial(`${variant}: renders and passes kubectl apply --dry-run=server`, async (t) => {
    const { yaml } = await render(variant);
    // The namespace must exist for a server-side dry run of the namespaced objects.
    await kube.cluster.kubectlOk(['apply', '-f', path.join(root, 'deploy/00-namespace.yaml')]);
    const out = await kube.cluster.kubectlOk(['apply', '--dry-run=server', '-f', '-'], { input: yaml });
    t.regex(out, /(created|configured|unchanged) \(server dry run\)/);
  });
}

test('default renders exactly the objects `kubectl apply -f deploy/` applies', async (t) => {
  const { docs } = await render('default');
  const applied = await kube.cluster.kubectlOk(['create', '--dry-run=client', '-o', 'yaml', '-f', path.join(root, 'deploy')]);
  const fromDir = parseAllDocuments(applied).flatMap((d) => {
    const o = d.toJS() as Doc & { items?: Doc[] };
    return o.items ?? [o];
  });
  t.deepEqual(kinds(docs), kinds(fromDir));
  t.true(kinds(docs).includes('Deployment/envoy-ingress'));
});

test('edge-nodes: the bootstrap is what the CLI prints (xDS and admin on Unix sockets) and Envoy accepts it', async (t) => {
  const { docs } = await render('edge-nodes');
  const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'envoy-ingress-bootstrap')!;
  // deploy/'s bootstrap: xDS and admin on Unix sockets there too.
  const header = (await readFile(path.join(root, 'deploy/04-envoy-bootstrap.yaml'), 'utf8')).split('\n')[0]!;
  const args = header.replace(/^# Generated: envoy-ingress /, '').split(' ');
  const { stdout } = await run(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args]);
  const bootstrap = parse(configMap.data!['bootstrap.yaml']!);
  t.deepEqual(bootstrap, parse(stdout));
  t.deepEqual(bootstrap.admin.address, { pipe: { path: '/run/envoy-ingress/admin.sock', mode: 0o600 } });
  const result = await validateWithEnvoy(bootstrap);
  t.true(result.ok, result.output);
});

test('edge-nodes: a hostNetwork DaemonSet binds 80/443 on each node; no Deployment or Service', async (t) => {
  const { docs } = await render('edge-nodes');
  t.false(kinds(docs).some((k) => k.startsWith('Deployment/') || k.startsWith('Service/')));
  const ds = docs.find((d) => d.kind === 'DaemonSet')!;
  t.true(ds.spec.template.spec.hostNetwork);
  const envoy = ds.spec.template.spec.containers.find((c: any) => c.name === 'envoy');
  t.deepEqual(envoy.ports.map((p: any) => p.hostPort).filter(Boolean), [80, 443]);
  const controller = ds.spec.template.spec.containers.find((c: any) => c.name === 'controller');
  t.true(controller.args.includes('--http-port=80') && controller.args.includes('--https-port=443'));
  t.true(controller.securityContext.readOnlyRootFilesystem && controller.securityContext.runAsNonRoot);
});

test('split: controller Deployment with mTLS xDS, Envoy DaemonSet whose bootstrap is the CLI\'s and is accepted by Envoy', async (t) => {
  const { docs } = await render('split');
  const controller = docs.find((d) => d.kind === 'Deployment')!;
  t.is(controller.metadata.name, 'envoy-ingress-controller');
  const args: string[] = controller.spec.template.spec.containers[0].args;
  for (const flag of ['--xds-tls-cert=', '--xds-tls-key=', '--xds-tls-ca=', '--xds-tls-client-san=', '--xds-address=0.0.0.0:']) {
    t.true(args.some((a) => a.startsWith(flag)), flag);
  }
  t.is(docs.find((d) => d.kind === 'DaemonSet')!.metadata.name, 'envoy-ingress-envoy');
  const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'envoy-ingress')!;
  t.is(service.spec.selector['app.kubernetes.io/component'], 'envoy');
  const configMap = docs.find((d) => d.kind === 'ConfigMap')!;
  const bootstrap = parse(configMap.data!['bootstrap.yaml']!);
  // Every key of the ConfigMap is a file `envoy-ingress bootstrap --output-dir` writes: the bootstrap and the SDS
  // files through which Envoy reads (and re-reads after a rotation) its client certificate and trusted CA.
  const header = await readFile(path.join(root, 'deploy-variants/split/envoy-bootstrap.yaml'), 'utf8');
  const args2 = header.split('\n')[0]!.replace(/^# Generated: envoy-ingress /, '').split(' ');
  const out = await createTempDir();
  t.teardown(() => out.remove());
  await run(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args2, '--output-dir', out.path]);
  const written = (await readdir(out.path)).sort();
  t.deepEqual(Object.keys(configMap.data!).sort(), written);
  t.deepEqual(written, ['bootstrap.yaml', 'xds-client-certificate.yaml', 'xds-trusted-ca.yaml']);
  for (const file of written) t.deepEqual(parse(configMap.data![file]!), parse(await readFile(out.file(file), 'utf8')), file);
  const tlsContext = bootstrap.static_resources.clusters[0].transport_socket.typed_config.common_tls_context;
  t.is(tlsContext.tls_certificate_sds_secret_configs[0].sds_config.path_config_source.path, '/etc/envoy/xds-client-certificate.yaml');
  // ... where the DaemonSet mounts the ConfigMap, and the certificates where it mounts the client Secret.
  const daemonSet = docs.find((d) => d.kind === 'DaemonSet')!;
  const envoy = daemonSet.spec.template.spec.containers.find((c: any) => c.name === 'envoy');
  const mountOf = (volume: string) => envoy.volumeMounts.find((m: any) => m.name === volume).mountPath;
  const volumeOf = (name: string) => daemonSet.spec.template.spec.volumes.find((v: any) => v.name === name);
  const bootstrapVolume = envoy.volumeMounts.find((m: any) => volumeOf(m.name).configMap?.name === configMap.metadata.name);
  t.is(bootstrapVolume.mountPath, '/etc/envoy');
  t.is(volumeOf('xds-tls').secret.secretName, 'envoy-ingress-xds-client');
  t.is(mountOf('xds-tls'), '/etc/xds-tls');
  t.regex(configMap.data!['xds-client-certificate.yaml']!, /filename: \/etc\/xds-tls\/tls\.crt/);
  // Envoy reads the SDS and certificate files while validating: point them at real ones.
  const ca = await createTestCA();
  const client = await ca.issue({ dnsNames: ['envoy.envoy-ingress.test'], clientAuth: true });
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(tmp.file('tls.crt'), client.certPem);
  await writeFile(tmp.file('tls.key'), client.keyPem);
  await writeFile(tmp.file('ca.crt'), ca.certPem);
  const relocate = (text: string) => text.replaceAll('/etc/xds-tls', tmp.path).replaceAll('/etc/envoy', tmp.path);
  for (const file of written.filter((f) => f !== 'bootstrap.yaml')) await writeFile(tmp.file(file), relocate(configMap.data![file]!));
  const result = await validateWithEnvoy(JSON.parse(relocate(JSON.stringify(bootstrap))));
  t.true(result.ok, result.output);
});

/** Where the Kubernetes client (loadFromCluster) reads the token, CA and namespace. */
const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

test('every variant: only the controller container holds the API token; Envoy and the drainer get none', async (t) => {
  for (const variant of variants) {
    const { docs } = await render(variant);
    const accounts = new Map(docs.filter((d) => d.kind === 'ServiceAccount').map((d) => [d.metadata.name, (d as any).automountServiceAccountToken]));
    for (const workload of docs.filter((d) => d.kind === 'Deployment' || d.kind === 'DaemonSet')) {
      const pod = workload.spec.template.spec;
      const where = `${variant} ${workload.kind}/${workload.metadata.name}`;
      // The kubelet mounts a token into every container unless the pod (or else its ServiceAccount) says false.
      const automount = pod.automountServiceAccountToken ?? accounts.get(pod.serviceAccountName ?? 'default') ?? true;
      const tokenVolumes = new Set(
        (pod.volumes ?? []).filter((v: any) => v.projected?.sources?.some((s: any) => s.serviceAccountToken)).map((v: any) => v.name),
      );
      const holders = pod.containers
        .filter((c: any) => automount || (c.volumeMounts ?? []).some((m: any) => tokenVolumes.has(m.name) && m.mountPath === serviceAccountDir))
        .map((c: any) => c.name);
      const controllers = pod.containers.filter((c: any) => c.args?.[0] === 'run').map((c: any) => c.name);
      t.deepEqual(holders, controllers, where);
      if (pod.containers.some((c: any) => c.name === 'envoy')) t.false(automount, `${where}: a pod with Envoy does not automount`);
    }
  }
});

/** The pod's Envoy container and what drains it on shutdown, with the numbers that must agree. */
test('every variant: Envoy is probed on the bootstrap\'s readiness listener and drained (by the controller or a drainer container) before it stops', async (t) => {
  for (const variant of variants) {
    const { docs } = await render(variant);
    const bootstrap = parse(docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'envoy-ingress-bootstrap')!.data!['bootstrap.yaml']!);
    const readyPort = bootstrap.static_resources.listeners.find((l: any) => l.name === 'envoy_ready').address.socket_address.port_value;
    // TCP on loopback, or (edge-nodes: the pod's loopback is the node's) a Unix socket.
    const admin = bootstrap.admin.address;
    const adminUrl = admin.pipe ? `unix:${admin.pipe.path}` : `http://127.0.0.1:${admin.socket_address.port_value}`;
    const pods = docs.filter((d) => (d.kind === 'Deployment' || d.kind === 'DaemonSet') && d.spec.template.spec.containers.some((c: any) => c.name === 'envoy'));
    t.is(pods.length, 1, variant);
    const pod = pods[0]!.spec.template.spec;
    const envoy = pod.containers.find((c: any) => c.name === 'envoy');
    const where = `${variant} ${pods[0]!.kind}/${pods[0]!.metadata.name}`;
    t.is(envoy.readinessProbe.httpGet.path, '/ready', where);
    const probePort = envoy.readinessProbe.httpGet.port;
    t.is(typeof probePort === 'number' ? probePort : envoy.ports.find((p: any) => p.name === probePort).containerPort, readyPort, where);
    const drainTime = Number(envoy.args[envoy.args.indexOf('--drain-time-s') + 1]);
    t.true(drainTime > 0, where);
    // Envoy keeps running (its preStop sleep) while it drains, and the pod's grace period covers both.
    const sleep = envoy.lifecycle.preStop.sleep.seconds;
    t.true(sleep > drainTime, `${where}: preStop sleep ${sleep} > drain ${drainTime}`);
    t.true(pod.terminationGracePeriodSeconds > sleep, where);
    // The container that drains it when the kubelet sends SIGTERM: the controller, or (no controller in the pod)
    // the drainer. Both reach the admin interface on loopback.
    const drainers = pod.containers.filter(
      (c: any) => (c.args?.[0] === 'run' && c.args.some((a: string) => a.startsWith('--envoy-admin-url='))) || (c.args?.[0] === 'drain-envoy' && c.args.includes('--wait-for-signal')),
    );
    t.is(drainers.length, 1, where);
    const args: string[] = drainers[0].args;
    const value = (flag: string) => args.find((a) => a.startsWith(`${flag}=`))?.split('=')[1];
    t.is(value(args[0] === 'run' ? '--envoy-admin-url' : '--admin-url'), adminUrl, where);
    t.is(Number(value('--drain-seconds')), drainTime, where);
    t.is(drainers[0].name, variant === 'split' ? 'drainer' : 'controller', where);
  }
});

test('every container of every variant: read-only root filesystem, no privilege escalation, capabilities dropped', async (t) => {
  for (const variant of variants) {
    const { docs } = await render(variant);
    for (const workload of docs.filter((d) => d.kind === 'Deployment' || d.kind === 'DaemonSet')) {
      const pod = workload.spec.template.spec;
      for (const c of pod.containers) {
        const where = `${variant} ${workload.kind}/${workload.metadata.name} ${c.name}`;
        t.true(c.securityContext.readOnlyRootFilesystem, where);
        // edge-nodes' Envoy binds 80/443 as non-root through a file capability on its binary, which the kernel
        // only honours without no_new_privs; its bounding set holds NET_BIND_SERVICE alone.
        const bindsLowPorts = variant === 'edge-nodes' && c.name === 'envoy';
        t.is(c.securityContext.allowPrivilegeEscalation, bindsLowPorts, where);
        t.deepEqual(c.securityContext.capabilities.drop, ['ALL'], where);
        t.deepEqual(c.securityContext.capabilities.add ?? [], bindsLowPorts ? ['NET_BIND_SERVICE'] : [], where);
        // Nothing runs as root.
        t.not(c.securityContext.runAsUser, 0, where);
        t.true(c.securityContext.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where);
      }
    }
  }
});
