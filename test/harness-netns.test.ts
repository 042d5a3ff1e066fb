/**
 * Test hosts (network namespaces on a veth /30) against the real kernel via iproute2: unique names and
 * addresses, echo backends that live inside the namespace and answer from the root namespace at the host's
 * address only, and nothing left behind by destroy(), by a process exiting early, or by a killed process.
 * Needs root, like the Kubernetes tests that use these hosts.
 */
import { execFile, spawn } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { httpGet } from './harness/http-client.js';
import { isProcessAlive } from './harness/netns-cleanup.js';
import { cleanupStaleTestHosts, createTestHost, TestHostsUnavailableError, type TestHost } from './harness/netns-host.js';
import { runIp } from './harness/netns-ip.js';
import {
  MAX_INTERFACE_NAME_LENGTH,
  parseTestHostInterface,
  parseTestHostNamespace,
  planTestHost,
} from './harness/netns-naming.js';
import { waitFor } from './harness/wait.js';

const netnsHostModule = fileURLToPath(new URL('./harness/netns-host.js', import.meta.url));

async function withHost<T>(fn: (host: TestHost) => Promise<T>): Promise<T> {
  const host = await createTestHost();
  try {
    return await fn(host);
  } finally {
    await host.destroy();
  }
}

async function namespaceExists(name: string): Promise<boolean> {
  const list = await runIp(['netns', 'list']);
  return list.stdout.split('\n').some((line) => line.split(/\s+/)[0] === name);
}

async function linkExists(name: string): Promise<boolean> {
  return (await runIp(['link', 'show', 'dev', name])).code === 0;
}

async function routeExists(subnetPrefix: string): Promise<boolean> {
  return (await runIp(['-4', 'route', 'show'])).stdout.split('\n').some((line) => line.startsWith(`${subnetPrefix}/30 `));
}

/** Where a TCP connection attempt ends: refused, or the first bytes of whatever answered. */
function probe(host: string, port: number): Promise<{ refused: true } | { refused: false; reply: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.end('GET / HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('end', () => resolve({ refused: false, reply }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') resolve({ refused: true });
      else reject(error);
    });
  });
}

