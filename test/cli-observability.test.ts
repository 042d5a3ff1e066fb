// The real CLI: `run --metrics-address` serves /metrics, the probes and /debug; `explain` reads a manifest
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

test('run --metrics-address (same address as --health-address: one server) serves metrics, probes and /debug; explain --controller reads it', async (t) => {
  const dir = await manifests(t);
  const controller = startControllerProcess([
    '--manifests', dir,
    '--xds-address', '127.0.0.1:0',
    '--metrics-address', '127.0.0.1:0',
    '--health-address', '127.0.0.1:0',
    '--log-level', 'info',
  ]);
  t.teardown(() => controller.stop());
  const listening = await controller.waitForLog('admin endpoints listening (/healthz, /readyz, /metrics, /debug/ui)');
  t.is(controller.entries().filter((e) => e['msg'] === listening['msg']).length, 1);
  const url = `http://127.0.0.1:${String(listening['port'])}`;
  t.is((await fetch(`${url}/healthz`)).status, 200);
  t.is((await fetch(`${url}/readyz`)).status, 200);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  t.regex(metrics, /^envoy_ingress_watched_objects\{kind="Ingress"\} 1$/m);
  t.regex(metrics, /^envoy_ingress_translation_duration_seconds_count\{build="full"\} 1$/m);
  t.regex(await (await fetch(`${url}/debug/ui`)).text(), /shop\.example\.com/);
  const explained = await run(process.execPath, [main, 'explain', '--controller', url, '--host', 'shop.example.com', '--path', '/nope']);
  t.regex(explained.stdout, /^ {2}404 because no rule of host shop\.example\.com matches \/nope/m);
  const { code } = await controller.stop();
  t.is(code, 0);
});

test('run --health-address alone serves the probes only, no metrics and no /debug', async (t) => {
  const dir = await manifests(t);
  const controller = startControllerProcess(['--manifests', dir, '--xds-address', '127.0.0.1:0', '--health-address', '127.0.0.1:0']);
  t.teardown(() => controller.stop());
  const listening = await controller.waitForLog('health endpoints listening (/healthz, /readyz)');
  const url = `http://127.0.0.1:${String(listening['port'])}`;
  t.is((await fetch(`${url}/readyz`)).status, 200);
  t.is((await fetch(`${url}/metrics`)).status, 404);
  t.is((await fetch(`${url}/debug/ui`)).status, 404);
  t.is((await fetch(`${url}/debug/ir`)).status, 404);
});
