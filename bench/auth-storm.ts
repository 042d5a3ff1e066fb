// Issue 25 item 4's figures: while one tenant's clients send waves of 50 concurrent wrong-password requests against a
// bcrypt cost-14 hash (each a different password: no cache helps), how long do another tenant's logins, the
// controller's /healthz and an xDS push take? The controller runs as in a pod (`envoy-ingress run --envoy`, its
// own process, xDS and admin on Unix sockets, /healthz on loopback) with a real Envoy; this process only sends
// requests. The other tenant's logins are first logins (users u0..u999, bcrypt cost 5: each one a verification
// on a worker) and a repeated one (answered from the cache). An xDS push is the time from writing a new
// Ingress into the manifest directory to Envoy answering for its host. Each figure is measured without and then
// with the storm.
// Run: npm run build && node dist/bench/auth-storm.js [seconds=20]
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { stringify } from 'yaml';
import { findEnvoyBinary } from '../cli/validate-with-envoy.js';
import { startEchoProcess } from './echo-process.js';

const seconds = Number(process.argv[2] ?? 20);
const stormConcurrency = 50;
const otherUsers = 1000;

function get(port: number, host: string, path: string, authorization?: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path, headers: { host, ...(authorization ? { authorization } : {}) }, agent: false, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(values: number[]): string {
  return `n=${values.length} p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`;
}

async function freeTcpPort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ei-storm-'));
  const echo = await startEchoProcess('web');
  const service = (namespace: string): object[] => [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', namespace, labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: echo.port }],
      endpoints: [{ addresses: [echo.address], conditions: { ready: true } }],
    },
  ];
  const ingress = (name: string, namespace: string, annotations: Record<string, string> = {}): object => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace, annotations },
    spec: { rules: [{ host: `${name}.test`, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
  });
  const auth = (secret: string) => ({ 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': secret });
  const secret = (name: string, namespace: string, htpasswd: string): object => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', stringData: { auth: htpasswd } });
  const otherHtpasswd = Array.from({ length: otherUsers }, (_, i) => `u${i}:${bcrypt.hashSync(`pw${i}`, 5)}\n`).join('') + `repeat:${bcrypt.hashSync('again', 10)}\n`;
  const objects = [
    { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'envoy-ingress', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'envoy-ingress.io/ingress-controller' } },
    ...service('storm'),
    ...service('calm'),
    secret('storm', 'storm', `victim:${bcrypt.hashSync('the-right-one', 14)}\n`),
    ingress('storm', 'storm', auth('storm')),
    secret('calm', 'calm', otherHtpasswd),
    ingress('calm', 'calm', auth('calm')),
  ];
  await writeFile(join(dir, 'objects.yaml'), objects.map((o) => stringify(o)).join('---\n'));

  const [httpPort, httpsPort, healthPort] = [await freeTcpPort(), await freeTcpPort(), await freeTcpPort()];
  const controller = spawn(
    process.execPath,
    [
      join(import.meta.dirname, '../cli/main.js'), 'run',
      '--manifests', dir,
      '--nginx-annotations',
      '--envoy', '--envoy-bin', await findEnvoyBinary(),
      '--xds-address', `unix:${dir}/xds.sock`,
      '--envoy-admin-address', `unix:${dir}/admin.sock`,
      '--listen-address', '127.0.0.1', '--http-port', String(httpPort), '--https-port', String(httpsPort),
      '--health-address', `127.0.0.1:${healthPort}`,
      '--debug-address', 'off',
      '--max-heap-bytes', '0',
      '--log-level', 'warn',
    ],
    { stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    for (let i = 0; i < 600 && (await get(httpPort, 'calm.test', '/')) !== 401; i++) await new Promise((r) => setTimeout(r, 100));
    await get(httpPort, 'calm.test', '/', basic('repeat', 'again')); // cached from now on
    let nextUser = 0;
    let pushes = 0;
    const measure = async (label: string, durationMs: number): Promise<void> => {
      const first: number[] = [];
      const cached: number[] = [];
      const health: number[] = [];
      const push: number[] = [];
      const until = performance.now() + durationMs;
      /** Answers other than the expected one, by series and status (0: no answer in 30 s). */
      const unexpected: Record<string, number> = {};
      const timed = async (into: number[], f: () => Promise<number>, expect: number): Promise<void> => {
        const started = performance.now();
        const status = await f();
        into.push(performance.now() - started);
        if (status !== expect) {
          const key = `${into === first ? 'first login' : into === cached ? 'repeated login' : 'healthz'} ${status}`;
          unexpected[key] = (unexpected[key] ?? 0) + 1;
        }
      };
      const loop = async (intervalMs: number, step: () => Promise<void>): Promise<void> => {
        while (performance.now() < until) {
          const started = performance.now();
          await step();
          await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (performance.now() - started))));
        }
      };
      await Promise.all([
        loop(100, () => {
          const i = nextUser++ % otherUsers;
          return timed(first, () => get(httpPort, 'calm.test', '/', basic(`u${i}`, `pw${i}`)), 200);
        }),
        loop(100, () => timed(cached, () => get(httpPort, 'calm.test', '/', basic('repeat', 'again')), 200)),
        loop(50, () => timed(health, () => get(healthPort, '127.0.0.1', '/healthz'), 200)),
        loop(2000, async () => {
          const name = `push-${pushes++}`;
          const started = performance.now();
          await writeFile(join(dir, `${name}.yaml`), stringify(ingress(name, 'calm')));
          // Given up after 60 s (counted as 60 s).
          while ((await get(httpPort, `${name}.test`, '/')) !== 200 && performance.now() - started < 60_000) await new Promise((r) => setTimeout(r, 5));
          push.push(performance.now() - started);
        }),
      ]);
      console.log(`${label}:`);
      console.log(`  other tenant, first login (a verification): ${summary(first)}`);
      console.log(`  other tenant, repeated login (cache):       ${summary(cached)}`);
      console.log(`  controller /healthz:                        ${summary(health)}`);
      console.log(`  xDS push (new Ingress -> served):           ${summary(push)}`);
      if (Object.keys(unexpected).length > 0) console.log(`  unexpected answers: ${JSON.stringify(unexpected)}`);
    };
    await measure('without a storm', seconds * 1000);
    // The storm: waves of `stormConcurrency` concurrent requests, each a new wrong password; the next wave when
    // the last request of this one is answered (the ones verified take seconds, the others get 429 at once). Not a
    // flood: a client resending the moment it gets 429 is a request flood, for Envoy's rate limits.
    let stopping = false;
    const statuses = new Map<number, number>();
    let guess = 0;
    let waves = 0;
    const stormer = async (): Promise<void> => {
      while (!stopping) {
        waves += 1;
        await Promise.all(
          Array.from({ length: stormConcurrency }, async () => {
            const status = await get(httpPort, 'storm.test', '/', basic('victim', `guess-${guess++}`));
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }),
        );
      }
    };
    const storm = [stormer()];
    await new Promise((r) => setTimeout(r, 1000));
    await measure(`with ${stormConcurrency} concurrent wrong-password requests against a bcrypt cost-14 hash`, seconds * 1000);
    stopping = true;
    await Promise.all(storm);
    console.log(`  storm: ${waves} waves, answers ${JSON.stringify(Object.fromEntries(statuses))}`);
  } finally {
    controller.kill('SIGTERM');
    await new Promise((r) => controller.once('exit', r));
    await echo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
