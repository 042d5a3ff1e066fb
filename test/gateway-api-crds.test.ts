// The Gateway API CRDs this project ships (scripts/kube/gateway-api-crds.sh) are the pinned module's files, byte for
// byte and in upstream's install order, with their bundle-version and channel annotations as released.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { gatewayServiceFeatures, ownAddressFeatures, staticAddressFeatures, supportedFeatures } from '../controller/translate/gateway-api/supported-features.js';
import { findRepoRoot } from './harness/repo-root.js';

const root = findRepoRoot();
const pinnedVersion = 'v1.6.3';

let standardDir: string | undefined;
test.before(async (t) => {
  t.timeout(5 * 60_000, 'go mod download of sigs.k8s.io/gateway-api (cached after the first run)');
  const { stdout } = await promisify(execFile)('bash', [path.join(root, 'scripts/kube/gateway-api-paths.sh')], { timeout: 5 * 60_000 });
  standardDir = /^crds=(.*)$/m.exec(stdout)?.[1];
});

/** The shipped file's documents, each preceded by the `# config/crd/...` line naming its module file. */
async function shippedParts(file: string): Promise<{ source: string; text: string }[]> {
  const text = await readFile(path.join(root, file), 'utf8');
  return text
    .split(/^---\n(?=# config\/crd\/)/m)
    .slice(1)
    .map((part) => {
      const newline = part.indexOf('\n');
      return { source: part.slice(2, newline), text: part.slice(newline + 1) };
    });
}

const cases = [
  { file: 'deploy/gateway-api/standard-install.yaml', channel: 'standard', pick: (f: string) => f.startsWith('gateway') },
  { file: 'deploy/helm/envoy-ingress/crds/gateway-api-crds.yaml', channel: 'standard', pick: (f: string) => f.startsWith('gateway') && !f.includes('_vap_') },
  { file: 'deploy/optional/gateway-api-experimental/experimental-install.yaml', channel: 'experimental', pick: (f: string) => f.startsWith('gateway') },
];

for (const c of cases) {
  test(`${c.file} is the ${c.channel} channel of sigs.k8s.io/gateway-api@${pinnedVersion}, unchanged`, async (t) => {
    if (standardDir === undefined) return t.fail('scripts/kube/gateway-api-paths.sh printed no crds= line');
    t.true(standardDir.includes(`@${pinnedVersion}/`), standardDir);
    const dir = path.join(path.dirname(standardDir), c.channel);
    const expected = (await readdir(dir)).filter((f) => f.endsWith('.yaml') && c.pick(f)).sort();
    const parts = await shippedParts(c.file);
    t.deepEqual(parts.map((p) => p.source), expected.map((f) => `config/crd/${c.channel}/${f}`));
    for (const [i, f] of expected.entries()) t.is(parts[i]?.text, await readFile(path.join(dir, f), 'utf8'), f);
    // Every CRD carries the release's annotations (the conformance suite checks bundle-version). The
    // safe-upgrades policy is upstream's as well (its experimental copy says channel standard, as released).
    const docs = parts.flatMap((p) => parseAllDocuments(p.text).map((d) => d.toJS() as { kind: string; metadata: { name: string; annotations?: Record<string, string> } }));
    const crds = docs.filter((d) => d.kind === 'CustomResourceDefinition');
    t.true(crds.length >= 10);
    for (const doc of crds) {
      t.is(doc.metadata.annotations?.['gateway.networking.k8s.io/bundle-version'], pinnedVersion, doc.metadata.name);
      t.is(doc.metadata.annotations?.['gateway.networking.k8s.io/channel'], c.channel, doc.metadata.name);
    }
  });
}

test('the HTTPRoute CRD of the standard channel has CORS and no retry (why deploy/ ships standard and the experimental channel is optional)', async (t) => {
  const httproute = (await shippedParts('deploy/gateway-api/standard-install.yaml')).find((p) => p.source.endsWith('_httproutes.yaml'));
  t.truthy(httproute);
  t.regex(httproute?.text ?? '', /^\s+cors:$/m);
  t.notRegex(httproute?.text ?? '', /^\s+retry:$/m);
  const experimental = (await shippedParts('deploy/optional/gateway-api-experimental/experimental-install.yaml')).find((p) => p.source.endsWith('_httproutes.yaml'));
  t.regex(experimental?.text ?? '', /^\s+retry:$/m);
});

test('every feature the GatewayClass claims (supported-features.ts) is a feature name of the pinned module', async (t) => {
  if (standardDir === undefined) return t.fail('scripts/kube/gateway-api-paths.sh printed no crds= line');
  const featuresDir = path.join(standardDir, '../../../pkg/features');
  const names = new Set<string>();
  for (const file of (await readdir(featuresDir)).filter((f) => f.endsWith('.go'))) {
    for (const m of (await readFile(path.join(featuresDir, file), 'utf8')).matchAll(/^\s*Support[A-Za-z0-9]+\s+(?:FeatureName\s+)?=\s+"([A-Za-z0-9]+)"/gm)) names.add(m[1]!);
  }
  t.true(names.has('HTTPRoute'));
  t.deepEqual([...supportedFeatures, ...gatewayServiceFeatures, ...ownAddressFeatures, ...staticAddressFeatures].filter((f) => !names.has(f)), []);
});
