// The manifest directory source against real temporary directories and the real fs.watch: tests wait on the
// store's 'change' events and on the source's log lines, never on sleeps.
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { createTempDir } from '../../test/harness/temp-dir.js';
import { ObjectStore, type StoreChange } from '../store.js';
import type { Service } from '../translate/shared/kube-objects.js';
import { ManifestDirectorySource, type SourceLog } from './manifest-source.js';

interface LogLine {
  level: 'info' | 'warn';
  obj: object;
  msg: string;
}

/** A SourceLog that keeps its lines and lets a test wait for one. */
class RecordingLog implements SourceLog {
  readonly lines: LogLine[] = [];
  #waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  info(obj: object, msg: string): void {
    this.#add({ level: 'info', obj, msg });
  }
  warn(obj: object, msg: string): void {
    this.#add({ level: 'warn', obj, msg });
  }
  #add(line: LogLine): void {
    this.lines.push(line);
    this.#waiters = this.#waiters.filter((w) => (w.match(line) ? (w.resolve(line), false) : true));
  }
  /** Resolves at the next line (from now on) that matches. */
  next(match: (l: LogLine) => boolean, description: string): Promise<LogLine> {
    return withDeadline(new Promise((resolve) => this.#waiters.push({ match, resolve })), description);
  }
}

/** A safety net so a missing event fails the test with a reason instead of hanging until ava's timeout. */
function withDeadline<T>(promise: Promise<T>, description: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${description} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Resolves with the next change batch of the store that satisfies `match`. */
function nextChange(store: ObjectStore, match: (changes: StoreChange[]) => boolean, description: string): Promise<StoreChange[]> {
  let listener: ((changes: StoreChange[]) => void) | undefined;
  const seen = new Promise<StoreChange[]>((resolve) => {
    listener = (changes) => {
      if (match(changes)) resolve(changes);
    };
    store.on('change', listener);
  });
  return withDeadline(seen, description).finally(() => store.off('change', listener!));
}

const has = (type: StoreChange['type'], name: string) => (changes: StoreChange[]) =>
  changes.some((c) => c.type === type && c.name === name);

function service(name: string, port = 80, meta: Record<string, unknown> = {}): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...meta }, spec: { ports: [{ name: 'http', port }] } };
}

const yaml = (...objects: object[]): string => objects.map((o) => stringify(o)).join('---\n');

/** Atomic write (temp file + rename), as editors and kubectl-style tools save. */
async function save(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

function portOf(store: ObjectStore, name: string): number | undefined {
  return (store.get('Service', 'default', name) as Service | undefined)?.spec?.ports?.[0]?.port;
}

async function setUp(t: ExecutionContext, files: Record<string, string>, options: { now?: () => Date; emptyRecheckMs?: number; debounceMs?: number } = {}) {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(tmp.file(name)), { recursive: true });
    await writeFile(tmp.file(name), text);
  }
  const store = new ObjectStore();
  const log = new RecordingLog();
  const source = new ManifestDirectorySource(tmp.path, store, log, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.emptyRecheckMs !== undefined ? { emptyRecheckMs: options.emptyRecheckMs } : {}),
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
  });
  t.teardown(() => source.stop());
  return { dir: tmp.path, file: tmp.file, store, log, source };
}

test('initial load reads .yaml, .yml and .json files in nested folders, skipping hidden ones and other files', async (t) => {
  const { store, source } = await setUp(t, {
    'top.yaml': yaml(service('top')),
    'a/b/deep.yml': yaml(service('deep')),
    'a/json.json': JSON.stringify(service('json')),
    '.hidden.yaml': yaml(service('hidden-file')),
    '.git/x.yaml': yaml(service('hidden-dir')),
    'notes.txt': yaml(service('not-a-manifest')),
  });
  t.false(source.synced);
  await source.start();
  t.true(source.synced);
  t.deepEqual(store.list('Service').map((s) => s.metadata.name).sort(), ['deep', 'json', 'top']);
  t.deepEqual(source.problems, []);
});

test('a missing directory fails start()', async (t) => {
  const store = new ObjectStore();
  const source = new ManifestDirectorySource('/nonexistent/envoy-ingress-test', store, new RecordingLog());
  await t.throwsAsync(source.start(), { code: 'ENOENT' });
});