/** Runs an ES module snippet in a fresh node process; resolves with its exit and output. */
function runNodeSnippet(
  source: string,
  opts: { env?: NodeJS.ProcessEnv; wrapper?: string[] } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = opts.wrapper?.[0] ?? process.execPath;
  const args = [...(opts.wrapper?.slice(1) ?? []), ...(opts.wrapper ? [process.execPath] : []), '--input-type=module', '-e', source];
  return new Promise((resolve) => {
    execFile(command, args, { env: opts.env ?? process.env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

test('planTestHost: interface names fit Linux limits at the largest pid, and the /30 holds both addresses', (t) => {
  const plan = planTestHost(4_194_304, 99_999);
  t.true(plan.hostInterface.length <= MAX_INTERFACE_NAME_LENGTH);
  t.true(plan.namespaceInterface.length <= MAX_INTERFACE_NAME_LENGTH);
  t.throws(() => planTestHost(4_194_304, 100_000), { message: /longer than 15/ });

  const small = planTestHost(1234, 5);
  t.deepEqual(small, {
    namespace: 'ei-1234-5',
    hostInterface: 'ei1234h5',
    namespaceInterface: 'ei1234n5',
    // 1234 mod 256 = 210; counter 5 is the sixth /30 of that /24.
    subnet: '10.250.210.20/30',
    hostAddress: '10.250.210.21',
    address: '10.250.210.22',
  });
  t.deepEqual(parseTestHostNamespace(small.namespace), { pid: 1234, counter: 5 });
  t.deepEqual(parseTestHostInterface(small.hostInterface), { pid: 1234, counter: 5 });
  t.is(parseTestHostNamespace('cni-1234-5'), undefined);
  t.is(parseTestHostInterface(small.namespaceInterface), undefined);
});

test('planTestHost: consecutive counters of one process get distinct /30s', (t) => {
  const subnets = new Set(Array.from({ length: 64 }, (_, counter) => planTestHost(4321, counter).subnet));
  t.is(subnets.size, 64);
});

test('two hosts at once get different addresses, and each one’s echo backend answers with its own service', async (t) => {
  const [first, second] = await Promise.all([createTestHost(), createTestHost()]);
  t.teardown(() => Promise.all([first.destroy(), second.destroy()]));
  t.not(first.name, second.name);
  t.not(first.address, second.address);
  t.not(first.hostAddress, second.hostAddress);
  t.regex(first.address, /^10\.250\.\d+\.\d+$/);

  const [web, api] = await Promise.all([first.startEcho({ service: 'web' }), second.startEcho({ service: 'api' })]);
  t.is(web.address, first.address);
  t.is(api.address, second.address);
  const fromWeb = await httpGet({ host: web.address, port: web.port, hostHeader: 'shop.example.com', path: '/a' });
  const fromApi = await httpGet({ host: api.address, port: api.port, hostHeader: 'shop.example.com', path: '/b' });
  t.is(fromWeb.json.service, 'web');
  t.is(fromWeb.json.path, '/a');
  t.is(fromApi.json.service, 'api');

  // Inside, the namespace has its address on its veth end, and a loopback that is up.
  const inside = await first.exec('ip', ['-4', '-o', 'address', 'show']);
  t.is(inside.code, 0, inside.stderr);
  t.regex(inside.stdout, new RegExp(`inet ${first.address.replaceAll('.', '\\.')}/30`));
  t.regex((await first.exec('ip', ['-o', 'link', 'show', 'lo'])).stdout, /<LOOPBACK,UP[,>]/);
});

test('several echo backends share one host on different ports', async (t) => {
  await withHost(async (host) => {
    const [cart, users] = await Promise.all([host.startEcho({ service: 'cart' }), host.startEcho({ service: 'users' })]);
    t.not(cart.port, users.port);
    const replies = await Promise.all(
      [cart, users].map((echo) => httpGet({ host: host.address, port: echo.port, hostHeader: 'h', path: '/' })),
    );
    t.deepEqual(replies.map((reply) => reply.json.service), ['cart', 'users']);
    t.deepEqual(replies.map((reply) => reply.headers['x-echo-service']), ['cart', 'users']);
  });
});

test('an echo backend on a chosen port listens there', async (t) => {
  await withHost(async (host) => {
    // Inside a fresh namespace every port is free, whatever the root namespace uses.
    const echo = await host.startEcho({ service: 'fixed', port: 8080 });
    t.is(echo.port, 8080);
    t.is((await httpGet({ host: host.address, port: 8080, hostHeader: 'h', path: '/' })).json.service, 'fixed');
  });
});

test('the echo backend really runs inside the namespace: not on 127.0.0.1 of the root namespace', async (t) => {
  await withHost(async (host) => {
    const service = `inside-${process.pid}`;
    const echo = await host.startEcho({ service });
    t.not(readlinkSync(`/proc/${echo.pid}/ns/net`), readlinkSync('/proc/self/ns/net'));
    const onLoopback = await probe('127.0.0.1', echo.port);
    // Another test may own that port on the root loopback; what matters is that our backend is not there.
    t.false(!onLoopback.refused && onLoopback.reply.includes(service), 'the backend answered on the root 127.0.0.1');
    // Inside the namespace its own loopback does not reach it either: it listens on the veth address only.
    const insideLoopback = await host.exec(process.execPath, [
      '-e',
      `require('node:net').connect(${echo.port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3); })`,
    ]);
    t.is(insideLoopback.code, 3);
    t.is(insideLoopback.stdout.trim(), 'ECONNREFUSED');
    t.is((await httpGet({ host: host.address, port: echo.port, hostHeader: 'h', path: '/' })).json.service, service);
  });
});

test('destroy() stops the backends and removes the namespace, the veth pair and the route', async (t) => {
  const host = await createTestHost();
  const echo = await host.startEcho({ service: 'gone' });
  const subnetPrefix = host.hostAddress.replace(/\.(\d+)$/, (_, last: string) => `.${Number(last) - 1}`);
  t.true(await namespaceExists(host.name));
  t.true(await linkExists(host.hostInterface));
  t.true(await routeExists(subnetPrefix));

  await host.destroy();
  t.false(await namespaceExists(host.name));
  t.false(await linkExists(host.hostInterface));
  t.false(await routeExists(subnetPrefix));
  t.false(isProcessAlive(echo.pid));
  await host.destroy();
  await t.throwsAsync(host.startEcho({ service: 'late' }), { message: /destroyed/ });
});

test('a process that exits without destroy() leaves no namespace, veth or backend behind', async (t) => {
  const result = await runNodeSnippet(`
    import { createTestHost } from ${JSON.stringify(netnsHostModule)};
    const host = await createTestHost();
    const echo = await host.startEcho({ service: 'forgotten' });
    console.log(JSON.stringify({ name: host.name, hostInterface: host.hostInterface, pid: echo.pid }));
    process.exit(0);
  `);
  t.is(result.code, 0, result.stderr);
  const left = JSON.parse(result.stdout) as { name: string; hostInterface: string; pid: number };
  t.false(await namespaceExists(left.name));
  t.false(await linkExists(left.hostInterface));
  await waitFor(() => !isProcessAlive(left.pid), { description: `backend ${left.pid} to be gone` });
  t.pass();
});

test('after a process is killed, its backend exits by itself and cleanupStaleTestHosts() removes its host', async (t) => {
  const mine = await createTestHost();
  t.teardown(() => mine.destroy());
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    import { createTestHost } from ${JSON.stringify(netnsHostModule)};
    const host = await createTestHost();
    const echo = await host.startEcho({ service: 'orphan' });
    console.log(JSON.stringify({ name: host.name, hostInterface: host.hostInterface, pid: echo.pid }));
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('close', resolve));
  const firstLine = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`child exited early (${String(code)})`)));
  });
  const left = JSON.parse(firstLine) as { name: string; hostInterface: string; pid: number };
  child.kill('SIGKILL');
  await exited;
  t.true(await namespaceExists(left.name), 'SIGKILL skips the exit hook, so the namespace is still there');
  // Its stdin pipe closed with the parent, which is the backend's signal to quit.
  await waitFor(() => !isProcessAlive(left.pid), { description: `orphaned backend ${left.pid} to exit` });

  await cleanupStaleTestHosts();
  t.false(await namespaceExists(left.name));
  t.false(await linkExists(left.hostInterface));
  // Hosts of live processes stay.
  t.true(await namespaceExists(mine.name));
  t.true(await linkExists(mine.hostInterface));
});

