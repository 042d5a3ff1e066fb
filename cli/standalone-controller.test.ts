import net from 'node:net';
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { ingress, ingressClass, serviceWithEndpoints, toYaml } from '../test/fixtures/manifests.js';
import { createTempDir } from '../test/harness/temp-dir.js';
import { createLogger } from './logger.js';
import { startStandaloneController } from './standalone-controller.js';

/** A logger that keeps its JSON lines. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', { write: (s: string) => (lines.push(JSON.parse(s) as Record<string, unknown>), true) } as unknown as NodeJS.WritableStream);
  return { log, lines };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const base = {
  xdsHost: '127.0.0.1',
  xdsPort: 0,
  translate: defaultTranslateOptions,
  envoy: { listenAddress: '127.0.0.1', httpPort: 8080, httpsPort: 8443 },
};

test('start resolves once the first config is in the cache; stop closes the xDS port', async (t) => {
  const tmp = await createTempDir();
  t.teardown(() => tmp.remove());
  await writeFile(
    tmp.file('app.yaml'),
    toYaml([ingressClass(), ...serviceWithEndpoints('app', [{ address: '10.0.0.1', port: 80 }]), ingress('app', { rules: [{ host: 'a.test', paths: [{ path: '/', service: 'app' }] }] })]),
  );
  const { log, lines } = recordingLogger();
  const controller = await startStandaloneController({ ...base, manifestsDir: tmp.path, log, watch: false });
  t.true(controller.cache.ready);
  t.is(controller.cache.snapshot.resources.cluster.size, 1);
  t.deepEqual(controller.reconciler.servedIngresses.map((r) => r.name), ['app']);
  const listening = lines.find((l) => l['msg'] === 'xDS server listening');
  t.is(listening?.['port'], controller.xdsPort, 'the bound port is logged for wrappers and tests');
  t.true(await connects(controller.xdsPort));
  await controller.stop();
  t.false(await connects(controller.xdsPort));
});

test('a start that fails (no manifest directory) closes the xDS server it opened', async (t) => {
  const { log, lines } = recordingLogger();
  await t.throwsAsync(startStandaloneController({ ...base, manifestsDir: '/nonexistent/envoy-ingress', log }), { code: 'ENOENT' });
  const port = lines.find((l) => l['msg'] === 'xDS server listening')?.['port'];
  t.is(typeof port, 'number');
  t.false(await connects(port as number), 'nothing listens any more');
});