test('an edited file updates the store', async (t) => {
  const { file, store, source } = await setUp(t, { 'svc.yaml': yaml(service('web', 80), service('api', 90)) });
  await source.start();
  const changed = nextChange(store, has('modified', 'web'), 'modification of web');
  await save(file('svc.yaml'), yaml(service('web', 8080), service('api', 90)));
  const changes = await changed;
  t.deepEqual(changes.map((c) => `${c.type} ${c.name}`), ['modified web'], 'api did not change, so it is not in the batch');
  t.is(portOf(store, 'web'), 8080);
});

test('a file replaced by rename again and again is seen every time (new content renamed in from elsewhere)', async (t) => {
  const { file, store, source } = await setUp(t, { 'svc.yaml': yaml(service('web', 80)) });
  const elsewhere = await createTempDir();
  t.teardown(() => elsewhere.remove());
  await source.start();
  // Nothing but the rename happens in the watched directory (no temporary file beside it to give it away).
  for (const port of [81, 82, 83, 84]) {
    const changed = nextChange(store, () => portOf(store, 'web') === port, `web on port ${port}`);
    await writeFile(elsewhere.file('next.yaml'), yaml(service('web', port)));
    await rename(elsewhere.file('next.yaml'), file('svc.yaml'));
    await changed;
  }
  t.is(portOf(store, 'web'), 84);
});

test('a single change after a quiet moment is read at once, not after the coalescing window', async (t) => {
  // A ten-minute window: the change can only arrive before the test's 20 s deadline if it is read on the
  // leading edge.
  const { file, store, source } = await setUp(t, { 'svc.yaml': yaml(service('web', 80)) }, { debounceMs: 600_000 });
  await source.start();
  const changed = nextChange(store, has('modified', 'web'), 'modification of web');
  await save(file('svc.yaml'), yaml(service('web', 8080)));
  await changed;
  t.is(portOf(store, 'web'), 8080);
});

test('an edit in place (no rename) is seen too, as is a new file in a new folder', async (t) => {
  const { dir, file, store, source } = await setUp(t, { 'svc.yaml': yaml(service('web', 80)) });
  await source.start();
  // An in-place write may be seen half-done (truncated) first: wait for the state, not for one exact batch.
  let changed = nextChange(store, () => portOf(store, 'web') === 81, 'web on port 81');
  await writeFile(file('svc.yaml'), yaml(service('web', 81)));
  await changed;
  t.is(portOf(store, 'web'), 81);
  changed = nextChange(store, has('added', 'later'), 'addition of later');
  await mkdir(path.join(dir, 'new', 'folder'), { recursive: true });
  await writeFile(path.join(dir, 'new', 'folder', 'later.yaml'), yaml(service('later')));
  await changed;
  t.truthy(store.get('Service', 'default', 'later'));
});

test('a removed file removes its objects and only those', async (t) => {
  const { file, store, source } = await setUp(t, { 'a.yaml': yaml(service('a1'), service('a2')), 'b.yaml': yaml(service('b')) });
  await source.start();
  const deleted = nextChange(store, has('deleted', 'a1'), 'deletion of a1');
  await unlink(file('a.yaml'));
  const changes = await deleted;
  t.deepEqual(changes.map((c) => `${c.type} ${c.name}`).sort(), ['deleted a1', 'deleted a2']);
  t.deepEqual(store.list('Service').map((s) => s.metadata.name), ['b']);
});

test('a file that becomes invalid keeps its last good objects and records a problem until it is fixed', async (t) => {
  const { file, store, log, source } = await setUp(t, { 'app.yaml': yaml(service('web', 80)), 'other.yaml': yaml(service('other', 1)) });
  await source.start();
  const warned = log.next((l) => l.level === 'warn' && (l.obj as { file?: string }).file === 'app.yaml', 'warning about app.yaml');
  await save(file('app.yaml'), 'apiVersion: v1\nkind: Service\nmetadata: {name: web\n  broken: [\n');
  await warned;
  t.is(portOf(store, 'web'), 80, 'the last good version is still served');
  t.is(source.problems.length, 1);
  t.is(source.problems[0]?.file, 'app.yaml');
  t.regex(source.problems[0]?.message ?? '', /YAML error/);

  // Another file changes: the broken file is not re-read, and its problem is still reported.
  const otherChanged = nextChange(store, has('modified', 'other'), 'modification of other');
  await save(file('other.yaml'), yaml(service('other', 2)));
  await otherChanged;
  t.is(portOf(store, 'web'), 80);
  t.deepEqual(source.problems.map((p) => p.file), ['app.yaml'], 'the problem lasts while the file is broken');
  t.is(log.lines.filter((l) => l.level === 'warn').length, 1, 'and is logged once');

  // Fixed: the new content is served and the problem is gone.
  const fixed = nextChange(store, has('modified', 'web'), 'modification of web');
  await save(file('app.yaml'), yaml(service('web', 8080)));
  await fixed;
  t.is(portOf(store, 'web'), 8080);
  t.deepEqual(source.problems, []);
});

