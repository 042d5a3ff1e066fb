// Multi-document YAML of Kubernetes objects -> ClusterState, for golden tests and examples. Pure: text in,
// data out. Secret `stringData` is folded into base64 `data` the way the API server does it.
import { parseAllDocuments } from 'yaml';
import { isKindName, kindNames, kindTable } from './kinds.js';
import type { ClusterState, KubeObject, Secret } from './kube-objects.js';
import type { TranslateOptions } from './options.js';

export interface ParsedClusterState {
  state: ClusterState;
  /** Fields of an optional `kind: TranslateOptions` document, for cases that need non-default options. */
  options: Partial<TranslateOptions>;
}

function foldStringData(doc: Record<string, unknown>): Secret {
  const { stringData, ...rest } = doc as Record<string, unknown> & { stringData?: Record<string, string> };
  const secret = rest as unknown as Secret;
  if (stringData === undefined) return secret;
  const data: Record<string, string> = { ...(secret.data ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return { ...secret, data };
}

export function clusterStateFromYaml(text: string): ParsedClusterState {
  // Every required kind's list, empty; an optional kind's only once an object of it is read (absent: none).
  const lists: Record<string, KubeObject[]> = {};
  for (const kind of kindNames) if (!kindTable[kind].optional) lists[kindTable[kind].state] = [];
  let options: Partial<TranslateOptions> = {};
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors[0]?.message ?? ''}`);
    const doc: unknown = document.toJS();
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('every YAML document must be an object');
    const record = doc as Record<string, unknown>;
    const kind = record['kind'];
    if (kind === 'TranslateOptions') {
      const { kind: _kind, ...fields } = record;
      options = { ...options, ...(fields as Partial<TranslateOptions>) };
    } else if (isKindName(kind)) {
      const object = kind === 'Secret' ? foldStringData(record) : (record as unknown as KubeObject);
      (lists[kindTable[kind].state] ??= []).push(object);
    } else {
      throw new Error(`unsupported kind ${JSON.stringify(kind)}`);
    }
  }
  return { state: lists as unknown as ClusterState, options };
}
