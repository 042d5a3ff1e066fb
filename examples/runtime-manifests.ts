// The demo's view of its manifest directory: which pods the EndpointSlices promise (so the demo can start an
// echo server for each), which TLS Secrets the Ingresses need but the directory lacks (so the demo can generate
// them), and the runtime copy the controller watches, with the ports the echo servers and Envoy really got.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Document, parseAllDocuments, stringify } from 'yaml';

/**
 * The Ingress HTTP port the committed manifests assume (the default of DEMO_HTTP_PORT): a Gateway listener on it
 * shares the Ingress listener, so the demo moves such listeners along when it serves HTTP on another port.
 */
export const manifestHttpPort = 8080;

/** Service annotation (demo only): the status its echo servers answer with. */
export const echoStatusAnnotation = 'examples.envoy-ingress.io/echo-status';

export interface ManifestFile {
  name: string;
  documents: Document[];
  /** Set when a document was changed: the file is then re-serialized instead of copied byte for byte. */
  changed: boolean;
  text: string;
}

/** One port of one EndpointSlice: every endpoint address of the slice listens on it. */
export interface BackendSlot {
  namespace: string;
  service: string;
  /** Status the echo servers answer with (200 unless the Service carries the echo-status annotation). */
  status: number;
  port: number;
  pods: { name: string; address: string }[];
  /** Writes another port into the slice (in memory; `writeRuntimeManifests` saves it). */
  setPort(port: number): void;
}

/** A TLS Secret that Ingresses name but no manifest defines. */
export interface MissingTlsSecret {
  namespace: string;
  name: string;
  hosts: string[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const stringOr = (value: unknown, fallback: string): string => (typeof value === 'string' ? value : fallback);

export async function readManifestDir(dir: string): Promise<ManifestFile[]> {
  const names = (await readdir(dir)).filter((name) => /\.ya?ml$/i.test(name)).sort();
  const files: ManifestFile[] = [];
  for (const name of names) {
    const text = await readFile(path.join(dir, name), 'utf8');
    const documents = parseAllDocuments(text);
    if (!Array.isArray(documents)) throw new Error(`${name}: not a YAML document stream`);
    for (const doc of documents) {
      if (doc.errors.length > 0) throw new Error(`${name}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
    }
    files.push({ name, documents, changed: false, text });
  }
  return files;
}

interface Located {
  file: ManifestFile;
  document: Document;
  object: Json;
}

function objectsOf(files: readonly ManifestFile[], kind: string): Located[] {
  const found: Located[] = [];
  for (const file of files) {
    for (const document of file.documents) {
      const object: unknown = document.toJS();
      if (isObject(object) && object['kind'] === kind) found.push({ file, document, object });
    }
  }
  return found;
}

function metadataOf(object: Json): { name: string; namespace: string; labels: Json; annotations: Json } {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  return {
    name: stringOr(metadata['name'], ''),
    namespace: stringOr(metadata['namespace'], 'default'),
    labels: isObject(metadata['labels']) ? metadata['labels'] : {},
    annotations: isObject(metadata['annotations']) ? metadata['annotations'] : {},
  };
}

export function backendSlots(files: readonly ManifestFile[]): BackendSlot[] {
  const statusByService = new Map<string, number>();
  for (const { object } of objectsOf(files, 'Service')) {
    const meta = metadataOf(object);
    const status = Number(meta.annotations[echoStatusAnnotation] ?? 200);
    statusByService.set(`${meta.namespace}/${meta.name}`, Number.isInteger(status) ? status : 200);
  }
  const slots: BackendSlot[] = [];
  for (const { file, document, object } of objectsOf(files, 'EndpointSlice')) {
    const meta = metadataOf(object);
    const service = stringOr(meta.labels['kubernetes.io/service-name'], '');
    if (service === '') continue;
    const pods = arrayOf(object['endpoints']).flatMap((endpoint, i) => {
      if (!isObject(endpoint)) return [];
      const targetRef = isObject(endpoint['targetRef']) ? endpoint['targetRef'] : {};
      const name = stringOr(targetRef['name'], `${meta.name}-${i}`);
      return arrayOf(endpoint['addresses']).map((address) => ({ name, address: String(address) }));
    });
    arrayOf(object['ports']).forEach((slicePort, portIndex) => {
      if (!isObject(slicePort) || typeof slicePort['port'] !== 'number') return;
      slots.push({
        namespace: meta.namespace,
        service,
        status: statusByService.get(`${meta.namespace}/${service}`) ?? 200,
        port: slicePort['port'],
        pods,
        setPort(port: number) {
          document.setIn(['ports', portIndex, 'port'], port);
          file.changed = true;
          this.port = port;
        },
      });
    });
  }
  return slots;
}

/**
 * Moves every Gateway listener on port `from` to port `to` (in memory; `writeRuntimeManifests` saves it) and
 * returns the listeners moved, as `namespace/gateway/listener`.
 */
export function moveGatewayListeners(files: readonly ManifestFile[], from: number, to: number): string[] {
  if (from === to) return [];
  const moved: string[] = [];
  for (const { file, document, object } of objectsOf(files, 'Gateway')) {
    const meta = metadataOf(object);
    const spec = isObject(object['spec']) ? object['spec'] : {};
    arrayOf(spec['listeners']).forEach((listener, i) => {
      if (!isObject(listener) || listener['port'] !== from) return;
      document.setIn(['spec', 'listeners', i, 'port'], to);
      file.changed = true;
      moved.push(`${meta.namespace}/${meta.name}/${stringOr(listener['name'], String(i))}`);
    });
  }
  return moved;
}

export function missingTlsSecrets(files: readonly ManifestFile[]): MissingTlsSecret[] {
  const defined = new Set(objectsOf(files, 'Secret').map(({ object }) => {
    const meta = metadataOf(object);
    return `${meta.namespace}/${meta.name}`;
  }));
  const missing = new Map<string, MissingTlsSecret>();
  for (const { object } of objectsOf(files, 'Ingress')) {
    const { namespace } = metadataOf(object);
    const spec = isObject(object['spec']) ? object['spec'] : {};
    for (const tls of arrayOf(spec['tls'])) {
      if (!isObject(tls) || typeof tls['secretName'] !== 'string') continue;
      const key = `${namespace}/${tls['secretName']}`;
      if (defined.has(key)) continue;
      const entry = missing.get(key) ?? { namespace, name: tls['secretName'], hosts: [] };
      for (const host of arrayOf(tls['hosts'])) {
        if (typeof host === 'string' && !entry.hosts.includes(host)) entry.hosts.push(host);
      }
      missing.set(key, entry);
    }
  }
  return [...missing.values()];
}

/** A kubernetes.io/tls Secret manifest. */
export function tlsSecretYaml(secret: MissingTlsSecret, certPem: string, keyPem: string): string {
  const header = '# Generated by the demo at start; the private key is never committed.\n';
  return header + stringify({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret.name, namespace: secret.namespace },
    type: 'kubernetes.io/tls',
    stringData: { 'tls.crt': certPem, 'tls.key': keyPem },
  });
}

/** Writes the runtime copy: unchanged files byte for byte, changed ones re-serialized (comments kept). */
export async function writeRuntimeManifests(
  files: readonly ManifestFile[],
  dir: string,
  extra: readonly { name: string; text: string }[],
): Promise<void> {
  for (const file of files) {
    const text = file.changed ? file.documents.map((doc) => doc.toString()).join('') : file.text;
    await writeFile(path.join(dir, file.name), text);
  }
  for (const { name, text } of extra) await writeFile(path.join(dir, name), text, { mode: 0o600 });
}
