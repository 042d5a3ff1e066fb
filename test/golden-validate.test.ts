// Every translate golden input, as a manifest directory, through the real CLI: `validate` must get "OK" from
// the real Envoy, and `render` must print what buildConfig builds (one JSON document per resource type, sorted
// by name, private keys redacted, then the diagnostics). The CLI runs as a child process, as users run it.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { parseAllDocuments } from 'yaml';
import { buildConfig } from '../controller/pipeline/build-config.js';
import { clusterStateFromYaml } from '../controller/translate/shared/cluster-state-yaml.js';
import { defaultTranslateOptions, type TranslateOptions } from '../controller/translate/shared/options.js';
import type { EnvoyOptions, ResourceJson } from '../envoy/resource-types.js';
import { encodeAny } from '../proto/proto-json.js';
import { TypeUrl } from '../proto/type-urls.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { limiter } from './harness/limiter.js';

const root = findRepoRoot();
const cliMain = path.join(root, 'dist', 'cli', 'main.js');
const casesDir = path.join(root, 'testdata', 'translate');
const cases = readdirSync(casesDir)
  .filter((file) => file.endsWith('.in.yaml'))
  .map((file) => file.slice(0, -'.in.yaml'.length))
  .sort();

/** What the CLI uses when no listener flags are given (cli/controller-options.ts defaults). */
const cliEnvoyDefaults: EnvoyOptions = { listenAddress: '0.0.0.0', httpPort: 8080, httpsPort: 8443 };

/** CLI processes at a time (each starts node and, for validate, Envoy) on a 2-core machine. */
const parallelism = 2;

const withSlot = limiter(parallelism);

interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

function runCli(args: readonly string[]): Promise<CliResult> {
  const options = { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 };
  return withSlot(
    () =>
      new Promise<CliResult>((resolve) => {
        execFile(process.execPath, [cliMain, ...args], options, (error, stdout, stderr) => {
          if (error === null) return resolve({ exitCode: 0, stdout, stderr });
          // A numeric code is the exit status; otherwise the process did not start or was killed.
          if (typeof error.code === 'number') return resolve({ exitCode: error.code, stdout, stderr });
          resolve({ exitCode: -1, stdout, stderr: `${stderr}\n${String(error)}` });
        });
      }),
  );
}

interface GoldenCase {
  /** The input without its `kind: TranslateOptions` documents (comments and layout kept). */
  manifest: string;
  /** The case's option overrides, as the golden test applies them. */
  options: TranslateOptions;
}

function loadCase(name: string): GoldenCase {
  const text = readFileSync(path.join(casesDir, `${name}.in.yaml`), 'utf8');
  const kept = parseAllDocuments(text).filter((doc) => {
    const value: unknown = doc.toJS();
    return !(typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'TranslateOptions');
  });
  const manifest = kept.map((doc) => doc.toString()).join('---\n');
  return { manifest, options: { ...defaultTranslateOptions, ...clusterStateFromYaml(text).options } };
}

/** Flags whose name is not the option's name in kebab case. */
const flagNames: Partial<Record<keyof TranslateOptions, string>> = { ingressClassName: '--ingress-class', nginxConfigMap: '--nginx-configmap' };

/**
 * The CLI flags that give the same TranslateOptions: `--<option-in-kebab-case> <value>`, booleans as `--x` or
 * `--no-x`, the 404 page through a file. An option the CLI has no flag for fails the case with commander's
 * "unknown option" message, which says what to add.
 */
