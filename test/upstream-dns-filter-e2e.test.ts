// Issue 25 item 1, the resolved-address check: Envoy resolves upstream names only through the controller's DNS
// filter (--upstream-dns-filter), which leaves out loopback and link-local answers. `run --envoy` as a user would
// start it, with the filter asking a test resolver that maps a tenant's names to 127.0.0.1 (where an echo backend
// listens), to the cloud metadata address, to a mix, and to a public address. The loopback name gets 503 and
// the backend is never reached; Envoy's clusters (its admin /clusters) hold only the non-local addresses.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import test from 'ava';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { findEnvoyBinary } from './harness/envoy-binary.js';
import { startFakeDns } from './harness/fake-dns.js';
import { httpGet } from './harness/http-client.js';
import { findRepoRoot } from './harness/repo-root.js';
import { createTempDir } from './harness/temp-dir.js';
import { waitFor } from './harness/wait.js';
import { ingress, ingressClass, toYaml } from './fixtures/manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

function adminGet(socketPath: string, urlPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: urlPath }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (s: string) => (body += s));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

test('names resolving to loopback or link-local addresses give Envoy no such address; others resolve as usual', async (t) => {
  t.timeout(120_000);
  const echo = await useEchoBackend(t, { service: 'loopback-echo' });
  const dns = await startFakeDns({
    'loopback.attacker.test': ['127.0.0.1', '::1'],
    'metadata.attacker.test': ['169.254.169.254'],
    'mixed.attacker.test': ['127.0.0.1', '192.0.2.11'],
    'public.attacker.test': ['192.0.2.10'],
  });
  t.teardown(() => dns.close());
  const names = ['loopback', 'metadata', 'mixed', 'public'];
  const dir = await createTempDir();
  t.teardown(() => dir.remove());
  await writeFile(
    dir.file('tenant.yaml'),
    toYaml([
      ingressClass(),
      ...names.flatMap((n) => [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: n, namespace: 'default' }, spec: { type: 'ExternalName', externalName: `${n}.attacker.test`, ports: [{ name: 'p', port: echo.port }] } },
        ingress(n, { rules: [{ host: `${n}.test`, paths: [{ path: '/', service: n, port: echo.port }] }] }),
      ]),
    ]),
  );
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      path.join(findRepoRoot(), 'dist/cli/main.js'), 'run', '--manifests', dir.path, '--envoy', '--allow-external-name',
      '--upstream-dns-filter', '127.0.0.1:0', '--upstream-dns-servers', `127.0.0.1:${dns.port}`,
      '--http-port', String(httpPort), '--https-port', String(httpsPort), '--listen-address', '127.0.0.1', '--debug-address', 'off',
    ],
    { env: { ...process.env, ENVOY_BIN: await findEnvoyBinary() }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // SIGTERM first: the CLI removes its private socket directory on exit (SIGKILL would leave it behind).
  t.teardown(async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  });
  t.teardown(() => {
    if (!t.passed) t.log(output.slice(-4000));
  });

  // Envoy asked (through the filter) for every name, and has the public one's address.
  const adminSocket = await waitFor(() => /"address":"unix:([^"]+)\/xds\.sock"/.exec(output)?.[1], { description: 'the socket directory', timeoutMs: 30_000 });
  const admin = path.join(adminSocket, 'admin.sock');
  const clusters = await waitFor(
    async () => {
      const text = await adminGet(admin, '/clusters').catch(() => '');
      return text.includes('192.0.2.10') && text.includes('192.0.2.11') ? text : undefined;
    },
    { description: 'Envoy resolved the public names', timeoutMs: 60_000, intervalMs: 250 },
  );
  for (const n of names) t.true(dns.asked.includes(`${n}.attacker.test`), `${n} asked`);
  const hostsOf = (n: string): string[] =>
    [...new Set(clusters.split('\n').filter((l) => l.startsWith(`default/${n}/`) && l.includes('::cx_active::')).map((l) => l.split('::')[1]!))].sort();
  t.deepEqual(hostsOf('public'), [`192.0.2.10:${echo.port}`]);
  t.deepEqual(hostsOf('mixed'), [`192.0.2.11:${echo.port}`]);
  t.deepEqual(hostsOf('loopback'), []);
  t.deepEqual(hostsOf('metadata'), []);
  // The route to the loopback name has no backend to go to; the echo backend on 127.0.0.1 hears nothing.
  const res = await httpGet({ port: httpPort, hostHeader: 'loopback.test', path: '/' });
  t.is(res.status, 503);
  t.not(res.json?.service, 'loopback-echo');
  t.regex(output, /upstream name resolves to a loopback or link-local address/);
});
