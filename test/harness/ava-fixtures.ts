/**
 * ava glue: start harness pieces for one test, stop them in t.teardown, and print a process's output only when
 * the test failed (assertions throw in ava, so t.passed is settled by the time teardowns run).
 */
import type { ExecutionContext } from 'ava';
import { startEchoBackend, type EchoBackend, type EchoBackendOptions } from './echo-backend.js';
import { startEnvoy, type EnvoyProcess, type StartEnvoyOptions } from './envoy-process.js';

/** Logs `source.logs()` in the test's output if the test fails. */
export function showLogsOnFailure(t: ExecutionContext, label: string, source: { logs(): string }): void {
  t.teardown(() => {
    if (!t.passed) t.log(`--- ${label} output (last lines) ---\n${source.logs()}`);
  });
}

/** startEnvoy() whose process is stopped when the test ends and whose logs are shown if it failed. */
export async function useEnvoy(t: ExecutionContext, opts: StartEnvoyOptions): Promise<EnvoyProcess> {
  const envoy = await startEnvoy(opts);
  // Teardowns run last-registered first: show the logs, then stop.
  t.teardown(async () => {
    await envoy.stop();
  });
  showLogsOnFailure(t, `Envoy (pid ${envoy.pid})`, envoy);
  return envoy;
}

/** startEchoBackend() closed when the test ends. */
export async function useEchoBackend(t: ExecutionContext, opts: EchoBackendOptions): Promise<EchoBackend> {
  const backend = await startEchoBackend(opts);
  t.teardown(() => backend.close());
  return backend;
}
