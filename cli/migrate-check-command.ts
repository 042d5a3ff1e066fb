// `envoy-ingress migrate-check`: reads Ingresses (a manifest directory, or a cluster through a kubeconfig) and
// reports what would behave differently if this controller served them with --nginx-annotations.
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { ManifestDirectorySource } from '../controller/sources/manifest-source.js';
import { ObjectStore } from '../controller/store.js';
import type { ConfigMap, Ingress } from '../controller/translate/shared/kube-objects.js';
import { findNginxConfigMap } from '../controller/translate/ingress/nginx/nginx-configmap.js';
import { configMapReport } from '../controller/translate/ingress/nginx/nginx-configmap-report.js';
import { parseNamespacedName } from './controller-options.js';
import { formatMigrationReport, migrationReport, type MigrationReport } from '../controller/translate/ingress/nginx/migration-report.js';
import { loadKubeConfig } from './kube-controller.js';

export interface MigrateCheckSource {
  manifests?: string;
  kubeconfig?: string;
  context?: string;
  /** NAMESPACE/NAME of the ingress-nginx ConfigMap (in the manifest directory, or in the cluster). */
  nginxConfigmap?: string;
}

const silent = { info: () => undefined, warn: () => undefined };

export interface LoadedObjects {
  ingresses: Ingress[];
  /** The ConfigMap --nginx-configmap names, when it was given and exists. */
  configMap?: ConfigMap;
}

export async function loadObjects(source: MigrateCheckSource): Promise<LoadedObjects> {
  const ref = source.nginxConfigmap === undefined ? undefined : parseNamespacedName(source.nginxConfigmap, '--nginx-configmap');
  if (source.manifests !== undefined) {
    if (source.kubeconfig !== undefined) throw new Error('give --manifests or --kubeconfig, not both');
    const store = new ObjectStore();
    const dirSource = new ManifestDirectorySource(source.manifests, store, silent, { watch: false, now: () => new Date(0) });
    await dirSource.start();
    const state = store.state();
    const configMap = ref === undefined ? undefined : findNginxConfigMap(state, ref);
    return { ingresses: [...state.ingresses], ...(configMap === undefined ? {} : { configMap }) };
  }
  const kc = loadKubeConfig({ ...(source.kubeconfig !== undefined ? { kubeconfig: source.kubeconfig } : {}), ...(source.context !== undefined ? { context: source.context } : {}) });
  const list = await kc.makeApiClient(NetworkingV1Api).listIngressForAllNamespaces();
  const ingresses = list.items.map((item) => ({ ...item, kind: 'Ingress' }) as unknown as Ingress);
  if (ref === undefined) return { ingresses };
  try {
    const found = await kc.makeApiClient(CoreV1Api).readNamespacedConfigMap(ref);
    return { ingresses, configMap: { ...found, kind: 'ConfigMap' } as unknown as ConfigMap };
  } catch (err: unknown) {
    if ((err as { code?: number }).code === 404) return { ingresses };
    throw err;
  }
}

export async function loadIngresses(source: MigrateCheckSource): Promise<Ingress[]> {
  return (await loadObjects(source)).ingresses;
}

/** The report as text or JSON, and the exit code: 1 when something would change, else 0. */
export async function runMigrateCheck(source: MigrateCheckSource, format: 'text' | 'json'): Promise<{ output: string; exitCode: number; report: MigrationReport }> {
  const { ingresses, configMap } = await loadObjects(source);
  const ref = source.nginxConfigmap === undefined ? undefined : parseNamespacedName(source.nginxConfigmap, '--nginx-configmap');
  const report = migrationReport(ingresses, ref === undefined ? undefined : configMapReport(ref, configMap));
  const output = format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : formatMigrationReport(report);
  return { output, exitCode: report.summary.changes ? 1 : 0, report };
}
