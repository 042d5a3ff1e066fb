// The Node.js the image ships is the current LTS line, `engines` asks for it, and `npm test` runs the suite on
// exactly that version (scripts/ensure-node.sh installs it; scripts/test.js runs ava with it and says which).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { findRepoRoot } from './harness/repo-root.js';

const root = findRepoRoot();

async function imageNodeVersion(): Promise<string> {
  const dockerfile = await readFile(path.join(root, 'Dockerfile'), 'utf8');
  const versions = [...dockerfile.matchAll(/^FROM .*node:(\d+\.\d+\.\d+)-[a-z]+-slim@sha256:[0-9a-f]{64}/gm)].map((m) => m[1]);
  if (versions.length === 0 || new Set(versions).size !== 1) throw new Error(`Dockerfile: expected node:X.Y.Z-...@sha256 base images of one version, got ${versions.join(', ')}`);
  return versions[0]!;
}

test('the image ships Node 24 LTS, pinned by digest, and engines requires that line', async (t) => {
  const version = await imageNodeVersion();
  t.is(version.split('.')[0], '24');
  const dockerfile = await readFile(path.join(root, 'Dockerfile'), 'utf8');
  // Every base image is pinned by digest.
  for (const line of dockerfile.split('\n').filter((l) => l.startsWith('FROM '))) t.regex(line, /@sha256:[0-9a-f]{64}/, line);
  const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  t.is(pkg.engines.node, '>=24');
});

test('npm test runs the suite on the image\'s Node', async (t) => {
  // Set by scripts/test.js; a bare `npx ava` run says nothing about the version.
  const announced = process.env['TEST_NODE_VERSION'];
  if (announced === undefined) {
    t.log('not run through npm test (scripts/test.js): nothing to compare');
    t.pass();
    return;
  }
  t.is(process.version, announced);
  t.is(process.version, `v${await imageNodeVersion()}`);
});
