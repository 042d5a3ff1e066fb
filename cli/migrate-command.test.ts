// `envoy-ingress migrate` through the real CLI on the examples (examples/manifests) and on realistic ingress-nginx
// Ingresses (testdata/nginx): what it writes (the Gateway API objects, every other object copied unchanged, the
// report in the JSON shape) and that the output directory loads as a configuration without problems. How
// the output behaves is measured in test/migrate-equivalence.test.ts.
import { execFile } from 'node:child_process';
import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { parseAllDocuments } from 'yaml';
import { loadAndBuild } from './render.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { createTempDir } from '../test/harness/temp-dir.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = path.join(root, 'dist/cli/main.js');

async function migrate(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'migrate', ...args], { cwd: root });
  return stdout;
}

async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => /\.ya?ml$/.test(f)).sort();
}

for (const [name, dir, flags] of [
  ['examples', 'examples/manifests', []],
  ['testdata/nginx', 'testdata/nginx', ['--nginx-annotations', '--nginx-configmap', 'ingress-nginx/ingress-nginx-controller']],
] as const) {
  test(`migrate ${name}: Gateway API objects, the rest copied unchanged, the report, a configuration that loads`, async (t) => {
    const out = await createTempDir('migrate-cli-');
    t.teardown(() => out.remove());
    // testdata/nginx's Ingresses name the class nginx: an IngressClass nginx of ours takes them over, as the
    // coming-from-ingress-nginx guide says.
    const copy = await createTempDir('migrate-cli-in-');
    t.teardown(() => copy.remove());
    await cp(path.join(root, dir), copy.path, { recursive: true });
    if (name === 'testdata/nginx') {
      await writeFile(path.join(copy.path, 'zz-ingress-class.yaml'), `apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: nginx}\nspec: {controller: ${defaultTranslateOptions.controllerName}}\n`);
    }
    const input = copy.path;
    const stdout = await migrate(['--manifests', input, '--out', out.path, ...flags]);
    t.regex(stdout, /^INGRESS +HOST +PATH +RESULT +ROUTE +DIFFERENCES$/m);
    t.regex(stdout, /\d+ Ingresses, \d+ paths: \d+ same, \d+ different; wrote .*GatewayClass.*Gateway.*HTTPRoute/);

    // Every input file is in the output; a file without converted Ingresses byte for byte.
    const inputs = await yamlFiles(input);
    const outputs = await yamlFiles(out.path);
    t.deepEqual(outputs.filter((f) => f !== 'gateway-api-migrated.yaml'), inputs.filter((f) => outputs.includes(f)));
    for (const file of inputs) {
      const before = await readFile(path.join(input, file), 'utf8');
      if (!outputs.includes(file)) {
        t.true(parseAllDocuments(before).every((d) => (d.toJS() as { kind?: string } | null)?.kind === 'Ingress' || d.contents === null), `${file} left out though it has other objects`);
        continue;
      }
      const after = await readFile(path.join(out.path, file), 'utf8');
      const kinds = (text: string): string[] => parseAllDocuments(text).flatMap((d) => ((d.toJS() as { kind?: string } | null)?.kind === undefined ? [] : [(d.toJS() as { kind: string }).kind]));
      if (!kinds(before).includes('Ingress')) t.is(after, before, `${file} copied unchanged`);
      t.false(kinds(after).includes('Ingress') && !kinds(before).includes('Ingress'));
    }

    // The report, in the shape the issue gives.
    const report = JSON.parse(await readFile(path.join(out.path, 'migration-report.json'), 'utf8')) as { ingresses: { namespace: string; name: string; paths: { host: string; path: string; result: string; differences: { id: string; message: string; action: string }[] }[] }[] };
    t.true(report.ingresses.length > 0);
    for (const ingress of report.ingresses) {
      t.is(typeof ingress.namespace, 'string');
      t.is(typeof ingress.name, 'string');
      for (const p of ingress.paths) {
        t.true(p.result === 'same' || p.result === 'different');
        t.is(p.result === 'different', p.differences.length > 0);
        for (const d of p.differences) t.true([d.id, d.message, d.action].every((s) => typeof s === 'string' && s !== ''));
      }
    }

    // The output directory is a configuration: it loads without manifest problems, and its Gateway is served.
    const config = await loadAndBuild(out.path, {
      translate: { ...defaultTranslateOptions, ...(flags.length > 0 ? { nginxAnnotations: true } : {}) },
      envoy: { listenAddress: '127.0.0.1', httpPort: 18080, httpsPort: 18443 },
    });
    t.deepEqual(config.manifestProblems, []);
    t.true(config.resources.listeners.some((l) => /^gateway\/http\/80$/.test(String((l as { name?: string }).name))), 'the Gateway\'s HTTP listener is built');
  });
}
