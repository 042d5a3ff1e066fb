import net from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { adminPaths, groupAdminAddresses, startAdminServers, type AdminContent } from './admin-servers.js';
import type { ControlPlane } from './debug-views.js';
import { createLogger } from './logger.js';

function content(lines: Record<string, unknown>[] = []): AdminContent {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  // The debug routes are not requested here, so no control plane is needed behind them.
  return { ready: () => ({ ready: true, reason: 'ok' }), controlPlane: {} as ControlPlane, log: createLogger('info', sink) };
}

/** A port some other socket holds. */
async function takenPort(t: import('ava').ExecutionContext): Promise<number> {
  const holder = net.createServer();
  await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => holder.close(() => r())));
  return (holder.address() as net.AddressInfo).port;
}

test('flags naming the same address share one server; the probes are on every server, /debug only where asked', (t) => {
  const groups = groupAdminAddresses({ health: '0.0.0.0:8081', metrics: '0.0.0.0:8081', debug: '127.0.0.1:9101' });
  t.deepEqual([...groups].map(([a, r]) => [a, [...r]]), [
    ['0.0.0.0:8081', ['health', 'metrics']],
    ['127.0.0.1:9101', ['debug']],
  ]);
  t.deepEqual(adminPaths(new Set(['metrics'])), ['/healthz', '/readyz', '/metrics']);
  t.deepEqual(adminPaths(new Set(['debug'])), ['/healthz', '/readyz', '/debug/ui', '/debug/xds', '/debug/clients', '/debug/ir', '/debug/gateway-api']);
});

test('the default debug address in use: a warning and no debug server; the other servers still start', async (t) => {
  const port = await takenPort(t);
  const lines: Record<string, unknown>[] = [];
  const servers = await startAdminServers({ health: '127.0.0.1:0', debug: `127.0.0.1:${port}`, debugIsDefault: true }, content(lines));
  t.teardown(() => Promise.all(servers.map((s) => s.close())));
  t.is(servers.length, 1);
  t.is((await fetch(`${servers[0]!.url}/healthz`)).status, 200);
  t.is((await fetch(`${servers[0]!.url}/debug/ui`)).status, 404);
  t.true(lines.some((l) => l['level'] === 40 && l['address'] === `127.0.0.1:${port}`));
});

test('a debug address given on the command line must bind: the error names the flag, nothing is left listening', async (t) => {
  const port = await takenPort(t);
  const lines: Record<string, unknown>[] = [];
  const error = await t.throwsAsync(startAdminServers({ health: '127.0.0.1:0', debug: `127.0.0.1:${port}` }, content(lines)));
  t.regex(error!.message, new RegExp(`^--debug-address 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
  // The health server that had started was closed again.
  const started = lines.find((l) => l['msg'] === 'admin endpoints listening')!;
  await t.throwsAsync(fetch(`http://127.0.0.1:${String(started['port'])}/healthz`));
});
