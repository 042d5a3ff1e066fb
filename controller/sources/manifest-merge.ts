// Which objects the store gets from a manifest directory: every file's objects, the first definition in path
// order winning. A read after an edit usually finds one file changed among many: then only that file's objects
// are compared with what it said before, instead of merging and handing the store every object of every file
// (at 50,000 Ingresses, 155,000 objects: hundreds of milliseconds per edit). Whenever an object is defined in two
// files, or an edit moves an object between files, the whole directory is merged as before.
import type { KubeObject } from '../translate/shared/kube-objects.js';
import type { ManifestProblem } from './manifest-parser.js';

/** One file's objects (already stamped), in path order: `file` is the path the problems name. */
export interface ManifestFileObjects {
  file: string;
  objects: readonly KubeObject[];
  /** Document index of each object (parallel to `objects`). */
  documents: readonly number[];
}

export type MergeOutcome =
  /** Every object of the directory (a store replace), and the problems of objects defined twice. */
  | { kind: 'all'; objects: KubeObject[]; duplicates: ManifestProblem[] }
  /** Only what the changed files changed: objects to upsert, objects no file defines any more. */
  | { kind: 'changed'; upserts: KubeObject[]; deletes: KubeObject[] };

/** `Ingress ns/name` (cluster-scoped: `IngressClass name`), as the duplicate problems name it. */
export function objectId(obj: KubeObject): string {
  return `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
}

export class ManifestMerge {
  /** What the last merge saw, when it found no object defined twice (else the next merge is a whole one). */
  #last: { objectsByFile: Map<string, readonly KubeObject[]>; owner: Map<string, string> } | undefined;
  readonly #ids = new WeakMap<readonly KubeObject[], string[]>();

  merge(files: readonly ManifestFileObjects[]): MergeOutcome {
    return this.#changed(files) ?? this.#all(files);
  }

  #idsOf(objects: readonly KubeObject[]): string[] {
    let ids = this.#ids.get(objects);
    if (ids === undefined) {
      ids = objects.map(objectId);
      this.#ids.set(objects, ids);
    }
    return ids;
  }

  #all(files: readonly ManifestFileObjects[]): MergeOutcome {
    const objects: KubeObject[] = [];
    const duplicates: ManifestProblem[] = [];
    /** Where each object was first defined: files come in path order, and the first definition wins. */
    const owner = new Map<string, string>();
    for (const { file, objects: fileObjects, documents } of files) {
      const ids = this.#idsOf(fileObjects);
      fileObjects.forEach((obj, i) => {
        const id = ids[i]!;
        const first = owner.get(id);
        if (first !== undefined) {
          duplicates.push({ file, document: documents[i] ?? 0, message: `${id} is also defined in ${first}; that definition is used` });
          return;
        }
        owner.set(id, file);
        objects.push(obj);
      });
    }
    this.#last = duplicates.length > 0 ? undefined : { objectsByFile: new Map(files.map((f) => [f.file, f.objects])), owner };
    return { kind: 'all', objects, duplicates };
  }

  /** The changed files' difference, or undefined when a whole merge is needed. */
  #changed(files: readonly ManifestFileObjects[]): MergeOutcome | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    const now = new Map(files.map((f) => [f.file, f.objects]));
    const changedFiles = [...new Set([...now.keys(), ...last.objectsByFile.keys()])].filter((file) => now.get(file) !== last.objectsByFile.get(file));
    const upserts: KubeObject[] = [];
    const deletes: KubeObject[] = [];
    // Every id the changed files define now; one claimed by an unchanged file, or by two changed files, needs the
    // order of the files (a whole merge).
    const claimed = new Set<string>();
    for (const file of changedFiles) {
      const objects = now.get(file) ?? [];
      for (const id of this.#idsOf(objects)) {
        const definedIn = last.owner.get(id);
        if (claimed.has(id) || (definedIn !== undefined && definedIn !== file)) return undefined;
        claimed.add(id);
      }
    }
    // Checked: from here the last merge's owners are updated in place (a copy would cost O(all objects) per edit).
    const owner = last.owner;
    for (const file of changedFiles) {
      const before = last.objectsByFile.get(file) ?? [];
      const idsBefore = this.#idsOf(before);
      const objects = now.get(file) ?? [];
      const ids = this.#idsOf(objects);
      before.forEach((obj, i) => {
        const id = idsBefore[i]!;
        if (claimed.has(id)) return;
        owner.delete(id);
        deletes.push(obj);
      });
      objects.forEach((obj, i) => {
        owner.set(ids[i]!, file);
        upserts.push(obj);
      });
    }
    last.objectsByFile = now;
    return { kind: 'changed', upserts, deletes };
  }
}
