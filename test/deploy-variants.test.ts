// Install variants (deploy-variants/<name>, kustomize overlays of deploy/): each renders with `kubectl
// kustomize` and passes `kubectl apply --dry-run=server` against a real API server; `kubectl apply -f deploy/`
// (the default install) still reads only objects; the split variant's bootstrap is what the CLI prints.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse, parseAllDocuments } from 'yaml';
import { validateWithEnvoy } from '../cli/validate-with-envoy.js';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA } from './harness/test-certs.js';

const run = promisify(execFile);
const root = findRepoRoot();
const variants = ['default', 'edge-nodes', 'split'] as const;
type Doc = { kind: string; metadata: { name: string }; spec?: any; data?: Record<string, string> };

let cluster: KubeCluster | undefined;
let kubectl = '';

test.before(async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries');
  kubectl = (await findKubeBinaries()).kubectl;
  t.timeout(240_000, 'starting the API server');
  cluster = await startKubeCluster();
});

test.after.always(async () => {
  await cluster?.stop();
});

async function render(variant: string): Promise<{ yaml: string; docs: Doc[] }> {
  const { stdout } = await run(kubectl, ['kustomize', path.join(root, 'deploy-variants', variant)], { maxBuffer: 16 * 1024 * 1024 });
  return { yaml: stdout, docs: parseAllDocuments(stdout).map((d) => d.toJS() as Doc) };
}

function kinds(docs: Doc[]): string[] {
  return docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
}

for (const variant of variants) {
  test.serial(`${variant}: renders and passes kubectl apply --dry-run=server`, async (t) => {
    const { yaml } = await render(variant);
    // The namespace must exist for a server-side dry run of the namespaced objects.
    await cluster!.kubectlOk(['apply', '-f', path.join(root, 'deploy/00-namespace.yaml')]);
    const out = await cluster!.kubectlOk(['apply', '--dry-run=server', '-f', '-'], { input: yaml });
    t.regex(out, /(created|configured|unchanged) \(server dry run\)/);
  });
}

test('default renders exactly the objects `kubectl apply -f deploy/` applies', async (t) => {
  const { docs } = await render('default');
  const applied = await cluster!.kubectlOk(['create', '--dry-run=client', '-o', 'yaml', '-f', path.join(root, 'deploy')]);
  const fromDir = parseAllDocuments(applied).flatMap((d) => {
    const o = d.toJS() as Doc & { items?: Doc[] };
    return o.items ?? [o];
  });
  t.deepEqual(kinds(docs), kinds(fromDir));
  t.true(kinds(docs).includes('Deployment/envoy-ingress'));
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
  for (const flag of ['--xds-tls-cert=', '--xds-tls-key=', '--xds-tls-ca=', '--xds-address=0.0.0.0:']) {
    t.true(args.some((a) => a.startsWith(flag)), flag);
  }
  t.is(docs.find((d) => d.kind === 'DaemonSet')!.metadata.name, 'envoy-ingress-envoy');
  const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'envoy-ingress')!;
  t.is(service.spec.selector['app.kubernetes.io/component'], 'envoy');
  const configMap = docs.find((d) => d.kind === 'ConfigMap')!;
  const bootstrap = parse(configMap.data!['bootstrap.yaml']!);
  const header = await readFile(path.join(root, 'deploy-variants/split/envoy-bootstrap.yaml'), 'utf8');
  const args2 = header.split('\n')[0]!.replace(/^# Generated: envoy-ingress /, '').split(' ');
  const { stdout } = await run(process.execPath, [path.join(root, 'dist/cli/main.js'), ...args2]);
  t.deepEqual(bootstrap, parse(stdout));
  t.is(bootstrap.static_resources.clusters[0].transport_socket.name, 'envoy.transport_sockets.tls');
  // Envoy reads the certificate files while validating: point them at real ones.
  const ca = await createTestCA();
  const client = await ca.issue({ dnsNames: ['envoy.envoy-ingress.test'], clientAuth: true });
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(tmp.file('tls.crt'), client.certPem);
  await writeFile(tmp.file('tls.key'), client.keyPem);
  await writeFile(tmp.file('ca.crt'), ca.certPem);
  const withFiles = JSON.parse(JSON.stringify(bootstrap).replaceAll('/etc/xds-tls/', `${tmp.path}/`));
  const result = await validateWithEnvoy(withFiles);
  t.true(result.ok, result.output);
});

test('every container of every variant: read-only root filesystem, no privilege escalation, capabilities dropped', async (t) => {
  for (const variant of variants) {
    const { docs } = await render(variant);
    for (const workload of docs.filter((d) => d.kind === 'Deployment' || d.kind === 'DaemonSet')) {
      const pod = workload.spec.template.spec;
      for (const c of pod.containers) {
        const where = `${variant} ${workload.kind}/${workload.metadata.name} ${c.name}`;
        t.true(c.securityContext.readOnlyRootFilesystem, where);
        t.false(c.securityContext.allowPrivilegeEscalation, where);
        t.deepEqual(c.securityContext.capabilities.drop, ['ALL'], where);
        t.true((c.securityContext.capabilities.add ?? []).every((cap: string) => cap === 'NET_BIND_SERVICE'), where);
        // Root only where binding 80/443 needs it (edge-nodes' Envoy); the controller never.
        const root = c.securityContext.runAsUser === 0;
        t.is(root, variant === 'edge-nodes' && c.name === 'envoy', where);
        if (!root) t.true(c.securityContext.runAsNonRoot ?? pod.securityContext?.runAsNonRoot, where);
      }
    }
  }
});
