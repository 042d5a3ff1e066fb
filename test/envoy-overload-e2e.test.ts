// Envoy's memory limit and the controller's overload watch, through the real CLI (`run --envoy`) and the real Envoy:
// - by default Envoy's overload manager measures its cgroup (its container): here a real memory cgroup with a
//   limit just above what Envoy uses makes it answer 503 `overload`, and raising the limit (what an operator does to
//   the container) is enough to bring it back, without touching the bootstrap;
// - the controller reads Envoy's overload stats, warns once per episode with the numbers and the remedy, says when
//   it is over, and exports the state as Prometheus gauges.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { overloadCleared, overloadWarning } from '../cli/envoy-overload-watch.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import { useEchoAppManifests } from './fixtures/echo-app-manifests.js';
import { ingress } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { httpGet } from './harness/http-client.js';
import { createTempDir } from './harness/temp-dir.js';
import { sleep, waitFor } from './harness/wait.js';

const host = 'echo.example.test';
const memoryV1 = '/sys/fs/cgroup/memory';

/**
 * Why a memory cgroup (v1) for Envoy cannot be made here, or undefined when it can: the test needs root, the v1
 * memory hierarchy (this machine's layout; on a cgroup v2 host the same test would bind a v2 child cgroup) and
 * unshare(1) to give Envoy a mount namespace in which its cgroup is at /sys/fs/cgroup/memory, as in a container.
 */
