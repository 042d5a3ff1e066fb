// Multi-document YAML of Kubernetes objects -> ClusterState, for golden tests and examples. Pure: text in,
// data out. Secret `stringData` is folded into base64 `data` the way the API server does it.
import { parseAllDocuments } from 'yaml';
import type { ClusterState, KubeObject, Secret } from './kube-objects.js';
import type { TranslateOptions } from './options.js';

export interface ParsedClusterState {
  state: ClusterState;
  /** Fields of an optional `kind: TranslateOptions` document, for cases that need non-default options. */
  options: Partial<TranslateOptions>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };

function foldStringData(doc: Record<string, unknown>): Secret {
  const { stringData, ...rest } = doc as Record<string, unknown> & { stringData?: Record<string, string> };
  const secret = rest as unknown as Secret;
  if (stringData === undefined) return secret;
  const data: Record<string, string> = { ...(secret.data ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return { ...secret, data };
}

export function clusterStateFromYaml(text: string): ParsedClusterState {
  const state: Mutable<ClusterState> = {
    ingresses: [],
    ingressClasses: [],
    services: [],
    endpointSlices: [],
    endpoints: [],
    secrets: [],
  };
  let options: Partial<TranslateOptions> = {};
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors[0]?.message ?? ''}`);
    const doc: unknown = document.toJS();
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error('every YAML document must be an object');
    const record = doc as Record<string, unknown>;
    const object = record as unknown as KubeObject | { kind: 'TranslateOptions' };
    switch (object.kind) {
      case 'Ingress':
        state.ingresses.push(object);
        break;
      case 'IngressClass':
        state.ingressClasses.push(object);
        break;
      case 'Service':
        state.services.push(object);
        break;
      case 'EndpointSlice':
        state.endpointSlices.push(object);
        break;
      case 'Endpoints':
        state.endpoints.push(object);
        break;
      case 'Secret':
        state.secrets.push(foldStringData(record));
        break;
      case 'ConfigMap':
        state.configMaps = [...(state.configMaps ?? []), object];
        break;
      case 'TranslateOptions': {
        const { kind: _kind, ...fields } = record;
        options = { ...options, ...(fields as Partial<TranslateOptions>) };
        break;
      }
      default:
        throw new Error(`unsupported kind ${JSON.stringify(record['kind'])}`);
    }
  }
  return { state, options };
}
