// Turns an object as read from YAML or the API (client classes, Date timestamps, stringData) into the plain
// shape the translator reads. Pure.
import { defaultNamespace, isKindName, kindInfo } from '../translate/shared/kinds.js';
import type { KubeKind, KubeObject } from '../translate/shared/kube-objects.js';

export function isSupportedKind(kind: unknown): kind is KubeKind {
  return isKindName(kind);
}

export type NormalizeResult =
  | { ok: true; object: KubeObject }
  | { ok: false; ignored: true } // a kind we do not read (Deployment, Pod, ...)
  | { ok: false; ignored: false; error: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Plain JSON copy: class instances become plain objects, undefined is dropped, and Dates (client-node parses
 * timestamps) become RFC 3339 strings as the API server writes them: whole seconds carry no fraction, so an
 * object reads the same whether it came from the API or from a manifest.
 */
function toPlain(value: unknown): unknown {
  // The replacer sees Date#toJSON's output; the Date itself is still on the holder (`this`).
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const original = this[key];
      if (original instanceof Date && !Number.isNaN(original.getTime())) return original.toISOString().replace(/\.000Z$/, 'Z');
      return v;
    }),
  );
}

/**
 * `info`: how to read a kind the kind table does not have (an optional kind a test watches); without it, such a
 * kind is ignored.
 */
export function normalizeObject(raw: unknown, info?: { apiVersions: readonly string[]; namespaced: boolean }): NormalizeResult {
  if (!isRecord(raw)) return { ok: false, ignored: false, error: 'document is not an object' };
  const kind = raw['kind'];
  if (info === undefined && !isSupportedKind(kind)) return { ok: false, ignored: true };
  const apiVersion = raw['apiVersion'];
  const spec = info ?? kindInfo(kind as KubeKind);
  if (apiVersion !== undefined && !spec.apiVersions.includes(String(apiVersion))) {
    return { ok: false, ignored: false, error: `${kind} apiVersion ${String(apiVersion)} is not supported (use ${spec.apiVersions.join(' or ')})` };
  }
  const obj = toPlain(raw) as Record<string, unknown>;
  const metadata = obj['metadata'];
  if (!isRecord(metadata) || typeof metadata['name'] !== 'string' || metadata['name'] === '') {
    return { ok: false, ignored: false, error: `${kind} has no metadata.name` };
  }
  if (spec.namespaced) {
    if (typeof metadata['namespace'] !== 'string' || metadata['namespace'] === '') metadata['namespace'] = defaultNamespace;
  } else {
    delete metadata['namespace'];
  }
  delete metadata['managedFields'];
  if (kind === 'Namespace') {
    // Labels only: a Namespace's status (phase) or annotations changing is no change to what is read.
    const kept: Record<string, unknown> = { name: metadata['name'] };
    for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'labels']) if (metadata[field] !== undefined) kept[field] = metadata[field];
    return { ok: true, object: { ...(obj['apiVersion'] === undefined ? {} : { apiVersion: obj['apiVersion'] }), kind: 'Namespace', metadata: kept } as unknown as KubeObject };
  }
  if (kind === 'Secret') {
    const data: Record<string, string> = isRecord(obj['data']) ? (obj['data'] as Record<string, string>) : {};
    const stringData = obj['stringData'];
    if (isRecord(stringData)) {
      for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    }
    delete obj['stringData'];
    obj['data'] = data;
  }
  return { ok: true, object: obj as unknown as KubeObject };
}
