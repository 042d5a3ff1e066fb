// npm test runs the upstream Gateway API conformance suite the way `npm run conformance` does (the real node, the
// product as deploy/ installs it, the four profiles and every feature the GatewayClass claims), and fails when a
// test fails or when a profile passes fewer tests than the report published in conformance/reports/<version>/ (no
// regression). The run's report is left in a scratch file; `npm run conformance` is what publishes.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import { nodeTestsSkipped } from '../harness/kube-node-available.js';
import { findRepoRoot } from '../harness/repo-root.js';
import { createTempDir } from '../harness/temp-dir.js';
import { newestPublishedReport } from '../conformance/published-reports.js';
import { reportProblems, summarizeReport, type ConformanceReport, type ProfileReport } from '../conformance/report-summary.js';

const root = findRepoRoot();
const gatewayApiVersion = 'v1.6.3';

const passed = (p: ProfileReport | undefined, part: 'core' | 'extended'): number => p?.[part]?.statistics.Passed ?? 0;

test('the upstream Gateway API conformance suite passes, every profile at least as far as the published report', async (t) => {
  if (nodeTestsSkipped()) {
    t.pass('SKIP_NODE_TESTS=1: the suite needs the real node');
    return;
  }
  // Images and the suite are cached after the first build; a run is minutes, waiting for the node lock included.
  t.timeout(60 * 60_000);
  const newest = await newestPublishedReport(path.join(root, 'conformance/reports', gatewayApiVersion));
  if (newest === undefined) throw new Error(`no report in conformance/reports/${gatewayApiVersion}/`);
  const { file, report: published } = newest;
  const tmp = await createTempDir('conformance-npm-test-');
  t.teardown(() => tmp.remove());
  const reportOut = tmp.file('report.yaml');
  const logPath = tmp.file('run.log');
  const code = await new Promise<number>((resolve) => {
    const out = createWriteStream(logPath);
    const child = spawn(process.execPath, [path.join(root, 'dist/test/conformance/run-suite.js')], {
      cwd: root,
      env: { ...process.env, CONFORMANCE_REPORT_OUT: reportOut },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.once('close', (c) => out.end(() => resolve(c ?? 1)));
  });
  const runLog = await readFile(logPath, 'utf8');
  const tail = runLog.split('\n').slice(-40).join('\n');
  const report = parse(await readFile(reportOut, 'utf8').catch(() => 'null')) as ConformanceReport | null;
  t.truthy(report, `the suite wrote no report:\n${tail}`);
  if (report === null) return;
  t.deepEqual(reportProblems(report, gatewayApiVersion), [], tail);
  t.log(summarizeReport(report));
  t.is(code, 0, `the suite failed:\n${tail}`);
  for (const profile of report.profiles) {
    t.deepEqual([...(profile.core.failedTests ?? []), ...(profile.extended?.failedTests ?? [])], [], `${profile.name}: failed tests`);
    t.deepEqual([...(profile.core.skippedTests ?? []), ...(profile.extended?.skippedTests ?? [])], [], `${profile.name}: skipped tests`);
  }
  for (const before of published.profiles) {
    const now = report.profiles.find((p) => p.name === before.name);
    for (const part of ['core', 'extended'] as const) {
      t.true(passed(now, part) >= passed(before, part), `${before.name} ${part}: ${passed(now, part)} passed, ${passed(before, part)} in ${file}`);
    }
  }
});
