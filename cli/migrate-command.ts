// `envoy-ingress migrate`: reads a manifest directory, writes the Gateway API objects that replace its Ingresses
// (controller/translate/migrate/) next to a copy of every other object, unchanged, and the migration report
// (OUT/migration-report.json and a printed table). `run --manifests OUT` then serves the migrated configuration.
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { ManifestDirectorySource } from '../controller/sources/manifest-source.js';
import { ObjectStore } from '../controller/store.js';
import { parseNamespacedName } from './controller-options.js';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { refKey, type ClusterState, type ConfigMap, type Ingress, type IngressClass, type ObjectRef, type Secret, type Service } from '../controller/translate/shared/kube-objects.js';
import { loadKubeConfig } from './kube-controller.js';
import { formatGatewayMigrationReport, type GatewayMigrationReport } from '../controller/translate/migrate/gateway-migration-report.js';
import { defaultMigrateOptions, migrateIngresses, type MigrateOptions } from '../controller/translate/migrate/migrate-ingresses.js';

/** The file of OUT the Gateway API objects go to, and the report's. */
export const migratedObjectsFile = 'gateway-api-migrated.yaml';
export const migrationReportFile = 'migration-report.json';

const manifestFile = /\.(ya?ml|json)$/i;
const silent = { info: () => undefined, warn: () => undefined };

async function manifestFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await manifestFiles(full)));
    else if ((e.isFile() || e.isSymbolicLink()) && manifestFile.test(e.name)) out.push(full);
  }
  return out.sort();
}

function documentRef(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };
  if (v.kind !== 'Ingress' || typeof v.metadata?.name !== 'string') return undefined;
  return refKey({ kind: 'Ingress', namespace: typeof v.metadata.namespace === 'string' ? v.metadata.namespace : 'default', name: v.metadata.name });
}

/**
 * Copies every manifest file of `dir` into `out` (same relative path), without the documents of `converted`
 * Ingresses: a file without any is copied byte for byte. Returns how many documents were copied.
 */
async function copyOthers(dir: string, out: string, converted: readonly ObjectRef[]): Promise<number> {
  const drop = new Set(converted.map(refKey));
  let copied = 0;
  for (const file of await manifestFiles(dir)) {
    const text = await readFile(file, 'utf8');
    const target = path.join(out, path.relative(dir, file));
    await mkdir(path.dirname(target), { recursive: true });
    if (/\.json$/i.test(file)) {
      // A JSON manifest is one object (or a List): copied whole unless it is a converted Ingress.
      let value: unknown;
      try {
        value = JSON.parse(text) as unknown;
      } catch {
        value = undefined;
      }
      const ref = documentRef(value);
      if (ref !== undefined && drop.has(ref)) continue;
      await writeFile(target, text);
      copied += 1;
      continue;
    }
    const documents = parseAllDocuments(text);
    const list = Array.isArray(documents) ? documents : [documents];
    const kept = list.filter((doc) => {
      const ref = documentRef(doc.toJS());
      return ref === undefined || !drop.has(ref);
    });
    const nonEmpty = kept.filter((doc) => doc.contents !== null);
    copied += nonEmpty.length;
    if (kept.length === list.length) await writeFile(target, text);
    else if (nonEmpty.length > 0) await writeFile(target, nonEmpty.map((doc) => doc.toString()).join('---\n'));
  }
  return copied;
}

export interface MigrateFlags {
  /** Read the objects of this manifest directory (and copy the others into OUT)... */
  manifests?: string;
  /** ...or of a live cluster, read-only (list and get only; nothing is copied: the objects stay where they are). */
  fromCluster?: { kubeconfig?: string; context?: string };
  out: string;
  gatewayClass?: string;
  gatewayNamespace?: string;
  httpPort?: number;
  httpsPort?: number;
  /** The port https redirects name (default: httpsPort), as run's --https-redirect-port. */
  httpsRedirectPort?: number;
  classes: MigrateOptions['classes'];
  /** NAMESPACE/NAME of the ingress-nginx ConfigMap the Ingresses are served with (run's --nginx-configmap). */
  nginxConfigmap?: string;
  /** TLS hosts' HTTPS listeners in ListenerSets of their certificates' namespaces (MigrateOptions.listenerSets). */
  listenerSets?: boolean;
}

