// The upstream Gateway API conformance suite as `npm run conformance` runs it (test/conformance/run-suite.ts), the
// parts that need no cluster: the runner module pins both Gateway API modules at the version every other script
// uses, it builds into the upstream suite's test binary, the options select the four profiles and skip nothing,
// and every report published under conformance/reports/ has upstream's shape, the pinned version, no skipped test
// and its row in the README. The suite itself runs on the real node (minutes to an hour), outside `npm test`.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse } from 'yaml';
import { namedPaths } from '../harness/build-script.js';
import { GO_TOOLS_BUILD_TIMEOUT_MS } from '../harness/go-tools.js';
import { findRepoRoot } from '../harness/repo-root.js';
import { newestPublishedReport } from './published-reports.js';
import { passedCounts, reportProblems, summarizeReport, type ConformanceReport } from './report-summary.js';

const run = promisify(execFile);
const root = findRepoRoot();
const runner = path.join(root, 'conformance/runner');
const PROFILES = ['GATEWAY-HTTP', 'GATEWAY-GRPC', 'GATEWAY-TLS', 'GATEWAY-TCP'];

/** The version of `module` the runner's go.mod requires (`require M V` or a line of a require block). */
function requiredVersion(module: string): string | undefined {
  for (const line of readFileSync(path.join(runner, 'go.mod'), 'utf8').split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] === 'require' && fields[1] === module) return fields[2];
    if (fields[0] === module && fields[1]?.startsWith('v')) return fields[1];
  }
  return undefined;
}

const pinned = requiredVersion('sigs.k8s.io/gateway-api/conformance') ?? 'none';

test('the runner requires sigs.k8s.io/gateway-api and its conformance module at the version the node scripts pin', (t) => {
  t.regex(pinned, /^v\d+\.\d+\.\d+$/);
  t.is(requiredVersion('sigs.k8s.io/gateway-api'), pinned, 'both modules at one version (the suite checks the CRDs against the root module)');
  for (const script of ['scripts/kube/build-echo-basic.sh', 'scripts/kube/gateway-api-paths.sh']) {
    const version = /^GATEWAY_API_VERSION="(v[^"]+)"/m.exec(readFileSync(path.join(root, script), 'utf8'))?.[1];
    t.is(version, pinned, script);
  }
  // go.sum pins every module the build reads (the script builds with -mod=readonly).
  const sum = readFileSync(path.join(runner, 'go.sum'), 'utf8');
  t.true(sum.includes(`sigs.k8s.io/gateway-api ${pinned} h1:`));
  t.true(sum.includes(`sigs.k8s.io/gateway-api/conformance ${pinned} h1:`));
});

