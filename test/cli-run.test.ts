// The command line as users run it: `node dist/cli/main.js ...` in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { httpGet } from './harness/http-client.js';
import { childPids, listeningTcpPorts } from './harness/listening-ports.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { useEchoAppManifests } from './fixtures/echo-app-manifests.js';
import { ingress, ingressClass, toYaml } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

const mainJs = path.join(findRepoRoot(), 'dist', 'cli', 'main.js');

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Settles with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Cli {
  const child = spawn(process.execPath, [mainJs, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function runCli(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const cli = startCli(args);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** The controller's structured log lines (Envoy's own output, if any, is not JSON). */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('bootstrap --format json: the given node id, xDS address and admin port, delta ADS by default', async (t) => {
  const { code, stdout } = await runCli(['bootstrap', '--format', 'json', '--node-id', 'edge-7', '--xds-address', '10.1.2.3:18123', '--envoy-admin-port', '9911']);
  t.is(code, 0);
  const b = JSON.parse(stdout) as any;
  t.is(b.node.id, 'edge-7');
  t.is(b.admin.address.socket_address.port_value, 9911);
  t.is(b.dynamic_resources.ads_config.api_type, 'DELTA_GRPC');
  const xds = b.static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
  t.deepEqual(xds, { address: '10.1.2.3', port_value: 18123 });
});

test('bootstrap --xds-protocol sotw asks for state-of-the-world ADS', async (t) => {
  const { code, stdout } = await runCli(['bootstrap', '--format', 'json', '--xds-protocol', 'sotw']);
  t.is(code, 0);
  t.is((JSON.parse(stdout) as any).dynamic_resources.ads_config.api_type, 'GRPC');
});

test('bad flag values exit 2 with a message that names the flag', async (t) => {
  const bootstrap = await runCli(['bootstrap', '--xds-address', 'nope']);
  t.is(bootstrap.code, 2);
  t.is(bootstrap.stderr, 'envoy-ingress: --xds-address must be HOST:PORT (e.g. 127.0.0.1:18000), got "nope"\n');
  t.is(bootstrap.stdout, '');
  const run = await runCli(['run', '--manifests', '.', '--xds-address', 'nope']);
  t.is(run.code, 2);
  t.regex(run.stderr, /--xds-address must be HOST:PORT/);
  const port = await runCli(['render', '--manifests', '.', '--http-port', 'eighty']);
  t.is(port.code, 2);
  t.regex(port.stderr, /--http-port must be a port number/);
});

test('run refuses plaintext xDS off loopback (cli/xds-exposure.test.ts: unless --xds-insecure-plaintext); mutual TLS needs --xds-tls-client-san', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const exposed = await runCli(['run', '--manifests', tmp.path, '--xds-address', '0.0.0.0:0']);
  t.is(exposed.code, 2);
  t.regex(exposed.stderr, /--xds-address 0\.0\.0\.0 is not loopback and xDS is plaintext/);
  t.is(exposed.stdout, '', 'refused before anything listens');
  const tls = ['--xds-tls-cert', tmp.file('tls.crt'), '--xds-tls-key', tmp.file('tls.key'), '--xds-tls-ca', tmp.file('ca.crt')];
  const withoutSan = await runCli(['run', '--manifests', tmp.path, '--xds-address', '0.0.0.0:0', ...tls]);
  t.is(withoutSan.code, 2);
  t.regex(withoutSan.stderr, /--xds-tls-client-san is required with --xds-tls-\*/);
});

test('run exits 2 (and does not hang) when the manifest directory does not exist', async (t) => {
  const { code, stderr } = await runCli(['run', '--manifests', '/nonexistent/envoy-ingress', '--xds-address', '127.0.0.1:0']);
  t.is(code, 2);
  t.regex(stderr, /ENOENT/);
});

test('run --envoy serves a request through the real Envoy; SIGTERM stops both and exits 0', async (t) => {
  const manifests = await useEchoAppManifests(t, [ingress('echo', { rules: [{ host: 'echo.example.test', paths: [{ path: '/', service: 'echo' }] }] })], 'echo');
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const cli = startCli(
    [
      'run', '--manifests', manifests,
      '--xds-address', '127.0.0.1:0',
      '--envoy', '--envoy-admin-port', String(adminPort),
      '--http-port', String(httpPort), '--https-port', String(httpsPort),
      '--listen-address', '127.0.0.1',
    ],
    { ENVOY_BIN: await findEnvoyBinary() },
  );
  let envoyPid: number | undefined;
  t.teardown(() => {
    // Only if the test failed half-way: never leave processes behind.
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    if (envoyPid !== undefined && isRunning(envoyPid)) process.kill(envoyPid, 'SIGKILL');
  });
  t.teardown(() => {
    if (!t.passed) t.log(`--- stdout ---\n${cli.stdout().slice(-5000)}\n--- stderr ---\n${cli.stderr().slice(-5000)}`);
  });
  const gone = new AbortController();
  void cli.exited.then(() => gone.abort(new Error(`the CLI exited early (${cli.stderr().slice(-500)})`)));

  const listening = await waitFor(() => logLines(cli.stdout()).find((l) => l['msg'] === 'xDS server listening'), {
    description: '"xDS server listening" in the log',
    timeoutMs: 30_000,
    signal: gone.signal,
  });
  t.true(typeof listening['port'] === 'number' && listening['port'] > 0, 'the bound port, not 0');
  const started = await waitFor(() => logLines(cli.stdout()).find((l) => l['msg'] === 'Envoy started'), {
    description: '"Envoy started" in the log',
    timeoutMs: 30_000,
    signal: gone.signal,
  });
  envoyPid = started['pid'] as number;

  const res = await waitFor(
    async () => {
      const r = await httpGet({ port: httpPort, hostHeader: 'echo.example.test', path: '/hello' });
      return r.status === 200 ? r : undefined;
    },
    { description: 'a 200 from the echo backend through Envoy', timeoutMs: 60_000, signal: gone.signal },
  );
  t.is(res.json?.service, 'echo');
  t.is(res.json?.path, '/hello');

  cli.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    cli.exited,
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running 60 s after SIGTERM'), 60_000))),
  ]);
  clearTimeout(timer);
  t.is(code, 0);
  t.false(isRunning(envoyPid), 'no Envoy left behind');
  t.true(logLines(cli.stdout()).some((l) => l['msg'] === 'shutting down' && l['signal'] === 'SIGTERM'));
  // Envoy runs at --envoy-log-level warn by default: none of its info lines (one per xDS update) appear.
  t.notRegex(cli.stderr() + cli.stdout(), /\]\[info\]\[/);
});

