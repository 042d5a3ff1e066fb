// Parses the YAML/JSON text of one manifest file into objects: multi-document files, `List` kinds, and
// per-document errors that name the file and document instead of failing the whole file.
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../translate/shared/kube-objects.js';
import { isSupportedKind, normalizeObject } from './normalize.js';

export interface ManifestProblem {
  file: string;
  /** 0-based index of the YAML document in the file. */
  document: number;
  message: string;
}

export interface ParsedManifest {
  objects: KubeObject[];
  /** The document each object came from (parallel to `objects`). */
  documents: number[];
  problems: ManifestProblem[];
  /** Count of documents of kinds we do not read (they are skipped). */
  ignored: number;
}

export function parseManifest(file: string, text: string): ParsedManifest {
  const result: ParsedManifest = { objects: [], documents: [], problems: [], ignored: 0 };
  // A JSON file is one document: JSON.parse reads it 10-20x faster than the YAML parser (minutes for the 155,000
  // objects of 50,000 Ingresses). Duplicate keys then keep the last value (as JSON.parse and kubectl do) instead
  // of being a YAML error. What JSON.parse refuses (a .json file holding YAML) goes to the YAML parser as before.
  if (/\.json$/i.test(file)) {
    const value = parseJson(text);
    if (value !== undefined) {
      addDocument(result, file, 0, value);
      return result;
    }
  }
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      result.problems.push({ file, document: index, message: `YAML error: ${doc.errors[0]!.message}` });
      return;
    }
    let value: unknown;
    try {
      // Resolving aliases can throw (an undefined alias, an alias bomb): that spoils this document only.
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err: unknown) {
      result.problems.push({ file, document: index, message: `YAML error: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    addDocument(result, file, index, value);
  });
  return result;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The objects of one document (a single object, or the items of a List) into `result`. */
function addDocument(result: ParsedManifest, file: string, index: number, value: unknown): void {
  if (value === null || value === undefined) return; // empty document
  for (const item of listItems(value) ?? [value]) {
    const n = normalizeObject(item);
    if (n.ok) {
      result.objects.push(n.object);
      result.documents.push(index);
    } else if (n.ignored) result.ignored += 1;
    else result.problems.push({ file, document: index, message: n.error });
  }
}

/**
 * The items of a `List` (as `kubectl get -o yaml` writes) or of a typed list such as `ServiceList` (as the API
 * returns, where items carry no kind or apiVersion: they are those of the list), or undefined for a single object.
 */
function listItems(value: unknown): unknown[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const kind = v['kind'];
  const items = v['items'];
  if (typeof kind !== 'string' || !kind.endsWith('List') || !Array.isArray(items)) return undefined;
  const itemKind = kind.slice(0, -'List'.length);
  if (!isSupportedKind(itemKind)) return items;
  return items.map((item: unknown) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? { kind: itemKind, ...(v['apiVersion'] !== undefined ? { apiVersion: v['apiVersion'] } : {}), ...item }
      : item,
  );
}
