// The supervisor with the real Envoy: start, restart after a crash, stop (also after a crash), bad binary.
import { once } from 'node:events';
import test from 'ava';
import { findEnvoyBinary } from '../test/harness/envoy-binary.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { LineRingBuffer } from '../test/harness/line-ring-buffer.js';
import { waitFor } from '../test/harness/wait.js';
import { EnvoySupervisor, type EnvoyExit } from './envoy-supervisor.js';
import { createLogger } from './logger.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A static Envoy bootstrap with only an admin listener: enough to see that Envoy runs and answers. */
async function supervisor(t: import('ava').ExecutionContext, envoyBin?: string) {
  const adminPort = await freePort();
  const lines = new LineRingBuffer(200);
  const log = createLogger('info', { write: (s: string) => (lines.append('log', s), true) } as unknown as NodeJS.WritableStream);
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const sup = new EnvoySupervisor(
    {
      envoyBin: envoyBin ?? (await findEnvoyBinary()),
      bootstrap: { node: { id: 'sup-test', cluster: 'test' }, admin: { address: { socket_address: { address: '127.0.0.1', port_value: adminPort } } } },
      adminUrl,
      drainSeconds: 1,
    },
    log,
  );
  t.teardown(() => sup.stop());
  t.teardown(() => {
    if (!t.passed) t.log(lines.toString());
  });
  const answers = () =>
    waitFor(async () => (await fetch(`${adminUrl}/server_info`)).ok, { description: 'Envoy admin answering', timeoutMs: 30_000 });
  return { sup, answers, lines };
}

test('start runs Envoy; stop drains and ends it', async (t) => {
  const { sup, answers } = await supervisor(t);
  await sup.start();
  const pid = sup.pid;
  t.truthy(pid);
  await answers();
  await sup.stop();
  t.false(isRunning(pid!), 'no Envoy left behind');
  t.is(sup.pid, undefined);
});

test('an Envoy that dies is restarted', async (t) => {
  const { sup, answers, lines } = await supervisor(t);
  await sup.start();
  const first = sup.pid!;
  await answers();
  const respawned = once(sup, 'spawned') as Promise<[number]>;
  process.kill(first, 'SIGKILL');
  const [second] = await respawned;
  t.not(second, first);
  await answers();
  t.regex(lines.toString(), /Envoy exited unexpectedly; restarting/);
  await sup.stop();
  t.false(isRunning(second));
});

test('stop() returns when Envoy was killed by a signal and its restart is still pending', async (t) => {
  const { sup, answers } = await supervisor(t);
  await sup.start();
  const pid = sup.pid!;
  await answers();
  const exited = once(sup, 'exited') as Promise<[EnvoyExit]>;
  process.kill(pid, 'SIGKILL');
  const [exit] = await exited;
  t.is(exit.signal, 'SIGKILL');
  // Before the fix this waited for an 'exit' that had already happened: ava's timeout would end the test.
  await sup.stop();
  t.is(sup.pid, undefined);
  t.false(isRunning(pid));
});

test('a binary that does not exist makes start() reject with a clear message', async (t) => {
  const { sup } = await supervisor(t, '/nonexistent/envoy');
  await t.throwsAsync(sup.start(), { message: /cannot start Envoy \(\/nonexistent\/envoy\): .*ENOENT/ });
});
