// The real CLI: `run` serves /metrics and the probes on --metrics-address, /debug on --debug-address; `explain` reads a manifest
// directory or a running controller and prints the verdict.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { startControllerProcess } from './fixtures/controller-process.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from './fixtures/manifests.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';

const run = promisify(execFile);
const main = path.join(findRepoRoot(), 'dist', 'cli', 'main.js');

async function manifests(t: import('ava').ExecutionContext): Promise<string> {
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  await writeFile(
    path.join(dir.path, 'app.yaml'),
    toYaml([
      ingressClass(),
      ...serviceWithEndpoints('api', [{ address: '10.1.0.7', port: 8080 }], 'shop'),
      ingress('shop', { namespace: 'shop', rules: [{ host: 'shop.example.com', paths: [{ path: '/api', service: 'api' }] }] }),
    ]),
  );
  return dir.path;
}

test('explain --manifests: the verdict for a served path and a 404 with the rule that was tried', async (t) => {
  const dir = await manifests(t);
  const served = await run(process.execPath, [main, 'explain', '--manifests', dir, '--host', 'shop.example.com', '--path', '/api/orders']);
  t.regex(served.stdout, /^ {2}served by Ingress shop\/shop rule 0 path 0 \(Prefix \/api\) -> Service shop\/api port 80 -> 1 ready endpoint\(s\): 10\.1\.0\.7:8080$/m);
  const missing = await run(process.execPath, [main, 'explain', '--manifests', dir, '--host', 'shop.example.com', '--path', '/apiv2', '--output', 'json']);
  const e = JSON.parse(missing.stdout) as { status: number; verdict: string };
  t.is(e.status, 404);
  t.regex(e.verdict, /^404 because no rule of host shop\.example\.com matches \/apiv2 .*rules tried: Prefix \/api \(shop\/shop\)$/);
});

function listening(entries: Record<string, unknown>[]): { flags: string[]; url: string; paths: string[] }[] {
  return entries
    .filter((e) => e['msg'] === 'admin endpoints listening')
    .map((e) => ({ flags: e['flags'] as string[], url: `http://${String(e['address'])}:${String(e['port'])}`, paths: e['paths'] as string[] }));
}

test('run: /metrics and the probes on --metrics-address (= --health-address: one server), /debug only on --debug-address; explain --controller reads it', async (t) => {
  const dir = await manifests(t);
  const controller = startControllerProcess([
    '--manifests', dir,
    '--xds-address', '127.0.0.1:0',
    '--metrics-address', '127.0.0.1:0',
    '--health-address', '127.0.0.1:0',
    // Another loopback address, so it is not merged with the 127.0.0.1:0 server.
    '--debug-address', '127.0.0.2:0',
    '--log-level', 'info',
  ]);
  t.teardown(() => controller.stop());
  await controller.waitForLog('admin endpoints listening', (e) => (e['flags'] as string[]).includes('--debug-address'));
  await controller.waitForLog('admin endpoints listening', (e) => (e['flags'] as string[]).includes('--metrics-address'));
  const servers = listening(controller.entries());
  t.is(servers.length, 2);
  const admin = servers.find((s) => s.flags.includes('--metrics-address'))!;
  t.deepEqual(admin.flags, ['--health-address', '--metrics-address']);
  const url = admin.url;
  t.is((await fetch(`${url}/healthz`)).status, 200);
  t.is((await fetch(`${url}/readyz`)).status, 200);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  t.regex(metrics, /^envoy_ingress_watched_objects\{kind="Ingress"\} 1$/m);
  t.regex(metrics, /^envoy_ingress_translation_duration_seconds_count\{build="full"\} 1$/m);
  // The configuration is not on the scraped address.
  for (const p of ['/debug/ui', '/debug/xds', '/debug/ir', '/debug/clients']) t.is((await fetch(`${url}${p}`)).status, 404, p);
  const debug = servers.find((s) => s.flags.includes('--debug-address'))!;
  t.deepEqual(debug.flags, ['--debug-address']);
  const debugUrl = debug.url;
  t.regex(debugUrl, /^http:\/\/127\.0\.0\.2:\d+$/);
  t.regex(await (await fetch(`${debugUrl}/debug/ui`)).text(), /shop\.example\.com/);
  t.is((await fetch(`${debugUrl}/metrics`)).status, 404);
  const explained = await run(process.execPath, [main, 'explain', '--controller', debugUrl, '--host', 'shop.example.com', '--path', '/nope']);
  t.regex(explained.stdout, /^ {2}404 because no rule of host shop\.example\.com matches \/nope/m);
  const { code } = await controller.stop();
  t.is(code, 0);
});

test('run --health-address with --debug-address off serves the probes only, no metrics and no /debug', async (t) => {
  const dir = await manifests(t);
  const controller = startControllerProcess(['--manifests', dir, '--xds-address', '127.0.0.1:0', '--health-address', '127.0.0.1:0', '--debug-address', 'off']);
  t.teardown(() => controller.stop());
  await controller.waitForLog('admin endpoints listening');
  await controller.waitForLog('xDS server listening');
  const servers = listening(controller.entries());
  t.is(servers.length, 1);
  t.deepEqual(servers[0]!.paths, ['/healthz', '/readyz']);
  const url = servers[0]!.url;
  t.is((await fetch(`${url}/readyz`)).status, 200);
  t.is((await fetch(`${url}/metrics`)).status, 404);
  t.is((await fetch(`${url}/debug/ui`)).status, 404);
  t.is((await fetch(`${url}/debug/ir`)).status, 404);
});

test('run without --debug-address serves /debug on loopback port 9101 (or, when another process holds it, warns and goes on)', async (t) => {
  const dir = await manifests(t);
  const controller = startControllerProcess(['--manifests', dir, '--xds-address', '127.0.0.1:0']);
  t.teardown(() => controller.stop());
  const entry = await waitForEither(controller);
  if (entry['msg'] === 'admin endpoints listening') {
    t.is(entry['address'], '127.0.0.1');
    t.is(entry['port'], 9101);
    t.deepEqual(entry['flags'], ['--debug-address']);
  } else {
    t.is(entry['address'], '127.0.0.1:9101');
    // Still serving: the debug pages are a convenience, not a reason to stop routing.
    await controller.waitForLog('xDS server listening');
    t.is(controller.entries().filter((e) => e['msg'] === 'admin endpoints listening').length, 0);
  }
});

function waitForEither(controller: ReturnType<typeof startControllerProcess>): Promise<Record<string, unknown>> {
  const isEither = (e: Record<string, unknown>) => e['msg'] === 'admin endpoints listening' || String(e['msg']).startsWith('debug address in use');
  return waitFor(() => controller.entries().find(isEither), { description: 'debug server listening or its warning', timeoutMs: 60_000 });
}
