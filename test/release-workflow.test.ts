// The release workflow (.github/workflows/release.yml) cannot run here: actionlint (pinned, built from its Go
// module) checks every workflow, and its pin step (scripts/pin-release.js) runs on a copy of the repository's
// manifests and chart, which must then still render exactly deploy/, every install pointing at the pushed digest.
import { execFile } from 'node:child_process';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse } from 'yaml';
import { asSet, helmRunner, manifestDirObjects, parseObjects, renderArgs, repoRoot, type KubeObject } from './fixtures/helm-chart.js';
import { findGoTools, GO_TOOLS_BUILD_TIMEOUT_MS, type GoTools } from './harness/go-tools.js';
import { createTempDir } from './harness/temp-dir.js';

const run = promisify(execFile);
const workflowFile = path.join(repoRoot, '.github/workflows/release.yml');
const controller = `ghcr.io/acme/envoy-ingress-controller@sha256:${'ab12'.repeat(16)}`;
const envoy = `ghcr.io/acme/envoy-ingress-envoy@sha256:${'ef56'.repeat(16)}`;
const envoyEdge = `ghcr.io/acme/envoy-ingress-envoy-edge@sha256:${'cd34'.repeat(16)}`;
const pinArgs = ['--version', '1.2.3', '--controller', controller, '--envoy', envoy, '--envoy-edge', envoyEdge];

let tools: GoTools;
test.before(async (t) => {
  t.timeout(GO_TOOLS_BUILD_TIMEOUT_MS, 'building or finding actionlint and helm');
  tools = await findGoTools();
});

test('actionlint finds nothing in the workflows', async (t) => {
  const files = (await readdir(path.join(repoRoot, '.github/workflows'))).filter((f) => /\.ya?ml$/.test(f));
  t.true(files.includes('release.yml'));
  // Exit 0 and no finding (a finding fails the run: its rejection carries actionlint's output).
  const { stdout } = await run(tools.actionlint, ['-no-color', ...files.map((f) => `.github/workflows/${f}`)], { cwd: repoRoot });
  t.is(stdout, '');
});

test('actionlint does report a broken workflow (the check is live)', async (t) => {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const broken = (await readFile(workflowFile, 'utf8')).replace('@${{ steps.image.outputs.digest }}', '@${{ steps.imgae.outputs.digest }}');
  await cp(path.join(repoRoot, '.github'), path.join(dir.path, '.github'), { recursive: true });
  await writeFile(path.join(dir.path, '.github/workflows/release.yml'), broken);
  const error = await t.throwsAsync(run(tools.actionlint, ['-no-color', '.github/workflows/release.yml'], { cwd: dir.path }));
  t.regex((error as unknown as { stdout: string }).stdout, /property "imgae" is not defined/);
});

test('a version tag builds our images for amd64 and arm64, pushes them and the chart, and pins their digests with scripts/pin-release.js', async (t) => {
  const workflow = parse(await readFile(workflowFile, 'utf8'));
  t.deepEqual(Object.keys(workflow.on), ['push']);
  t.truthy(workflow.on.push.tags);
  const steps: { uses?: string; run?: string; with?: Record<string, unknown>; id?: string }[] = workflow.jobs.release.steps;
  const builds = steps.filter((s) => s.uses?.startsWith('docker/build-push-action@'));
  // One build per image of ours: the Dockerfile and each one under deploy/images/.
  const dockerfiles = ['Dockerfile', ...(await readdir(path.join(repoRoot, 'deploy/images'))).filter((f) => f.endsWith('.Dockerfile')).map((f) => `deploy/images/${f}`)];
  t.is(dockerfiles.length, 3);
  t.deepEqual(builds.map((b) => (b.with!['file'] as string | undefined) ?? 'Dockerfile').sort(), dockerfiles.sort());
  for (const build of builds) {
    t.is(build.with!['platforms'], 'linux/amd64,linux/arm64');
    t.true(build.with!['push']);
  }
  const pin = steps.find((s) => s.run?.includes('scripts/pin-release.js'))!;
  const env = (pin as { env?: Record<string, string> }).env!;
  t.regex(pin.run!, /--controller "\$CONTROLLER" --envoy "\$ENVOY" --envoy-edge "\$ENVOY_EDGE"/);
  // Each pinned reference is the digest its build step pushed.
  t.deepEqual(
    [env['CONTROLLER'], env['ENVOY'], env['ENVOY_EDGE']].map((v) => /steps\.(\w+)\.outputs\.digest/.exec(v ?? '')?.[1]),
    [undefined, 'deploy/images/envoy.Dockerfile', 'deploy/images/envoy-edge.Dockerfile'].map((file) => builds.find((b) => b.with!['file'] === file)!.id),
  );
  // The pin happens before the chart is packaged and pushed, and the manifests are published after it.
  const script = steps.map((s) => s.run ?? '').join('\n');
  const at = (needle: string) => {
    const i = script.indexOf(needle);
    if (i < 0) throw new Error(`${needle} not in the workflow`);
    return i;
  };
  t.true(at('pin-release.js') < at('helm package'));
  t.true(at('helm package') < at('helm push'));
  t.true(at('pin-release.js') < at('tar -czf'));
});