async function translationFlags(options: TranslateOptions, dir: string): Promise<string[]> {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(options) as [keyof TranslateOptions, unknown][]) {
    if (value === undefined || value === defaultTranslateOptions[key]) continue;
    const flag = flagNames[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (key === 'notFoundPage') {
      const file = path.join(dir, 'not-found.html.txt');
      await writeFile(file, String(value));
      flags.push(flag, file);
    } else if (key === 'nginxConfigMap') {
      const ref = value as NonNullable<TranslateOptions['nginxConfigMap']>;
      flags.push(flag, `${ref.namespace}/${ref.name}`);
    } else if (key === 'allowedUrlTargets') {
      for (const host of value as string[]) flags.push('--allow-url-target', host);
    } else if (key === 'gatewayAddressing') {
      const addressing = value as NonNullable<TranslateOptions['gatewayAddressing']>;
      // Only the standalone mode has a flag here; the cluster mode (--gateway-port-range) is `run`'s alone.
      if (addressing.mode !== 'pool') throw new Error(`gatewayAddressing mode ${addressing.mode} has no render/validate flag`);
      flags.push('--gateway-address-pool', addressing.pool.join(','));
    } else if (typeof value === 'boolean') {
      flags.push(value ? flag : flag.replace(/^--/, '--no-'));
    } else {
      flags.push(flag, String(value));
    }
  }
  return flags;
}

/** A temp dir holding `manifests/objects.yaml`, removed when the test ends. */
async function manifestDir(t: ExecutionContext, manifest: string): Promise<{ dir: string; manifests: string }> {
  const temp = await createTempDir('golden-validate-');
  t.teardown(() => temp.remove());
  const manifests = temp.file('manifests');
  await mkdir(manifests);
  await writeFile(path.join(manifests, 'objects.yaml'), manifest);
  return { dir: temp.path, manifests };
}

test('there are golden cases, and at least one has a TranslateOptions document to strip', (t) => {
  t.true(cases.length >= 20);
  const hasOptions = (name: string): boolean =>
    /^kind: TranslateOptions$/m.test(readFileSync(path.join(casesDir, `${name}.in.yaml`), 'utf8'));
  const withOptions = cases.filter(hasOptions);
  t.true(withOptions.length > 0);
  for (const name of withOptions) t.notRegex(loadCase(name).manifest, /TranslateOptions/);
});

/**
 * Cases in the cluster mode of Gateway addresses (--gateway-port-range, which only `run` in a cluster takes): the CLI
 * cannot be given their options; test/gateway-api-envoy-validate.test.ts has Envoy validate their config instead.
 */
const clusterModeCases = new Set(cases.filter((name) => loadCase(name).options.gatewayAddressing?.mode === 'service'));

test('the cluster-mode cases left out here are Gateway API goldens, validated by gateway-api-envoy-validate', (t) => {
  t.deepEqual([...clusterModeCases].filter((name) => !name.startsWith('gateway-api-')), []);
});