test('an object defined in two files: the first file in path order wins, whatever was loaded first', async (t) => {
  const { file, store, source } = await setUp(t, { 'b.yaml': yaml(service('web', 2)) });
  await source.start();
  t.is(portOf(store, 'web'), 2);
  t.deepEqual(source.problems, []);
  const changed = nextChange(store, has('modified', 'web'), 'modification of web');
  await save(file('a.yaml'), yaml(service('other'), service('web', 1)));
  await changed;
  t.is(portOf(store, 'web'), 1);
  t.deepEqual(source.problems, [{ file: 'b.yaml', document: 0, message: 'Service default/web is also defined in a.yaml; that definition is used' }]);
});

test('objects without creationTimestamp get the time first seen, stable across reloads', async (t) => {
  let clock = Date.UTC(2030, 0, 1);
  const now = (): Date => new Date((clock += 1000));
  const { file, store, source } = await setUp(t, { 'app.yaml': yaml(service('first'), service('dated', 80, { creationTimestamp: '2020-01-01T00:00:00Z' })) }, { now });
  await source.start();
  const firstSeen = store.get('Service', 'default', 'first')?.metadata.creationTimestamp;
  t.is(firstSeen, '2030-01-01T00:00:01.000Z');
  t.is(store.get('Service', 'default', 'dated')?.metadata.creationTimestamp, '2020-01-01T00:00:00Z');

  const changed = nextChange(store, has('added', 'second'), 'addition of second');
  await save(file('app.yaml'), yaml(service('first', 81), service('second'), service('dated', 80, { creationTimestamp: '2020-01-01T00:00:00Z' })));
  const changes = await changed;
  t.deepEqual(changes.map((c) => `${c.type} ${c.name}`).sort(), ['added second', 'modified first']);
  t.is(store.get('Service', 'default', 'first')?.metadata.creationTimestamp, firstSeen, 'an edit keeps the first-seen time');
  t.true(store.get('Service', 'default', 'second')!.metadata.creationTimestamp! > firstSeen!, 'a newer object is younger');
});

test('a re-read that fails (directory removed) is logged and keeps the last state instead of crashing', async (t) => {
  const { dir, store, log, source } = await setUp(t, { 'app.yaml': yaml(service('web')) });
  await source.start();
  const failed = log.next((l) => l.msg === 'manifest directory re-read failed', 're-read failure warning');
  await rm(dir, { recursive: true, force: true });
  await failed;
  t.truthy(store.get('Service', 'default', 'web'), 'objects stay: a vanished directory is not an empty one');
});

test('symlinked manifests (a ConfigMap volume) are read through the link', async (t) => {
  const { dir, store, source } = await setUp(t, { '..data/app.yaml': yaml(service('linked')) });
  await symlink(path.join(dir, '..data', 'app.yaml'), path.join(dir, 'app.yaml'));
  await source.start();
  t.deepEqual(store.list('Service').map((s) => s.metadata.name), ['linked'], 'read once, through the link; ..data is hidden');
});

test('a file saved in place (truncated, then written) keeps its objects through the empty moment', async (t) => {
  const { file, store, source } = await setUp(t, { 'app.yaml': yaml(service('web', 80)) }, { emptyRecheckMs: 60_000 });
  await source.start();
  const changes: StoreChange[][] = [];
  store.on('change', (c) => changes.push(c));
  // The truncation is seen alone (as an editor's first write would be)...
  await writeFile(file('app.yaml'), '');
  await source.reload();
  t.is(portOf(store, 'web'), 80, 'objects kept after one empty read');
  // ...then the new content lands before the confirming re-read.
  const modified = nextChange(store, has('modified', 'web'), 'web modified');
  await writeFile(file('app.yaml'), yaml(service('web', 81)));
  await modified;
  t.is(portOf(store, 'web'), 81);
  t.false(changes.flat().some((c) => c.type === 'deleted'), 'web was never deleted');
});

test('a file emptied on purpose loses its objects after the confirming re-read', async (t) => {
  const { file, store, source } = await setUp(t, { 'app.yaml': yaml(service('web', 80)) });
  await source.start();
  const deleted = nextChange(store, has('deleted', 'web'), 'web deleted');
  await writeFile(file('app.yaml'), '');
  await deleted;
  t.deepEqual(store.list('Service'), []);
});