function cgroupUnavailable(): string | undefined {
  if (!existsSync(path.join(memoryV1, 'cgroup.procs'))) return `no cgroup v1 memory hierarchy at ${memoryV1}`;
  const probe = path.join(memoryV1, `envoy-ingress-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    execFileSync('unshare', ['--mount', '--propagation', 'private', 'true']);
    return undefined;
  } catch (err: unknown) {
    return `cannot make a memory cgroup and a mount namespace: ${err instanceof Error ? err.message : String(err)}`;
  }
}

interface RunningStack {
  controller: ControllerProcess;
  httpPort: number;
  metricsPort: number;
  status(): Promise<number>;
  metrics(): Promise<string>;
}

async function startRun(t: ExecutionContext, extraArgs: string[], env: NodeJS.ProcessEnv): Promise<RunningStack> {
  const manifests = await useEchoAppManifests(t, [ingress('echo', { rules: [{ host, paths: [{ path: '/', service: 'echo' }] }] })], 'echo');
  const [adminPort, httpPort, httpsPort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const controller = startControllerProcess(
    [
      '--manifests', manifests, '--xds-address', '127.0.0.1:0',
      '--envoy', '--envoy-admin-port', String(adminPort),
      '--http-port', String(httpPort), '--https-port', String(httpsPort), '--listen-address', '127.0.0.1',
      '--metrics-address', `127.0.0.1:${metricsPort}`, '--debug-address', 'off',
      '--envoy-overload-check-seconds', '1',
      ...extraArgs,
    ],
    env,
  );
  t.teardown(async () => {
    await controller.stop();
  });
  t.teardown(() => {
    if (!t.passed) t.log(`--- controller output ---\n${controller.logs().slice(-8000)}`);
  });
  return {
    controller,
    httpPort,
    metricsPort,
    status: async () => (await httpGet({ port: httpPort, hostHeader: host, path: '/' })).status,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
  };
}

/** The value of the sample `name{labels}` (or `name` alone) in a Prometheus text exposition. */
function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const cgroupSkip = cgroupUnavailable();
const cgroupTest = cgroupSkip === undefined ? test.serial : test.serial.skip;
if (cgroupSkip !== undefined) console.log(`skipping the memory cgroup test: ${cgroupSkip}`);

cgroupTest('default bootstrap: in a memory cgroup Envoy answers 503 past 98 % of the cgroup limit and 200 once the limit is raised; the controller warns, exports it, and gives the all-clear', async (t) => {
  const cgroup = path.join(memoryV1, `envoy-ingress-test-${process.pid}`);
  mkdirSync(cgroup);
  // Runs after the controller (and with it Envoy) stopped: a cgroup with no process left can go.
  t.teardown(async () => {
    for (let i = 0; i < 50 && existsSync(cgroup); i++) {
      try {
        rmdirSync(cgroup);
      } catch {
        await sleep(200);
      }
    }
  });
  const setLimit = (bytes: number | -1): void => writeFileSync(path.join(cgroup, 'memory.limit_in_bytes'), String(bytes));
  const usage = (): number => Number(readFileSync(path.join(cgroup, 'memory.usage_in_bytes'), 'utf8'));
  setLimit(1024 ** 3);
  // Envoy as a container runs it: in its own memory cgroup, which it sees at /sys/fs/cgroup/memory.
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  const wrapper = dir.file('envoy-in-cgroup.sh');
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `echo $$ > '${cgroup}/cgroup.procs' || exit 97`,
      `exec unshare --mount --propagation private sh -c 'mount --bind "$0" ${memoryV1} && exec "$@"' '${cgroup}' '${await findEnvoyBinary()}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  const stack = await startRun(t, ['--envoy-bin', wrapper], {});
  await waitFor(async () => ((await stack.status().catch(() => 0)) === 200 ? true : undefined), { description: 'a 200 through Envoy', timeoutMs: 60_000 });
  const memoryPressure = 'envoy_ingress_envoy_resource_pressure{monitor="envoy.resource_monitors.cgroup_memory"}';
  await waitFor(async () => (sample(await stack.metrics(), memoryPressure) !== undefined ? true : undefined), { description: 'the cgroup pressure metric', timeoutMs: 10_000 });
  t.is(sample(await stack.metrics(), 'envoy_ingress_envoy_overloaded'), 0);

  // What Envoy uses now, with the limit just above it (99.5 %; Envoy stops accepting requests from 98 %). Usage moves
  // by a percent between this reading and the controller's poll on a loaded machine: 99 % left a poll at 97 %.
  await sleep(1000);
  const used = usage();
  setLimit(Math.floor(used / 0.995));
  t.log(`Envoy's cgroup: ${used} bytes in use, limit set to ${Math.floor(used / 0.995)}`);
  await waitFor(async () => ((await stack.status()) === 503 ? true : undefined), { description: 'Envoy answering 503 overload', timeoutMs: 10_000 });
  const warned = await waitFor(() => stack.controller.entries().find((e) => String(e['msg']).startsWith(overloadWarning)), {
    description: 'the overload warning',
    timeoutMs: 10_000,
  });
  t.is(warned['level'], 40, 'a warning');
  t.regex(String(warned['msg']), /answering new requests 503: envoy\.resource_monitors\.cgroup_memory at 9\d %: raise the Envoy container's memory limit/);
  t.true(((warned['pressure'] as Record<string, number>)['envoy.resource_monitors.cgroup_memory'] ?? 0) >= 0.98, JSON.stringify(warned));
  const overloaded = await stack.metrics();
  t.is(sample(overloaded, 'envoy_ingress_envoy_overloaded'), 1);
  t.true((sample(overloaded, memoryPressure) ?? 0) >= 0.98);
  t.is(sample(overloaded, 'envoy_ingress_envoy_overload_action_scale{action="envoy.overload_actions.stop_accepting_requests"}'), 1);

  // The operator raises the container's limit: nothing else changes.
  setLimit(1024 ** 3);
  await waitFor(async () => ((await stack.status()) === 200 ? true : undefined), { description: 'a 200 again', timeoutMs: 10_000 });
  await waitFor(() => stack.controller.entries().find((e) => e['msg'] === overloadCleared), { description: 'the all-clear', timeoutMs: 10_000 });
  await waitFor(async () => (sample(await stack.metrics(), 'envoy_ingress_envoy_overloaded') === 0 ? true : undefined), {
    description: 'envoy_ingress_envoy_overloaded back to 0',
    timeoutMs: 10_000,
  });
  t.is(stack.controller.entries().filter((e) => String(e['msg']).startsWith(overloadWarning)).length, 1, 'one warning for the episode');

  // No limit at all (cgroup v1's -1; v2's "max"): no pressure, no 503.
  setLimit(-1);
  await sleep(1500);
  t.is(await stack.status(), 200);
  t.is(sample(await stack.metrics(), memoryPressure), 0);
});

test.serial('--max-heap-bytes: a fixed heap limit Envoy is over from the start; the controller warns with that remedy and exports it', async (t) => {
  const stack = await startRun(t, ['--max-heap-bytes', String(1024 * 1024)], { ENVOY_BIN: await findEnvoyBinary() });
  await waitFor(async () => ((await stack.status().catch(() => 0)) === 503 ? true : undefined), { description: 'Envoy answering 503 overload', timeoutMs: 60_000 });
  const warned = await waitFor(() => stack.controller.entries().find((e) => String(e['msg']).startsWith(overloadWarning)), {
    description: 'the overload warning',
    timeoutMs: 10_000,
  });
  t.regex(String(warned['msg']), /envoy\.resource_monitors\.fixed_heap at \d+ %: raise --max-heap-bytes/);
  const metrics = await stack.metrics();
  t.is(sample(metrics, 'envoy_ingress_envoy_overloaded'), 1);
  t.true((sample(metrics, 'envoy_ingress_envoy_resource_pressure{monitor="envoy.resource_monitors.fixed_heap"}') ?? 0) >= 0.98);
  t.is(sample(metrics, 'envoy_ingress_envoy_resource_pressure{monitor="envoy.resource_monitors.cgroup_memory"}'), undefined);
});
