// A rolling restart under load drops zero requests. Two "pods" (each the real CLI `run --envoy`: controller +
// supervised Envoy on its own ports) sit behind a small load balancer in this test that, like a Service, sends
// new connections only to pods whose Envoy readiness (`GET /ready` on the bootstrap's readiness listener) is
// 200. Pod A gets SIGTERM, A' starts and becomes ready, then B the same way, while requests flow throughout.
import test, { type ExecutionContext } from 'ava';
import { findEnvoyBinary } from '../cli/validate-with-envoy.js';
import { httpGet } from './harness/http-client.js';
import { startRequestLoop } from './harness/request-loop.js';
import { waitFor } from './harness/wait.js';
import { startControllerProcess, type ControllerProcess } from './fixtures/controller-process.js';
import { useWebAppManifests } from './fixtures/echo-app-manifests.js';
import { freePort } from './fixtures/standalone-stack.js';

interface Pod {
  name: string;
  process: ControllerProcess;
  httpPort: number;
  readyPort: number;
  /** What the load balancer last saw on /ready. */
  ready: boolean;
  /** Probes in a row without an answer. */
  missed: number;
}

/** Envoy's answer on /ready: 200, another status (not ready: draining), or none in time. */
async function readiness(port: number): Promise<'ready' | 'not-ready' | 'no-answer'> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(500) });
    await res.arrayBuffer();
    return res.status === 200 ? 'ready' : 'not-ready';
  } catch {
    return 'no-answer';
  }
}

async function readyStatus(port: number): Promise<boolean> {
  return (await readiness(port)) === 'ready';
}

/** Probe failures in a row that take a pod out when it gives no answer (the kubelet's failureThreshold default). */
const failureThreshold = 3;

/** The load balancer: polls every pod's readiness and picks a ready pod per request (round robin). */
class LoadBalancer {
  readonly pods = new Set<Pod>();
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  start(): void {
    const poll = async () => {
      // As a kubelet's probe: a "not ready" answer takes the pod out at once, a probe without an answer (a slow
      // machine) only after failureThreshold in a row.
      await Promise.all(
        [...this.pods].map(async (p) => {
          const answer = await readiness(p.readyPort);
          p.missed = answer === 'no-answer' ? p.missed + 1 : 0;
          if (answer !== 'no-answer' || p.missed >= failureThreshold) p.ready = answer === 'ready';
        }),
      );
      this.#timer = setTimeout(() => void poll(), 50);
    };
    void poll();
  }
  stop(): void {
    clearTimeout(this.#timer);
  }
  pick(): Pod | undefined {
    const ready = [...this.pods].filter((p) => p.ready);
    this.#next += 1;
    return ready[this.#next % Math.max(ready.length, 1)];
  }
}

async function startPod(t: ExecutionContext, name: string, manifestsDir: string, envoyBin: string): Promise<Pod> {
  const [httpPort, httpsPort, readyPort, adminPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const proc = startControllerProcess([
    '--manifests', manifestsDir,
    '--xds-address', '127.0.0.1:0',
    '--listen-address', '127.0.0.1',
    '--http-port', String(httpPort),
    '--https-port', String(httpsPort),
    '--readiness-port', String(readyPort),
    '--envoy', '--envoy-bin', envoyBin,
    '--envoy-admin-port', String(adminPort),
    '--node-id', name,
    '--drain-seconds', '2',
    '--log-level', 'info',
  ]);
  t.teardown(async () => {
    await proc.stop(10_000);
  });
  t.teardown(() => {
    if (!t.passed) t.log(`--- pod ${name} ---\n${proc.logs().slice(-4000)}`);
  });
  const pod: Pod = { name, process: proc, httpPort, readyPort, ready: false, missed: 0 };
  await waitFor(() => readyStatus(readyPort), { timeoutMs: 30_000, description: `pod ${name} ready` });
  return pod;
}

test('rolling restart of two pods under load: zero failed requests', async (t) => {
  t.timeout(120_000);
  const envoyBin = process.env['ENVOY_BIN'] ?? (await findEnvoyBinary());
  const manifests = await useWebAppManifests(t);
  const lb = new LoadBalancer();
  t.teardown(() => lb.stop());
  lb.pods.add(await startPod(t, 'a', manifests, envoyBin));
  lb.pods.add(await startPod(t, 'b', manifests, envoyBin));
  lb.start();
  await waitFor(() => [...lb.pods].every((p) => p.ready), { timeoutMs: 10_000, description: 'both pods in the balancer' });

  const served = new Map<string, number>();
  const loop = startRequestLoop(
    async () => {
      const pod = lb.pick();
      if (!pod) return { status: 0 };
      // A fresh connection per request, as a Service's L4 balancing moves connections, not requests.
      const res = await httpGet({ port: pod.httpPort, hostHeader: 'web.example.test', path: '/', agent: false });
      if (res.status === 200) served.set(pod.name, (served.get(pod.name) ?? 0) + 1);
      return res;
    },
    { concurrency: 4, intervalMs: 5, maxRequests: 100_000, maxDurationMs: 90_000, isSuccess: (s) => s >= 200 && s < 300 },
  );

  await waitFor(() => (served.get('a') ?? 0) > 50 && (served.get('b') ?? 0) > 50, { timeoutMs: 20_000, description: 'both pods serving' });
  for (const [old, replacement] of [['a', "a'"], ['b', "b'"]] as const) {
    const pod = [...lb.pods].find((p) => p.name === old)!;
    pod.process.kill('SIGTERM');
    const exit = await pod.process.exited;
    t.is(exit.code, 0, `pod ${old} exited cleanly`);
    t.truthy(pod.process.entries().find((e) => e['msg'] === 'stopped leading; draining Envoy while xDS is still served'));
    lb.pods.delete(pod);
    const next = await startPod(t, replacement, manifests, envoyBin);
    lb.pods.add(next);
    await waitFor(() => next.ready, { timeoutMs: 10_000, description: `pod ${replacement} in the balancer` });
    await waitFor(() => (served.get(replacement) ?? 0) > 20, { timeoutMs: 10_000, description: `pod ${replacement} serving` });
  }
  const result = await loop.stop();
  t.log(`requests: ${result.total}, served by pod: ${JSON.stringify(Object.fromEntries(served))}`);
  t.deepEqual(result.failures.slice(0, 10), []);
  t.true(result.total > 200);
});
