#!/usr/bin/env node
// Release step (.github/workflows/release.yml): points every install at the image just pushed, by digest.
//
//   node scripts/pin-release.js --version 1.2.3 --image ghcr.io/acme/envoy-ingress-controller --digest sha256:...
//
// Rewrites, under --root (default: the repository): the controller image of deploy/*.yaml and
// deploy-variants/*/*.yaml (`image: REPOSITORY@DIGEST`), the chart's controller.image (repository, tag = version,
// digest) and its version and appVersion. Comments and layout stay. test/release-workflow.test.ts runs it on a
// copy and checks the chart still renders exactly deploy/.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDocument } from 'yaml';

/** The controller's image reference in a manifest: the unreleased `envoy-ingress/controller:TAG` or a pinned one. */
const CONTROLLER_IMAGE = /(\bimage:\s*)(?:envoy-ingress\/controller|\S+\/envoy-ingress-controller)(?::[\w.-]+)?(?:@sha256:[0-9a-f]{64})?(?=\s*$)/gm;

/** A manifest's text with the controller image replaced; the count tells whether it had one. */
export function pinManifest(text, reference) {
  let count = 0;
  const pinned = text.replace(CONTROLLER_IMAGE, (_, prefix) => {
    count += 1;
    return `${prefix}${reference}`;
  });
  return { text: pinned, count };
}

/** values.yaml with controller.image set. */
export function pinChartValues(text, { repository, version, digest }) {
  const doc = parseDocument(text);
  doc.setIn(['controller', 'image', 'repository'], repository);
  doc.setIn(['controller', 'image', 'tag'], version);
  doc.setIn(['controller', 'image', 'digest'], digest);
  return doc.toString({ lineWidth: 0 });
}

/** Chart.yaml with version and appVersion. */
export function pinChartMetadata(text, version) {
  const doc = parseDocument(text);
  doc.set('version', version);
  doc.set('appVersion', version);
  return doc.toString({ lineWidth: 0 });
}

function manifestFiles(root) {
  const yamlIn = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => path.join(dir, f)) : []);
  const variants = path.join(root, 'deploy-variants');
  return [
    ...yamlIn(path.join(root, 'deploy')),
    ...(existsSync(variants) ? readdirSync(variants).flatMap((v) => yamlIn(path.join(variants, v))) : []),
  ];
}

function main() {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      image: { type: 'string' },
      digest: { type: 'string' },
      root: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') },
    },
  });
  const { version, image, digest, root } = values;
  if (!version || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) throw new Error(`--version must be a semantic version (1.2.3), got ${JSON.stringify(version)}`);
  if (!image || /[@:\s]/.test(image.split('/').pop() ?? '')) throw new Error(`--image must be a repository without tag or digest, got ${JSON.stringify(image)}`);
  if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`--digest must be sha256:<64 hex>, got ${JSON.stringify(digest)}`);
  const reference = `${image}@${digest}`;
  let pinned = 0;
  for (const file of manifestFiles(root)) {
    const { text, count } = pinManifest(readFileSync(file, 'utf8'), reference);
    if (count > 0) writeFileSync(file, text);
    pinned += count;
  }
  if (pinned === 0) throw new Error(`no controller image found in ${root}/deploy or deploy-variants`);
  const chart = path.join(root, 'deploy/helm/envoy-ingress');
  writeFileSync(path.join(chart, 'values.yaml'), pinChartValues(readFileSync(path.join(chart, 'values.yaml'), 'utf8'), { repository: image, version, digest }));
  writeFileSync(path.join(chart, 'Chart.yaml'), pinChartMetadata(readFileSync(path.join(chart, 'Chart.yaml'), 'utf8'), version));
  process.stdout.write(`pinned ${reference}: ${pinned} image references in manifests, chart ${version}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`pin-release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
