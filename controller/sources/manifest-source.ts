// The standalone source: every YAML/JSON file under a directory, re-read when the directory changes.
// A file that stops parsing keeps its last good objects (an editor's half-written save must not drop routes).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStore } from '../store.js';
import type { KubeKind, KubeObject } from '../translate/kube-objects.js';
import { parseManifest, type ManifestProblem } from './manifest-parser.js';

export interface SourceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const allKinds: readonly KubeKind[] = ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Endpoints', 'Secret'];
const manifestFile = /\.(ya?ml|json)$/i;

interface FileEntry {
  mtimeMs: number;
  size: number;
  objects: KubeObject[];
  /** Document index of each object (parallel to `objects`). */
  documents: number[];
  /** Problems found the last time the file was read; they last as long as the file is unchanged. */
  problems: ManifestProblem[];
}

function problemKey(p: ManifestProblem): string {
  return `${p.file}|${p.document}|${p.message}`;
}

export class ManifestDirectorySource {
  readonly #files = new Map<string, FileEntry>();
  /** First time an object without creationTimestamp was seen, so "oldest wins" stays stable across reloads. */
  readonly #firstSeen = new Map<string, string>();
  #watcher: fs.FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** When a file that had objects was first read empty. */
  readonly #emptySince = new Map<string, number>();
  #recheckTimer: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #synced = false;
  #stopped = false;
  /** Problems of the current directory contents (every file's, not only those read last). */
  problems: ManifestProblem[] = [];

  constructor(
    readonly dir: string,
    private readonly store: ObjectStore,
    private readonly log: SourceLog,
    private readonly options: { debounceMs?: number; watch?: boolean; now?: () => Date; emptyRecheckMs?: number } = {},
  ) {}

  get synced(): boolean {
    return this.#synced;
  }

  async start(): Promise<void> {
    await this.reload();
    if (this.options.watch === false) return;
    this.#watcher = fs.watch(this.dir, { recursive: true }, () => this.#schedule());
    this.#watcher.on('error', (err) => this.log.warn({ err, dir: this.dir }, 'manifest directory watch failed'));
  }

  stop(): void {
    this.#stopped = true;
    this.#watcher?.close();
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#recheckTimer) clearTimeout(this.#recheckTimer);
  }

  #recheck(ms: number): void {
    if (this.#stopped || this.#recheckTimer) return;
    this.#recheckTimer = setTimeout(() => {
      this.#recheckTimer = undefined;
      this.reload().catch((err: unknown) => this.log.warn({ err, dir: this.dir }, 'manifest directory re-read failed'));
    }, ms);
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      // A failed re-read (directory gone, permissions) keeps the last state; it must not crash the process.
      this.reload().catch((err: unknown) => this.log.warn({ err, dir: this.dir }, 'manifest directory re-read failed'));
    }, this.options.debounceMs ?? 25);
  }

  /** Re-read the directory (coalesced: a change during a read triggers one more read). */
  reload(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      try {
        do {
          this.#again = false;
          await this.#readAll();
        } while (this.#again);
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  async #listFiles(dir: string): Promise<string[]> {
    const out: string[] = [];
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) out.push(...(await this.#listFiles(full)));
      else if ((e.isFile() || e.isSymbolicLink()) && manifestFile.test(e.name)) out.push(full);
    }
    return out.sort();
  }

  async #readAll(): Promise<void> {
    const files = await this.#listFiles(this.dir);
    const present = new Set(files);
    for (const file of [...this.#files.keys()]) if (!present.has(file)) this.#files.delete(file);
    for (const file of files) {
      let stat: fs.Stats;
      try {
        stat = await fsp.stat(file);
      } catch {
        this.#files.delete(file); // removed while listing
        continue;
      }
      const known = this.#files.get(file);
      if (known && known.mtimeMs === stat.mtimeMs && known.size === stat.size) continue;
      const text = await fsp.readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      if (text.trim() === '' && known && known.objects.length > 0) {
        // An editor that saves in place truncates first and writes after: a file that had objects and reads
        // empty is believed only if it still reads empty a while later.
        const wait = this.options.emptyRecheckMs ?? 250;
        const since = this.#emptySince.get(file) ?? performance.now();
        this.#emptySince.set(file, since);
        const left = since + wait - performance.now();
        if (left > 0) {
          this.#recheck(left);
          continue;
        }
      }
      this.#emptySince.delete(file);
      const parsed = parseManifest(path.relative(this.dir, file), text);
      const entry = { mtimeMs: stat.mtimeMs, size: stat.size, problems: parsed.problems };
      // A file that stopped parsing keeps serving what it said before (remembering the new stat, so it is not
      // re-parsed in a loop); a new file serves the documents that did parse.
      if (parsed.problems.length > 0 && known) this.#files.set(file, { ...known, ...entry });
      else this.#files.set(file, { ...entry, objects: parsed.objects, documents: parsed.documents });
    }
    if (this.#stopped) return;

    const problems: ManifestProblem[] = [];
    const objects: KubeObject[] = [];
    /** Where each object was first defined: files are read in sorted order, and the first definition wins. */
    const definedIn = new Map<string, string>();
    for (const [file, entry] of [...this.#files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      problems.push(...entry.problems);
      const rel = path.relative(this.dir, file);
      entry.objects.forEach((obj, i) => {
        const id = `${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
        const first = definedIn.get(id);
        if (first !== undefined) {
          problems.push({ file: rel, document: entry.documents[i] ?? 0, message: `${id} is also defined in ${first}; that definition is used` });
          return;
        }
        definedIn.set(id, rel);
        objects.push(this.#withTimestamp(obj));
      });
    }
    const before = new Set(this.problems.map(problemKey));
    for (const p of problems) {
      if (!before.has(problemKey(p))) this.log.warn({ file: p.file, document: p.document, reason: 'InvalidManifest' }, p.message);
    }
    this.problems = problems;
    this.store.replace(allKinds, objects);
    if (!this.#synced) {
      this.#synced = true;
      this.log.info({ dir: this.dir, files: files.length, objects: objects.length }, 'manifests loaded');
    }
  }

  #withTimestamp(obj: KubeObject): KubeObject {
    if (obj.metadata.creationTimestamp) return obj;
    const key = `${obj.kind}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
    let ts = this.#firstSeen.get(key);
    if (!ts) {
      ts = (this.options.now?.() ?? new Date()).toISOString();
      this.#firstSeen.set(key, ts);
    }
    return { ...obj, metadata: { ...obj.metadata, creationTimestamp: ts } } as KubeObject;
  }
}
