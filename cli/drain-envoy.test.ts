// The drain against a real Envoy is in test/envoy-drain-e2e.test.ts; here only what happens without one.
import net from 'node:net';
import test from 'ava';
import { drainEnvoy, parseDrainSeconds } from './drain-envoy.js';

test('an unreachable admin interface is an error naming the URL and the cause, without waiting the drain time', async (t) => {
  // A port nothing listens on: bind one, then close it.
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  const lines: string[] = [];
  const error = await t.throwsAsync(drainEnvoy({ adminUrl: `http://127.0.0.1:${port}/`, drainSeconds: 3600, log: { info: (_o: object, m: string) => void lines.push(m) } as never }));
  t.regex(error!.message, new RegExp(`^cannot reach Envoy's admin interface: POST http://127\\.0\\.0\\.1:${port}/healthcheck/fail: .*ECONNREFUSED`));
  t.deepEqual(lines, []);
});

test('--drain-seconds is a non-negative number', (t) => {
  t.is(parseDrainSeconds('15'), 15);
  t.is(parseDrainSeconds('0.5'), 0.5);
  for (const bad of ['', ' ', '-1', 'x', 'Infinity']) t.throws(() => parseDrainSeconds(bad), { message: /--drain-seconds must be a number of seconds/ }, bad);
});