/** What migrate reads from a cluster: list and get calls only. */
async function readCluster(source: { kubeconfig?: string; context?: string }, configMapRef: { namespace: string; name: string } | undefined): Promise<Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets' | 'configMaps'>> {
  const kc = loadKubeConfig({ ...(source.kubeconfig !== undefined ? { kubeconfig: source.kubeconfig } : {}), ...(source.context !== undefined ? { context: source.context } : {}) });
  const networking = kc.makeApiClient(NetworkingV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const withKind = <T>(items: readonly object[], kind: string): T[] => items.map((item) => ({ ...item, kind }) as unknown as T);
  const [ingresses, ingressClasses, services, secrets] = await Promise.all([
    networking.listIngressForAllNamespaces(),
    networking.listIngressClass(),
    core.listServiceForAllNamespaces(),
    // Only TLS Secrets: the Gateway's certificateRefs are checked as the Ingress translator checks them.
    core.listSecretForAllNamespaces({ fieldSelector: 'type=kubernetes.io/tls' }),
  ]);
  let configMaps: ConfigMap[] = [];
  if (configMapRef !== undefined) {
    try {
      configMaps = withKind<ConfigMap>([await core.readNamespacedConfigMap(configMapRef)], 'ConfigMap');
    } catch (err: unknown) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
  return {
    ingresses: withKind<Ingress>(ingresses.items, 'Ingress'),
    ingressClasses: withKind<IngressClass>(ingressClasses.items, 'IngressClass'),
    services: withKind<Service>(services.items, 'Service'),
    secrets: withKind<Secret>(secrets.items, 'Secret'),
    configMaps,
  };
}

export async function runMigrate(flags: MigrateFlags): Promise<{ report: GatewayMigrationReport; output: string }> {
  if ((flags.manifests === undefined) === (flags.fromCluster === undefined)) throw new Error('give --manifests DIR or --from-cluster, one of them');
  const ref = flags.nginxConfigmap === undefined ? undefined : parseNamespacedName(flags.nginxConfigmap, '--nginx-configmap');
  let state: Pick<ClusterState, 'ingresses' | 'ingressClasses' | 'services' | 'secrets' | 'configMaps'>;
  if (flags.manifests !== undefined) {
    const store = new ObjectStore();
    const source = new ManifestDirectorySource(flags.manifests, store, silent, { watch: false, now: () => new Date(0) });
    await source.start();
    state = store.state();
  } else {
    state = await readCluster(flags.fromCluster ?? {}, ref);
  }
  const result = migrateIngresses(state, {
    gatewayClassName: flags.gatewayClass ?? defaultMigrateOptions.gatewayClassName,
    gatewayNamespace: flags.gatewayNamespace ?? defaultMigrateOptions.gatewayNamespace,
    httpPort: flags.httpPort ?? defaultMigrateOptions.httpPort,
    httpsPort: flags.httpsPort ?? defaultMigrateOptions.httpsPort,
    ...(flags.httpsRedirectPort === undefined ? {} : { httpsRedirectPort: flags.httpsRedirectPort }),
    ...(flags.listenerSets === true ? { listenerSets: true } : {}),
    classes: flags.classes,
    ...(ref === undefined ? {} : { nginxConfigMap: { ref, configMap: state.configMaps?.find((c) => (c.metadata.namespace ?? 'default') === ref.namespace && c.metadata.name === ref.name) } }),
  });
  await mkdir(flags.out, { recursive: true });
  const copied = flags.manifests === undefined ? 0 : await copyOthers(flags.manifests, flags.out, result.converted);
  const report: GatewayMigrationReport = { ...result.report, summary: { ...result.report.summary, copied } };
  await writeFile(path.join(flags.out, migratedObjectsFile), result.objects.map((o) => stringify(o)).join('---\n'));
  await writeFile(path.join(flags.out, migrationReportFile), `${JSON.stringify(report, null, 2)}\n`);
  return { report, output: formatGatewayMigrationReport(report) };
}
