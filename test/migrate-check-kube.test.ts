// migrate-check --kubeconfig against a real API server: the ingress-nginx test Ingresses (testdata/nginx) applied
// with kubectl give the same report as reading the manifests directly.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { findKubeBinaries, KUBE_BINARIES_BUILD_TIMEOUT_MS } from './harness/kube-available.js';
import { startKubeCluster, type KubeCluster } from './harness/kube-cluster.js';
import { findRepoRoot } from './harness/repo-root.js';

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

async function namespacesOf(dir: string): Promise<string[]> {
  const names = new Set<string>();
  for (const file of (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f))) {
    for (const doc of parseAllDocuments(await readFile(path.join(dir, file), 'utf8'))) {
      const ns = (doc.toJS() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace;
      if (ns !== undefined && ns !== 'default') names.add(ns);
    }
  }
  return [...names].sort();
}

async function migrateCheck(root: string, args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'dist/cli/main.js'), 'migrate-check', ...args], { cwd: root });
    return { stdout, code: 0 };
  } catch (err: unknown) {
    const e = err as { stdout?: string; code?: number };
    return { stdout: e.stdout ?? '', code: e.code ?? -1 };
  }
}

test('--kubeconfig reads the cluster\'s Ingresses and reports exactly as --manifests does', async (t) => {
  const c = cluster as KubeCluster;
  const root = findRepoRoot();
  const manifests = path.join(root, 'testdata/nginx');
  // Every namespace the test data uses (read from it, so new test files need no change here).
  for (const ns of await namespacesOf(manifests)) await c.kubectlOk(['create', 'namespace', ns]);
  await c.kubectlOk(['apply', '-f', manifests]);
  // The ingress-nginx ConfigMap too: read from the API (readNamespacedConfigMap) or from the directory.
  const configMap = ['--nginx-configmap', 'ingress-nginx/ingress-nginx-controller'];
  const fromCluster = await migrateCheck(root, ['--kubeconfig', c.adminKubeconfigPath, ...configMap, '--output', 'json']);
  const fromFiles = await migrateCheck(root, ['--manifests', manifests, ...configMap, '--output', 'json']);
  t.is(fromCluster.code, 1);
  t.deepEqual(JSON.parse(fromCluster.stdout), JSON.parse(fromFiles.stdout));
  t.is((JSON.parse(fromCluster.stdout) as { configMap?: { found: boolean } }).configMap?.found, true);
  // A ConfigMap that does not exist is reported as such, not as an error.
  const missing = await migrateCheck(root, ['--kubeconfig', c.adminKubeconfigPath, '--nginx-configmap', 'ingress-nginx/nope', '--output', 'json']);
  t.is((JSON.parse(missing.stdout) as { configMap?: { found: boolean } }).configMap?.found, false);
});