test('the pin step points deploy/, every variant and the chart at the digests, and the chart still renders exactly deploy/', async (t) => {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  for (const part of ['deploy', 'deploy-variants']) await cp(path.join(repoRoot, part), path.join(dir.path, part), { recursive: true });
  const { stdout } = await run(process.execPath, [path.join(repoRoot, 'scripts/pin-release.js'), '--root', dir.path, ...pinArgs]);
  t.regex(stdout, /pinned ghcr\.io\/acme\/envoy-ingress-controller@sha256:/);

  const helm = helmRunner(tools.helm, dir.path);
  const chart = path.join(dir.path, 'deploy/helm/envoy-ingress');
  const rendered = parseObjects((await helm(renderArgs({ chart }))).stdout);
  const deployDir = (await manifestDirObjects(path.join(dir.path, 'deploy'))).filter((o) => o.kind !== 'Namespace');
  t.deepEqual(asSet(rendered), asSet(deployDir));

  // Every image, in deploy/, each variant's files and each variant's render, is one of ours, pinned (Envoy's
  // included: deploy/images/envoy.Dockerfile).
  const ours = (objects: KubeObject[]) =>
    objects
      .filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet')
      .flatMap((o) => (o.spec.template.spec.containers as { image: string }[]).map((c) => c.image));
  const variantFiles = (await readdir(path.join(dir.path, 'deploy-variants'), { recursive: true })).filter((f) => f.endsWith('.yaml'));
  const variantObjects = (await Promise.all(variantFiles.map(async (f) => parseObjects(await readFile(path.join(dir.path, 'deploy-variants', f), 'utf8'))))).flat();
  const images = [...ours(deployDir), ...ours(variantObjects)];
  for (const variant of ['default', 'edge-nodes', 'split']) images.push(...ours(parseObjects((await helm(renderArgs({ chart, set: { variant } }))).stdout)));
  t.true(images.length >= 8, images.join());
  t.deepEqual([...new Set(images)].sort(), [controller, envoy, envoyEdge].sort());

  // The chart is released as that version, comments kept.
  const chartYaml = await readFile(path.join(chart, 'Chart.yaml'), 'utf8');
  t.like(parse(chartYaml), { version: '1.2.3', appVersion: '1.2.3' });
  const values = await readFile(path.join(chart, 'values.yaml'), 'utf8');
  t.like(parse(values).controller.image, { repository: controller.split('@')[0], tag: '1.2.3', digest: controller.split('@')[1] });
  t.like(parse(values).envoy.image, { repository: envoy.split('@')[0], tag: '1.40.0', digest: envoy.split('@')[1] });
  t.like(parse(values).envoy.edgeImage, { repository: envoyEdge.split('@')[0], digest: envoyEdge.split('@')[1] });
  t.regex(values, /# -- Install variant/);
  await helm(['lint', '--strict', chart]);
  await helm(['package', chart, '--destination', dir.path]);
  t.true((await readdir(dir.path)).includes('envoy-ingress-1.2.3.tgz'));

  // Pinning again (a re-run of the job) gives the same files.
  const before = await readFile(path.join(dir.path, 'deploy/05-deployment.yaml'), 'utf8');
  await run(process.execPath, [path.join(repoRoot, 'scripts/pin-release.js'), '--root', dir.path, ...pinArgs]);
  t.is(await readFile(path.join(dir.path, 'deploy/05-deployment.yaml'), 'utf8'), before);
});

test('the pin step refuses a bad version or image reference', async (t) => {
  const pin = (args: string[]) => run(process.execPath, [path.join(repoRoot, 'scripts/pin-release.js'), '--root', '/nonexistent', ...args]);
  const good = { '--version': '1.2.3', '--controller': controller, '--envoy': envoy, '--envoy-edge': envoyEdge };
  for (const [flag, bad, message] of [
    ['--version', 'v1.2', /--version must be a semantic version/],
    ['--controller', controller.replace('@', ':1.2.3@'), /--controller must be REPOSITORY@sha256/],
    ['--controller', 'ghcr.io/acme/envoy-ingress-controller:1.2.3', /--controller must be REPOSITORY@sha256/],
    ['--envoy', envoy.replace(/@.*/, ':1.40.0'), /--envoy must be REPOSITORY@sha256/],
    ['--envoy-edge', envoyEdge.replace(/@.*/, '@latest'), /--envoy-edge must be REPOSITORY@sha256/],
  ] as const) {
    const args = Object.entries({ ...good, [flag]: bad }).flat();
    const error = (await t.throwsAsync(pin(args))) as unknown as { stderr: string };
    t.regex(error.stderr, message);
  }
});

test('no production dependency has native code (the Dockerfile builds node_modules once, on the builder, for amd64 and arm64)', async (t) => {
  const dockerfile = await readFile(path.join(repoRoot, 'Dockerfile'), 'utf8');
  t.regex(dockerfile, /FROM --platform=\$BUILDPLATFORM node:\S+ AS build/);
  // What the image ships: the packages `npm prune --omit=dev` keeps (development tools such as the documentation
  // site's bundler may carry native builds; they never reach the image).
  const { stdout } = await promisify(execFile)('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: repoRoot, maxBuffer: 16 << 20 });
  const packages = stdout.split('\n').filter((dir) => dir.includes(`${path.sep}node_modules${path.sep}`));
  t.true(packages.length > 20, `only ${packages.length} production packages found`);
  const native: string[] = [];
  for (const dir of packages) {
    for (const file of await readdir(dir, { recursive: true })) {
      // A nested node_modules is listed as packages of its own.
      if (file.split(path.sep).includes('node_modules')) continue;
      if (file.endsWith('.node') || path.basename(file) === 'binding.gyp') native.push(path.join(dir, file));
    }
  }
  t.deepEqual(native, []);
});
