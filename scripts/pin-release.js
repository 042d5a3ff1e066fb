#!/usr/bin/env node
// Release step (.github/workflows/release.yml): points every install at the images just pushed, by digest.
//
//   node scripts/pin-release.js --version 1.2.3 \
//     --controller ghcr.io/acme/envoy-ingress-controller@sha256:... \
//     --envoy ghcr.io/acme/envoy-ingress-envoy@sha256:... \
//     --envoy-edge ghcr.io/acme/envoy-ingress-envoy-edge@sha256:...
//
// Rewrites, under --root (default: the repository): each image of ours in deploy/*.yaml and
// deploy-variants/*/*.yaml (`image: REPOSITORY@DIGEST`), the chart's values of those images (repository, digest;
// the controller's tag = version) and the chart's version and appVersion. Comments and layout stay.
// test/release-workflow.test.ts runs it on a copy and checks the chart still renders exactly deploy/.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDocument } from 'yaml';

/**
 * The images a release builds: the flag naming the pushed one, its name in unreleased manifests, the suffix of
 * its released repository (so a re-run finds a pinned one), and where the chart's values hold it.
 */
export const releaseImages = [
  { flag: 'controller', unreleased: 'envoy-ingress/controller', released: 'envoy-ingress-controller', values: ['controller', 'image'], tagIsVersion: true },
  { flag: 'envoy', unreleased: 'envoy-ingress/envoy', released: 'envoy-ingress-envoy', values: ['envoy', 'image'], tagIsVersion: false },
  { flag: 'envoy-edge', unreleased: 'envoy-ingress/envoy-edge', released: 'envoy-ingress-envoy-edge', values: ['envoy', 'edgeImage'], tagIsVersion: false },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A manifest's text with one image of ours replaced by `reference`; the count tells how many it had. */
export function pinManifest(text, image, reference) {
  const pattern = new RegExp(`(\\bimage:\\s*)(?:${escape(image.unreleased)}|\\S+/${escape(image.released)})(?::[\\w.-]+)?(?:@sha256:[0-9a-f]{64})?(?=\\s*$)`, 'gm');
  let count = 0;
  const pinned = text.replace(pattern, (_, prefix) => {
    count += 1;
    return `${prefix}${reference}`;
  });
  return { text: pinned, count };
}

/** values.yaml with one image's repository and digest (and tag = version, for the controller) set. */
export function pinChartValues(text, image, { repository, digest, version }) {
  const doc = parseDocument(text);
  doc.setIn([...image.values, 'repository'], repository);
  if (image.tagIsVersion) doc.setIn([...image.values, 'tag'], version);
  doc.setIn([...image.values, 'digest'], digest);
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

/** `REPOSITORY@sha256:HEX` -> its parts; throws on anything else (a tag, no digest). */
export function parsePushedImage(flag, value) {
  const match = /^([a-z0-9][a-z0-9._\/-]*[a-z0-9])@(sha256:[0-9a-f]{64})$/.exec(value ?? '');
  if (!match || /:[^/]*$/.test(match[1])) throw new Error(`--${flag} must be REPOSITORY@sha256:<64 hex> (no tag), got ${JSON.stringify(value)}`);
  return { repository: match[1], digest: match[2] };
}

function main() {
  const { values } = parseArgs({
    options: {
      version: { type: 'string' },
      ...Object.fromEntries(releaseImages.map((image) => [image.flag, { type: 'string' }])),
      root: { type: 'string', default: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') },
    },
  });
  const { version, root } = values;
  if (!version || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) throw new Error(`--version must be a semantic version (1.2.3), got ${JSON.stringify(version)}`);
  const pushed = releaseImages.map((image) => ({ image, ...parsePushedImage(image.flag, values[image.flag]) }));
  const chart = path.join(root, 'deploy/helm/envoy-ingress');
  const valuesFile = path.join(chart, 'values.yaml');
  let chartValues = readFileSync(valuesFile, 'utf8');
  const report = [];
  for (const { image, repository, digest } of pushed) {
    const reference = `${repository}@${digest}`;
    let count = 0;
    for (const file of manifestFiles(root)) {
      const pinned = pinManifest(readFileSync(file, 'utf8'), image, reference);
      if (pinned.count > 0) writeFileSync(file, pinned.text);
      count += pinned.count;
    }
    if (count === 0) throw new Error(`no ${image.unreleased} image found in ${root}/deploy or deploy-variants`);
    chartValues = pinChartValues(chartValues, image, { repository, digest, version });
    report.push(`${reference} (${count} in manifests)`);
  }
  writeFileSync(valuesFile, chartValues);
  writeFileSync(path.join(chart, 'Chart.yaml'), pinChartMetadata(readFileSync(path.join(chart, 'Chart.yaml'), 'utf8'), version));
  process.stdout.write(`pinned ${report.join(', ')}; chart ${version}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`pin-release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
