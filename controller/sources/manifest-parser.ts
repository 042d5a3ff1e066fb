// Parses the YAML/JSON text of one manifest file into objects: multi-document files, `List` kinds, and
// per-document errors that name the file and document instead of failing the whole file.
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../translate/kube-objects.js';
import { normalizeObject } from './normalize.js';

export interface ManifestProblem {
  file: string;
  document: number;
  message: string;
}

export interface ParsedManifest {
  objects: KubeObject[];
  problems: ManifestProblem[];
  /** Count of documents of kinds we do not read (they are skipped). */
  ignored: number;
}

export function parseManifest(file: string, text: string): ParsedManifest {
  const result: ParsedManifest = { objects: [], problems: [], ignored: 0 };
  const docs = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      result.problems.push({ file, document: index, message: `YAML error: ${doc.errors[0]!.message}` });
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return; // empty document
    const items = isList(value) ? (value as { items: unknown[] }).items : [value];
    for (const item of items) {
      const n = normalizeObject(item);
      if (n.ok) result.objects.push(n.object);
      else if (n.ignored) result.ignored += 1;
      else result.problems.push({ file, document: index, message: n.error });
    }
  });
  return result;
}

function isList(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['kind'] === 'string' && (v['kind'] === 'List' || v['kind'].endsWith('List')) && Array.isArray(v['items']);
}
