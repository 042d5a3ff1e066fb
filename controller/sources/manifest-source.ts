// The standalone source: every YAML/JSON file under a directory, re-read when the directory changes.
// A file that stops parsing keeps its last good objects (an editor's half-written save must not drop routes).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ObjectStore } from '../store.js';
import { keyNamespaceOf, kindNames } from '../translate/shared/kinds.js';
import type { KubeKind, KubeObject } from '../translate/shared/kube-objects.js';
import { ManifestMerge } from './manifest-merge.js';
import { parseManifest, type ManifestProblem } from './manifest-parser.js';

export interface SourceLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

const allKinds: readonly KubeKind[] = kindNames;
const manifestFile = /\.(ya?ml|json)$/i;

interface FileEntry {
  mtimeMs: number;
  size: number;
  objects: KubeObject[];
  /** Document index of each object (parallel to `objects`). */
  documents: number[];
  /** Problems found the last time the file was read; they last as long as the file is unchanged. */
  problems: ManifestProblem[];
  /**
   * `objects` with their first-seen creationTimestamp, made once per parse: an unchanged file hands the store
   * the very objects it has, which it recognises without comparing their contents.
   */
  stamped?: KubeObject[];
}

function problemKey(p: ManifestProblem): string {
  return `${p.file}|${p.document}|${p.message}`;
}

