// `envoy-ingress migrate-check`: reads Ingresses (a manifest directory, or a cluster through a kubeconfig) and
// reports what would behave differently if this controller served them with --nginx-annotations.
import { NetworkingV1Api } from '@kubernetes/client-node';
import { ManifestDirectorySource } from '../controller/sources/manifest-source.js';
import { ObjectStore } from '../controller/store.js';
import type { Ingress } from '../controller/translate/kube-objects.js';
import { formatMigrationReport, migrationReport, type MigrationReport } from '../controller/translate/nginx/migration-report.js';
import { loadKubeConfig } from './kube-controller.js';

export interface MigrateCheckSource {
  manifests?: string;
  kubeconfig?: string;
  context?: string;
}

const silent = { info: () => undefined, warn: () => undefined };

export async function loadIngresses(source: MigrateCheckSource): Promise<Ingress[]> {
  if (source.manifests !== undefined) {
    if (source.kubeconfig !== undefined) throw new Error('give --manifests or --kubeconfig, not both');
    const store = new ObjectStore();
    const dirSource = new ManifestDirectorySource(source.manifests, store, silent, { watch: false, now: () => new Date(0) });
    await dirSource.start();
    return [...store.state().ingresses];
  }
  const kc = loadKubeConfig({ ...(source.kubeconfig !== undefined ? { kubeconfig: source.kubeconfig } : {}), ...(source.context !== undefined ? { context: source.context } : {}) });
  const list = await kc.makeApiClient(NetworkingV1Api).listIngressForAllNamespaces();
  return list.items.map((item) => ({ ...item, kind: 'Ingress' }) as unknown as Ingress);
}

/** The report as text or JSON, and the exit code: 1 when something would change, else 0. */
export async function runMigrateCheck(source: MigrateCheckSource, format: 'text' | 'json'): Promise<{ output: string; exitCode: number; report: MigrationReport }> {
  const report = migrationReport(await loadIngresses(source));
  const output = format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report);
  return { output, exitCode: report.summary.changes ? 1 : 0, report };
}