for (const name of cases.filter((c) => !clusterModeCases.has(c))) {
  test(`validate: ${name}`, async (t) => {
    const { manifest, options } = loadCase(name);
    const { dir, manifests } = await manifestDir(t, manifest);
    const envoyBin = await findEnvoyBinary();
    const flags = await translationFlags(options, dir);
    const result = await runCli(['validate', '--manifests', manifests, '--envoy-bin', envoyBin, ...flags]);
    const output = `exit ${result.exitCode}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
    t.is(result.exitCode, 0, output);
    t.regex(result.stdout, /^OK: Envoy accepts the config \(/, output);
    // The counts it reports are those of the pipeline run in process on the same input.
    const built = buildConfig(clusterStateFromYaml(manifest).state, { translate: options, envoy: cliEnvoyDefaults });
    const counts = Object.entries(built.resources).map(([key, list]) => `${(list as unknown[]).length} ${key}`);
    t.true(result.stdout.includes(`(${counts.join(', ')})`), `expected (${counts.join(', ')})\n${output}`);
  });
}

test('validate ignores a TranslateOptions document left in the manifests', async (t) => {
  const name = 'tls-host-without-rules';
  const text = readFileSync(path.join(casesDir, `${name}.in.yaml`), 'utf8');
  t.regex(text, /^kind: TranslateOptions$/m);
  const { manifests } = await manifestDir(t, text);
  const envoyBin = await findEnvoyBinary();
  const validate = await runCli(['validate', '--manifests', manifests, '--envoy-bin', envoyBin]);
  t.is(validate.exitCode, 0, validate.stderr);
  t.regex(validate.stdout, /^OK: /);
  const render = await runCli(['render', '--manifests', manifests]);
  t.is(render.exitCode, 0, render.stderr);
  const report = splitDocuments(render.stdout).at(-1) as { manifestProblems: unknown[] };
  t.deepEqual(report.manifestProblems, []);
});

/** `render` prints pretty JSON documents one after another; each starts with `{` at the start of a line. */
function splitDocuments(stdout: string): ResourceJson[] {
  return stdout
    .trim()
    .split(/\n(?=\{)/)
    .map((text) => JSON.parse(text) as ResourceJson);
}

const typeOrder = [
  ['listeners', TypeUrl.listener],
  ['routeConfigurations', TypeUrl.routeConfiguration],
  ['clusters', TypeUrl.cluster],
  ['clusterLoadAssignments', TypeUrl.clusterLoadAssignment],
  ['secrets', TypeUrl.secret],
  ['extensionConfigs', TypeUrl.extensionConfig],
] as const;

function resourceName(resource: ResourceJson): string {
  return String(resource['name'] ?? resource['cluster_name']);
}

function redacted(secret: ResourceJson): ResourceJson {
  const copy = structuredClone(secret);
  const certificate = copy['tls_certificate'] as { private_key?: unknown } | undefined;
  if (certificate?.private_key !== undefined) certificate.private_key = { inline_string: '[redacted]' };
  return copy;
}

for (const name of ['basic-host-path-routing', 'tls-valid', 'wildcard-host']) {
  test(`render: ${name} prints one sorted document per type, then the diagnostics, keys redacted`, async (t) => {
    const { manifest, options } = loadCase(name);
    const { dir, manifests } = await manifestDir(t, manifest);
    const result = await runCli(['render', '--manifests', manifests, ...(await translationFlags(options, dir))]);
    t.is(result.exitCode, 0, result.stderr);
    const documents = splitDocuments(result.stdout);
    t.is(documents.length, typeOrder.length + 1);

    const built = buildConfig(clusterStateFromYaml(manifest).state, { translate: options, envoy: cliEnvoyDefaults });
    typeOrder.forEach(([key, typeUrl], i) => {
      const document = documents[i] as { typeUrl: string; resources: ResourceJson[] };
      t.is(document.typeUrl, typeUrl);
      const names = document.resources.map(resourceName);
      t.deepEqual(names, [...names].sort(), `${key} sorted by name`);
      for (const resource of document.resources) {
        t.is(resource['@type'], typeUrl);
        t.notThrows(() => encodeAny(resource), `${key} ${resourceName(resource)} encodes strictly`);
      }
      // Exactly what the pipeline builds (secrets with the key redacted).
      const expected = built.resources[key].map((r) => (key === 'secrets' ? redacted(r.resource) : r.resource));
      t.deepEqual(document.resources, expected, key);
    });

    const secrets = (documents[4] as { resources: ResourceJson[] }).resources;
    if (name === 'tls-valid') t.true(secrets.length > 0, 'the TLS case renders its secret');
    for (const secret of secrets) {
      const certificate = secret['tls_certificate'] as Record<string, { inline_string?: string }>;
      t.is(certificate['private_key']?.inline_string, '[redacted]');
      t.regex(certificate['certificate_chain']?.inline_string ?? '', /BEGIN CERTIFICATE/);
    }
    t.notRegex(result.stdout, /PRIVATE KEY/);

    const report = documents[typeOrder.length] as Record<string, unknown>;
    t.deepEqual(report['diagnostics'], JSON.parse(JSON.stringify(built.translation.diagnostics)));
    t.deepEqual(report['servedIngresses'], JSON.parse(JSON.stringify(built.translation.servedIngresses)));
    t.deepEqual(report['manifestProblems'], []);
  });
}