test('createTestHost() moves on to the next name and /30 when the namespace or the subnet is taken', async (t) => {
  // The child takes its own first two plans before creating a host: counter 0's /30 through a route on a
  // spare veth (no dummy driver here), counter 1's namespace name.
  const result = await runNodeSnippet(`
    import { execFileSync } from 'node:child_process';
    import { createTestHost } from ${JSON.stringify(netnsHostModule)};
    import { planTestHost } from ${JSON.stringify(fileURLToPath(new URL('./harness/netns-naming.js', import.meta.url)))};
    const ip = (...args) => execFileSync('ip', args, { stdio: 'ignore' });
    const blocker = 'eid' + process.pid;
    const [zero, one] = [planTestHost(process.pid, 0), planTestHost(process.pid, 1)];
    ip('link', 'add', blocker, 'type', 'veth', 'peer', 'name', 'eie' + process.pid);
    ip('link', 'set', blocker, 'up');
    ip('route', 'add', zero.subnet, 'dev', blocker);
    ip('netns', 'add', one.namespace);
    try {
      const host = await createTestHost();
      console.log(JSON.stringify({ name: host.name, address: host.address, taken: [zero.address, one.address] }));
      const echo = await host.startEcho({ service: 'third-try' });
      const reply = await fetch(echo.url);
      console.log(JSON.stringify(await reply.json()));
      await host.destroy();
    } finally {
      ip('link', 'delete', blocker);
      ip('netns', 'delete', one.namespace);
    }
  `);
  t.is(result.code, 0, result.stderr);
  const [created, reply] = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
  t.regex(created!['name'], /^ei-\d+-2$/);
  t.false((created!['taken'] as string[]).includes(created!['address']));
  t.is(reply!['service'], 'third-try');
});

test('createTestHost() says clearly when ip is missing or the user may not create namespaces', async (t) => {
  const snippet = `
    import { createTestHost } from ${JSON.stringify(netnsHostModule)};
    try { await createTestHost(); console.log('created'); } catch (error) { console.log(error.name + ': ' + error.message); }
  `;
  const noIp = await runNodeSnippet(snippet, { env: { ...process.env, PATH: '/nonexistent' } });
  t.regex(noIp.stdout, /^TestHostsUnavailableError: .*needs root.*the `ip` command was not found on PATH .*install iproute2/);

  const notRoot = await runNodeSnippet(snippet, {
    // Root without capabilities (an empty bounding set), rather than another user: another user may not be
    // able to read a checkout in a private directory (mktemp -d is 0700).
    wrapper: ['setpriv', '--bounding-set=-all', '--inh-caps=-all'],
  });
  t.is(notRoot.code, 0, notRoot.stderr);
  t.regex(notRoot.stdout, /^TestHostsUnavailableError: .*needs root \(CAP_SYS_ADMIN and CAP_NET_ADMIN\); `ip netns add ei-\d+-\d+` was refused/);
  t.is(new TestHostsUnavailableError('x').name, 'TestHostsUnavailableError');
});