export class ManifestDirectorySource {
  readonly #files = new Map<string, FileEntry>();
  /** Merges the files' objects, only the changed files' after an edit (manifest-merge.ts). */
  readonly #merge = new ManifestMerge();
  /** First time an object without creationTimestamp was seen, so "oldest wins" stays stable across reloads. */
  readonly #firstSeen = new Map<string, string>();
  /** One watcher per directory read (non-recursive: see #watchDirectories). */
  readonly #watchers = new Map<string, fs.FSWatcher>();
  #watching = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the last read caused by a change started: the coalescing window is measured from it. */
  #lastReadAt = -Infinity;
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
    this.#watching = this.options.watch !== false;
    await this.reload();
  }

  stop(): void {
    this.#stopped = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
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

  /**
   * A change was seen. Leading edge: the first change after a quiet moment is read at once (on the next turn of
   * the event loop, so the events of one save form one read), because a single `kubectl`-style save should not
   * wait for a debounce window. Changes within `debounceMs` of the last read's start are folded into one read at
   * the end of that window, so a burst of writes costs at most one read per window. A half-written file seen by
   * the early read is read again on its next write event (and an emptied one only believed after a re-check).
   */
  #schedule(): void {
    if (this.#stopped || this.#timer) return;
    const wait = Math.max(0, this.#lastReadAt + (this.options.debounceMs ?? 25) - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastReadAt = performance.now();
      // A failed re-read (directory gone, permissions) keeps the last state; it must not crash the process.
      this.reload().catch((err: unknown) => this.log.warn({ err, dir: this.dir }, 'manifest directory re-read failed'));
    }, wait);
  }

  /**
   * An entry of a watched directory changed. A save through a temporary file (`app.yaml.tmp`, then a rename)
   * must cause one read after the rename, not a first read of the temporary file that starts the coalescing
   * window and defers the real change: so other files are ignored. Manifests, directories (a new folder, a
   * ConfigMap volume's `..data` swap) and unknown entries cause a read.
   */
  #changed(dir: string, name: string | Buffer | null): void {
    if (this.#stopped) return;
    const entry = name === null ? '' : name.toString();
    if (entry === '' || manifestFile.test(entry) || entry.startsWith('..')) {
      this.#schedule();
      return;
    }
    const full = path.join(dir, entry);
    fs.lstat(full, (err, stat) => {
      // Gone: a temporary file renamed into place (the manifest name has its own event), unless it was a
      // directory we read (moved away: its manifests go with it).
      if (err ? this.#watchers.has(full) : !stat.isFile()) this.#schedule();
    });
  }

  /**
   * Watch every directory that was read, each with its own non-recursive watcher. Node 20's recursive watch on
   * Linux watches each file's inode, so a file replaced by rename (how editors, kubectl-style tools and atomic
   * writers save) is seen once and then never again; a directory watch reports every create, write, rename and
   * removal of its entries, and a ConfigMap volume's `..data` symlink swap shows up in the top directory.
   */
  #watchDirectories(dirs: readonly string[]): void {
    if (!this.#watching || this.#stopped) return;
    const wanted = new Set(dirs);
    for (const [dir, watcher] of this.#watchers) {
      if (wanted.has(dir)) continue;
      watcher.close();
      this.#watchers.delete(dir);
    }
    let added = false;
    for (const dir of dirs) {
      if (this.#watchers.has(dir)) continue;
      added = true;
      let watcher: fs.FSWatcher;
      try {
        watcher = fs.watch(dir, { persistent: true }, (_event, name) => this.#changed(dir, name));
      } catch (err: unknown) {
        // Removed between listing and watching: the next read notices.
        this.log.warn({ err, dir }, 'manifest directory watch failed');
        this.#schedule();
        continue;
      }
      watcher.on('error', (err) => {
        if (dir === this.dir) this.log.warn({ err, dir }, 'manifest directory watch failed');
        watcher.close();
        if (this.#watchers.get(dir) === watcher) this.#watchers.delete(dir);
        this.#schedule();
      });
      this.#watchers.set(dir, watcher);
    }
    // What was created in a new directory between listing it and watching it is found by one more read.
    if (added && this.#synced) this.#schedule();
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

  /** Manifest files under `dir` (sorted), and the directories visited (`dirs`, filled in). */
  async #listFiles(dir: string, dirs: string[]): Promise<string[]> {
    const out: string[] = [];
    dirs.push(dir);
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) out.push(...(await this.#listFiles(full, dirs)));
      else if ((e.isFile() || e.isSymbolicLink()) && manifestFile.test(e.name)) out.push(full);
    }
    return out.sort();
  }

  async #readAll(): Promise<void> {
    const dirs: string[] = [];
    const files = await this.#listFiles(this.dir, dirs);
    // Watch before reading the files: a write between listing and reading still causes one more read.
    this.#watchDirectories(dirs);
    const present = new Set(files);
    for (const file of [...this.#files.keys()]) if (!present.has(file)) this.#files.delete(file);
    // Every file's stat at once: one wait for all of them, not one turn of the event loop per file.
    const stats = await Promise.all(files.map((file) => fsp.stat(file).catch(() => undefined)));
    for (const [i, file] of files.entries()) {
      const stat = stats[i];
      if (stat === undefined) {
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

    const sorted = [...this.#files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const merged = this.#merge.merge(
      sorted.map(([file, entry]) => ({
        file: path.relative(this.dir, file),
        objects: (entry.stamped ??= entry.objects.map((obj) => this.#withTimestamp(obj))),
        documents: entry.documents,
      })),
    );
    // Per file, its own problems, then its objects defined before in another file (the order they always had).
    const duplicates = merged.kind === 'all' ? merged.duplicates : [];
    const problems = sorted.flatMap(([file, entry]) => {
      const rel = path.relative(this.dir, file);
      return [...entry.problems, ...duplicates.filter((p) => p.file === rel)];
    });
    const before = new Set(this.problems.map(problemKey));
    for (const p of problems) {
      if (!before.has(problemKey(p))) this.log.warn({ file: p.file, document: p.document, reason: 'InvalidManifest' }, p.message);
    }
    this.problems = problems;
    if (merged.kind === 'all') this.store.replace(allKinds, merged.objects);
    else this.store.update(...[merged.upserts, merged.deletes].map((objects) => objects.filter((obj) => allKinds.includes(obj.kind))) as [KubeObject[], KubeObject[]]);
    if (!this.#synced) {
      this.#synced = true;
      // The first read merges every file (there is nothing to compare with).
      this.log.info({ dir: this.dir, files: files.length, objects: merged.kind === 'all' ? merged.objects.length : undefined }, 'manifests loaded');
    }
  }

  #withTimestamp(obj: KubeObject): KubeObject {
    if (obj.metadata.creationTimestamp) return obj;
    const key = `${obj.kind}/${keyNamespaceOf(obj.kind, obj.metadata)}/${obj.metadata.name}`;
    let ts = this.#firstSeen.get(key);
    if (!ts) {
      ts = (this.options.now?.() ?? new Date()).toISOString();
      this.#firstSeen.set(key, ts);
    }
    return { ...obj, metadata: { ...obj.metadata, creationTimestamp: ts } } as KubeObject;
  }
}
