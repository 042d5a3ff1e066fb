// `npm run demo` (dist/examples/demo.js) against a real Envoy: its self-check passes, Ctrl-C stops it, and
// nothing it started (controller, Envoy, temporary files) outlives it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { freePort } from './fixtures/standalone-stack.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { httpGet } from './harness/http-client.js';
import { findRepoRoot } from './harness/repo-root.js';

const repoRoot = findRepoRoot();
const demoScript = path.join(repoRoot, 'dist', 'examples', 'demo.js');

interface DemoRun {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  httpPort: number;
}

/** Starts the demo on ports the OS considers free; killed (with its process group) if the test ends early. */
async function startDemo(t: ExecutionContext, extraEnv: Record<string, string>): Promise<DemoRun> {
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [demoScript], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ENVOY_BIN: await findEnvoyBinary(),
      DEMO_HTTP_PORT: String(httpPort),
      DEMO_HTTPS_PORT: String(httpsPort),
      DEMO_BACKEND_PORTS: 'auto',
      DEMO_DIR: '',
      ...extraEnv,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    const group = controllerGroup(output);
    if (group !== undefined && groupAlive(group)) process.kill(-group, 'SIGKILL');
  });
  return { child, output: () => output, exited, httpPort };
}

function controllerGroup(output: string): number | undefined {
  const match = /controller pid (\d+) \(process group (\d+)\)/.exec(output);
  return match?.[2] === undefined ? undefined : Number(match[2]);
}

/** Whether any process is still in the process group (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** The runtime directory, read from the CA path the demo prints. */
function runtimeDirOf(output: string): string | undefined {
  const caFile = /--cacert (\S+)/.exec(output)?.[1] ?? /CA\s+(\S+)/.exec(output)?.[1];
  return caFile === undefined ? undefined : path.dirname(caFile.replace(/^'|'$/g, ''));
}

function assertNothingLeft(t: ExecutionContext, output: string): void {
  const group = controllerGroup(output);
  if (group === undefined) return void t.fail(`the demo printed no controller pid:\n${output}`);
  t.false(groupAlive(group), 'the controller and Envoy have exited');
  const dir = runtimeDirOf(output);
  if (dir === undefined) return void t.fail(`the demo printed no CA path:\n${output}`);
  t.false(existsSync(dir), `the temporary runtime directory ${dir} was removed`);
}

test('DEMO_CHECK=1: every printed curl line works against the real Envoy, then everything stops', async (t) => {
  const demo = await startDemo(t, { DEMO_CHECK: '1' });
  const { code } = await demo.exited;
  const output = demo.output();
  t.is(code, 0, output);
  const checkLines = output.split('\n').filter((line) => /^(PASS|FAIL)\b/.test(line));
  t.true(checkLines.length >= 10, `all checks ran:\n${output}`);
  t.deepEqual(checkLines.filter((line) => !line.startsWith('PASS')), [], output);
  // The Gateway API example ran too, on the Ingress HTTP port the demo really used (a free one, not the manifests').
  t.is(checkLines.filter((line) => /^PASS +gateway\.localtest\.me \(Gateway API\)/.test(line)).length, 2, output);
  t.regex(output, new RegExp(`checks: ${checkLines.length} passed, 0 failed`));
  assertNothingLeft(t, output);
});

test('interactive mode serves until SIGINT (Ctrl-C), then stops the controller, Envoy and the backends', async (t) => {
  const demo = await startDemo(t, {});
  const deadline = Date.now() + 120_000;
  while (!demo.output().includes('Ctrl-C stops everything')) {
    if (demo.child.exitCode !== null || Date.now() > deadline) return void t.fail(`demo did not come up:\n${demo.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.regex(demo.output(), /changes apply live/);
  const answer = await httpGet({ port: demo.httpPort, hostHeader: 'blog.localtest.me', path: '/' });
  t.is(answer.json?.service, 'blog', 'the printed stack is serving');
  const viaGateway = await httpGet({ port: demo.httpPort, hostHeader: 'gateway.localtest.me', path: '/', headers: { 'x-backend': 'api' } });
  t.is(viaGateway.json?.service, 'api', 'the Gateway API example is served on the same port');
  demo.child.kill('SIGINT');
  const { code } = await demo.exited;
  const output = demo.output();
  t.is(code, 0, output);
  t.regex(output, /demo stopped/);
  assertNothingLeft(t, output);
});

test('the committed manifests hold no private key: the demo generates its TLS Secret at start', async (t) => {
  const dir = path.join(repoRoot, 'examples', 'manifests');
  const files = (await readdir(dir)).filter((name) => name.endsWith('.yaml'));
  t.true(files.length >= 4);
  for (const name of files) t.notRegex(await readFile(path.join(dir, name), 'utf8'), /PRIVATE KEY|kind:\s*Secret/, name);
});