test('run --envoy-log-level info passes the level to Envoy', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(tmp.file('class.yaml'), toYaml([ingressClass()]));
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()];
  const cli = startCli(
    [
      'run', '--manifests', tmp.path, '--xds-address', '127.0.0.1:0', '--envoy', '--envoy-log-level', 'info',
      '--envoy-admin-port', String(adminPort), '--http-port', String(httpPort), '--https-port', String(httpsPort),
      '--listen-address', '127.0.0.1',
    ],
    { ENVOY_BIN: await findEnvoyBinary() },
  );
  t.teardown(() => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
  });
  const gone = new AbortController();
  void cli.exited.then(() => gone.abort(new Error('the CLI exited early')));
  await waitFor(() => /\]\[info\]\[/.test(cli.stderr()), { description: 'Envoy info lines', timeoutMs: 30_000, signal: gone.signal });
  cli.child.kill('SIGTERM');
  t.is(await cli.exited, 0);
});

test('run --envoy with an Envoy binary that does not exist exits 2 and says so', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  const { code, stderr } = await runCli([
    'run', '--manifests', tmp.path, '--xds-address', '127.0.0.1:0', '--envoy', '--envoy-bin', '/nonexistent/envoy',
    '--envoy-admin-port', String(await freePort()),
  ]);
  t.is(code, 2);
  t.regex(stderr, /cannot start Envoy \(\/nonexistent\/envoy\)/);
});

test('run --envoy without addresses: xDS and Envoy\'s admin on Unix sockets in a private directory, removed on exit; no TCP port of theirs', async (t) => {
  const manifests = await useEchoAppManifests(t, [ingress('web', { rules: [{ host: 'web.example.test', paths: [{ path: '/', service: 'web' }] }] })]);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const cli = startCli(
    ['run', '--manifests', manifests, '--envoy', '--http-port', String(httpPort), '--https-port', String(httpsPort), '--listen-address', '127.0.0.1', '--debug-address', 'off'],
    { ENVOY_BIN: await findEnvoyBinary() },
  );
  t.teardown(() => {
    // SIGTERM: on a failure, the CLI still removes its socket directory.
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
  });
  const served = await waitFor(
    async () => {
      const res = await httpGet({ port: httpPort, hostHeader: 'web.example.test', path: '/' }).catch(() => undefined);
      return res?.status === 200 ? res : undefined;
    },
    { description: 'served through the supervised Envoy', timeoutMs: 60_000, intervalMs: 200 },
  );
  t.is(served.json?.service, 'web');
  const listening = /"address":"unix:([^"]+)\/xds\.sock"[^\n]*xDS server listening/.exec(cli.stdout());
  t.truthy(listening, cli.stdout().slice(0, 2000));
  const dir = listening![1]!;
  t.is(statSync(dir).mode & 0o777, 0o700);
  t.is(statSync(path.join(dir, 'admin.sock')).mode & 0o777, 0o600);
  // Neither process listens on TCP but for the data plane (the controller: nothing, /debug and health are off).
  const envoyPid = childPids(cli.child.pid!)[0]!;
  t.deepEqual(listeningTcpPorts(cli.child.pid!), []);
  // (No HTTPS listener: no TLS host.)
  t.deepEqual(listeningTcpPorts(envoyPid), [httpPort]);
  cli.child.kill('SIGTERM');
  t.is(await cli.exited, 0);
  t.false(existsSync(dir), 'the socket directory is removed on exit');
});