test('build-conformance.sh builds the upstream suite: a test binary with TestConformance and the suite\'s flags', async (t) => {
  t.timeout(GO_TOOLS_BUILD_TIMEOUT_MS);
  const { stdout } = await run('bash', [path.join(root, 'scripts/kube/build-conformance.sh')], { timeout: GO_TOOLS_BUILD_TIMEOUT_MS, maxBuffer: 1 << 20 });
  const built = namedPaths(stdout);
  t.is(built.get('gateway-api-version'), pinned);
  const bin = built.get('conformance');
  if (!bin) return t.fail(`no conformance= line: ${stdout}`);
  t.true(existsSync(bin));
  const list = await run(bin, ['-test.list', '.*'], { timeout: 60_000 });
  t.deepEqual(list.stdout.trim().split('\n'), ['TestConformance']);
  // The flags run-suite.ts passes exist in this build (a Go test binary prints its flags with -h, exit status 0).
  const help = await run(bin, ['-h'], { timeout: 60_000 }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
  for (const flag of ['conformance-options-file', 'report-output', 'version', 'run-test']) t.true(`${help.stdout}${help.stderr}`.includes(`-${flag}`), flag);
});

test('options.yaml: the four Gateway profiles, features from the GatewayClass, nothing skipped or exempted', (t) => {
  const options = parse(readFileSync(path.join(runner, 'options.yaml'), 'utf8')) as Record<string, unknown>;
  t.deepEqual(options['conformanceProfiles'], PROFILES);
  for (const key of ['skipTests', 'exemptFeatures', 'supportedFeatures', 'enableAllSupportedFeatures', 'runTest', 'allowCrdsMismatch', 'skipProvisionalTests']) {
    t.false(key in options, `${key} must not be set`);
  }
  const implementation = options['implementation'] as Record<string, unknown>;
  for (const key of ['organization', 'project', 'url']) t.truthy(implementation[key], key);
  t.true(Array.isArray(implementation['contact']) && (implementation['contact'] as unknown[]).length > 0);
});

test('reportProblems accepts every report published with the pinned suite (its reports/ folder of the latest release)', async (t) => {
  t.timeout(5 * 60_000);
  const paths = namedPaths((await run('bash', [path.join(root, 'scripts/kube/gateway-api-paths.sh')], { timeout: 5 * 60_000 })).stdout);
  const reports = path.join(path.dirname(path.dirname(paths.get('base-manifests') ?? '/none/base/x')), 'reports');
  const latest = (await readdir(reports)).filter((d) => /^v\d/.test(d)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
  if (!latest) return t.fail(`no reports in ${reports}`);
  let checked = 0;
  for (const impl of await readdir(path.join(reports, latest), { withFileTypes: true })) {
    if (!impl.isDirectory()) continue;
    for (const file of (await readdir(path.join(reports, latest, impl.name))).filter((f) => f.endsWith('.yaml'))) {
      const report = parse(await readFile(path.join(reports, latest, impl.name, file), 'utf8')) as ConformanceReport;
      t.deepEqual(reportProblems(report, report.gatewayAPIVersion), [], `${latest}/${impl.name}/${file}`);
      checked += 1;
    }
  }
  t.true(checked >= 5, `${checked} published reports checked`);
});

test('reportProblems names what a broken report lacks; summarizeReport counts per profile', (t) => {
  const report: ConformanceReport = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ConformanceReport',
    date: '2026-11-27T07:00:00Z',
    gatewayAPIVersion: 'v1.6.3',
    gatewayAPIChannel: 'standard',
    mode: 'default',
    implementation: { organization: 'o', project: 'p', url: 'https://example.com', version: 'v1', contact: ['c'] },
    profiles: [
      {
        name: 'GATEWAY-HTTP',
        summary: 'Core tests failed with 1 test failures.',
        core: { result: 'failure', statistics: { Passed: 36, Skipped: 0, Failed: 1 }, failedTests: ['HTTPRouteSimpleSameNamespace'] },
        extended: { result: 'success', statistics: { Passed: 2, Skipped: 0, Failed: 0 }, supportedFeatures: ['HTTPRouteMethodMatching'] },
      },
    ],
  };
  t.deepEqual(reportProblems(report, 'v1.6.3'), []);
  t.deepEqual(reportProblems(report, 'v1.6.2'), ['gatewayAPIVersion v1.6.3, expected v1.6.2']);
  t.deepEqual(reportProblems({ ...report, implementation: { ...report.implementation, contact: [] } }, 'v1.6.3'), ['implementation.contact empty']);
  const wrongCount = { ...report, profiles: [{ ...report.profiles[0]!, core: { ...report.profiles[0]!.core, failedTests: [] } }] };
  t.deepEqual(reportProblems(wrongCount, 'v1.6.3'), ['GATEWAY-HTTP core: 1 failed but 0 named']);
  t.regex(summarizeReport(report), /GATEWAY-HTTP: core 36 passed, 1 failed, 0 skipped \(failure\); extended 2 passed, 0 failed, 0 skipped \(success\)\n {4}failed: HTTPRouteSimpleSameNamespace/);
});

test('every report in conformance/reports/<pinned>/ is the suite\'s, for the pinned version and the four profiles, skips nothing, and has its README row', async (t) => {
  const dir = path.join(root, 'conformance/reports', pinned);
  const readme = await readFile(path.join(dir, 'README.md'), 'utf8');
  const reproduce = readme.split(/^## /m).find((s) => s.startsWith('Reproduce'));
  t.truthy(reproduce, 'README has a "Reproduce" section');
  t.true(reproduce?.includes('npm run conformance'), 'Reproduce names the command');
  const reports = (await readdir(dir)).filter((f) => f.endsWith('-report.yaml'));
  for (const file of reports) {
    const text = await readFile(path.join(dir, file), 'utf8');
    const report = parse(text) as ConformanceReport;
    t.deepEqual(reportProblems(report, pinned), [], file);
    t.is(file, `${report.gatewayAPIChannel}-${report.implementation.version}-${report.mode}-report.yaml`, 'upstream naming: <channel>-<version>-<mode>-report.yaml');
    t.deepEqual(report.profiles.map((p) => p.name).sort(), [...PROFILES].sort(), `${file} profiles`);
    for (const p of report.profiles) {
      t.is(p.core.statistics.Skipped, 0, `${file} ${p.name} core skipped ${JSON.stringify(p.core.skippedTests)}`);
      t.is(p.extended?.statistics.Skipped ?? 0, 0, `${file} ${p.name} extended skipped ${JSON.stringify(p.extended?.skippedTests)}`);
    }
    t.true(readme.includes(`(./${file})`), `README links ${file}`);
  }
});

test('README "Gateway API": our row is the newest published report\'s counts, core + extended per profile', async (t) => {
  const dir = path.join(root, 'conformance/reports', pinned);
  const newest = await newestPublishedReport(dir);
  if (newest === undefined) {
    t.pass('no report published yet');
    return;
  }
  const counts = passedCounts(newest.report);
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const row = `| **envoy-ingress** ([report](conformance/reports/${pinned}/${newest.file})) | ${['HTTP', 'GRPC', 'TLS', 'TCP'].map((p) => `**${counts[p] ?? '—'}**`).join(' | ')} |`;
  t.true(readme.includes(row), `README.md has the row\n${row}`);
});
