// migrate --from-cluster against a real API server: the ingress-nginx test Ingresses (testdata/nginx) and an
// IngressClass nginx of ours applied with kubectl give the same Gateway API objects and report as reading the
// manifests, and the cluster is left as it was (read-only).
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';

let cluster: KubeCluster | undefined;

test.before(async (t) => {
  t.timeout(KUBE_BINARIES_BUILD_TIMEOUT_MS, 'building or finding the kube binaries, then starting the cluster');
  await findKubeBinaries();
  t.timeout(180_000);
  cluster = await startKubeCluster();
});

test.after.always(async () => {
  await cluster?.stop();
});

const ingressClass = 'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: envoy-ingress.io/ingress-controller}\n';

async function migrate(root: string, args: string[]): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(root, 'dist/cli/main.js'), 'migrate', '--nginx-annotations', '--nginx-configmap', 'ingress-nginx/ingress-nginx-controller', ...args], { cwd: root });
}

/** The written objects without creationTimestamp (the API server's differ from the files'). */
async function written(dir: string): Promise<unknown[]> {
  const text = await readFile(path.join(dir, 'gateway-api-migrated.yaml'), 'utf8');
  return parseAllDocuments(text).map((d) => {
    const o = d.toJS() as { metadata: { creationTimestamp?: string } };
    delete o.metadata.creationTimestamp;
    return o;
  });
}

test('--from-cluster reads the cluster, read-only, and writes what --manifests writes', async (t) => {
  const c = cluster as KubeCluster;
  const root = findRepoRoot();
  const input = await createTempDir('migrate-kube-in-');
  const fromFiles = await createTempDir('migrate-kube-files-');
  const fromCluster = await createTempDir('migrate-kube-cluster-');
  t.teardown(() => Promise.all([input.remove(), fromFiles.remove(), fromCluster.remove()]));
  await cp(path.join(root, 'testdata/nginx'), input.path, { recursive: true });
  await writeFile(path.join(input.path, 'zz-ingress-class.yaml'), ingressClass);
  const namespaces = new Set<string>();
  for (const file of (await readdir(input.path)).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of parseAllDocuments(await readFile(path.join(input.path, file), 'utf8'))) {
      const ns = (doc.toJS() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace;
      if (ns !== undefined && ns !== 'default') namespaces.add(ns);
    }
  }
  for (const ns of [...namespaces].sort()) await c.kubectlOk(['create', 'namespace', ns]);
  await c.kubectlOk(['apply', '-f', input.path]);
  const before = (await c.kubectlOk(['get', 'ingresses,ingressclasses,services,secrets,configmaps', '-A', '-o', 'json']));

  await migrate(root, ['--from-cluster', '--kubeconfig', c.adminKubeconfigPath, '--out', fromCluster.path]);
  await migrate(root, ['--manifests', input.path, '--out', fromFiles.path]);

  t.deepEqual(await written(fromCluster.path), await written(fromFiles.path));
  const report = async (dir: string): Promise<{ ingresses: unknown[]; summary: Record<string, unknown> }> => JSON.parse(await readFile(path.join(dir, 'migration-report.json'), 'utf8')) as { ingresses: unknown[]; summary: Record<string, unknown> };
  const a = await report(fromCluster.path);
  const b = await report(fromFiles.path);
  t.deepEqual(a.ingresses, b.ingresses);
  t.true(a.ingresses.length > 0);
  t.is(a.summary['copied'], 0, 'nothing is copied from a cluster');
  t.deepEqual((await readdir(fromCluster.path)).sort(), ['gateway-api-migrated.yaml', 'migration-report.json']);
  const after = (await c.kubectlOk(['get', 'ingresses,ingressclasses,services,secrets,configmaps', '-A', '-o', 'json']));
  t.is(after, before, 'the cluster is unchanged');
});
