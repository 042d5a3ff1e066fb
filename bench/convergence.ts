// Scenario 2: standalone mode with a real Envoy. With N existing routes, write one new Ingress manifest and
// time until Envoy answers 200 for it (polling every millisecond). Then change a route's backend back and forth
// under constant load and count non-2xx responses.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startEchoBackend } from '../test/harness/echo-backend.js';
import { startRequestLoop } from '../test/harness/request-loop.js';
import { getStatus, startEnvoyStack } from './envoy-stack.js';
import { summarize, type Summary } from './stats.js';
import { benchNamespace, objectsOf, syntheticCluster } from './synthetic-cluster.js';
import { countRoutes } from './translation-scale.js';

export interface ConvergenceResult {
  existingRoutes: number;
  existingIngresses: number;
  applyTo200Ms: Summary;
}

export interface RouteChangeResult {
  changes: number;
  requests: number;
  non2xx: number;
  byStatus: Record<string, number>;
}

function ingressesForRoutes(routes: number, tls: { certPem: string; keyPem: string }): number {
  if (routes === 0) return 0;
  let n = Math.max(1, Math.floor(routes / 5));
  while (countRoutes(syntheticCluster({ ingresses: n, tls })) < routes) n += Math.max(1, Math.floor(n / 50));
  return n;
}

/** A Service + EndpointSlice + Ingress routing `host` to `backend`, as one manifest file (written atomically). */
function appManifest(name: string, host: string, backend: { port: number }): string {
  const objects = [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: benchNamespace }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-0`, namespace: benchNamespace, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: backend.port, protocol: 'TCP' }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
    ingressManifest(name, host, name),
  ];
  return objects.map((o) => stringify(o)).join('---\n');
}

function ingressManifest(name: string, host: string, service: string): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: benchNamespace },
    spec: { ingressClassName: 'envoy-ingress', rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } }] } }] },
  };
}

function apiVersionOf(kind: string): string {
  return kind === 'Ingress' || kind === 'IngressClass' ? 'networking.k8s.io/v1' : kind === 'EndpointSlice' ? 'discovery.k8s.io/v1' : 'v1';
}

export function progress(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function until(predicate: () => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the manifest source');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

export async function runConvergence(
  routeCounts: readonly number[],
  runs: number,
  tls: { certPem: string; keyPem: string },
  withRouteChange: boolean,
): Promise<{ convergence: ConvergenceResult[]; routeChange?: RouteChangeResult }> {
  const backend = await startEchoBackend({ service: 'bench-a' });
  const other = await startEchoBackend({ service: 'bench-b' });
  const convergence: ConvergenceResult[] = [];
  let routeChange: RouteChangeResult | undefined;
  try {
    for (const routes of routeCounts) {
      const n = ingressesForRoutes(routes, tls);
      progress(`convergence: ${routes} existing routes (${n} Ingresses): starting controller and Envoy`);
      const stack = await startEnvoyStack();
      try {
        await writeAtomically(join(stack.dir, 'class.yaml'), stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'envoy-ingress' }, spec: { controller: 'envoy-ingress.io/ingress-controller' } }));
        await until(() => stack.controller.store.count('IngressClass') > 0);
        if (n > 0) {
          const state = syntheticCluster({ ingresses: n, tls, endpointAddress: () => ({ address: '127.0.0.1', port: backend.port }) });
          const existing = objectsOf({ ...state, ingressClasses: [] }).map((o) => stringify({ apiVersion: apiVersionOf((o as { kind: string }).kind), ...o })).join('---\n');
          await writeAtomically(join(stack.dir, 'existing.yaml'), existing);
          await until(() => stack.controller.store.count('Ingress') >= n);
          await stack.controller.reconciler.idle();
        }
        progress(`convergence: config with ${n} Ingresses loaded; applying new Ingresses`);
        const times: number[] = [];
        for (let r = 0; r < runs; r++) {
          const name = `new-${r}`;
          const host = `${name}.converge.test`;
          const t0 = performance.now();
          await writeAtomically(join(stack.dir, `${name}.yaml`), appManifest(name, host, backend));
          for (;;) {
            if ((await getStatus(stack.httpPort, host)) === 200) break;
            if (performance.now() - t0 > 60_000) throw new Error(`no 200 for ${host} within 60 s`);
            await new Promise((res) => setTimeout(res, 1));
          }
          times.push(performance.now() - t0);
          await stack.controller.reconciler.idle();
        }
        convergence.push({ existingRoutes: n > 0 ? countRoutes(syntheticCluster({ ingresses: n, tls })) : 0, existingIngresses: n, applyTo200Ms: summarize(times) });
        if (withRouteChange && routes === routeCounts[routeCounts.length - 1]) routeChange = await measureRouteChange(stack, backend, other);
      } finally {
        await stack.stop();
      }
    }
  } finally {
    await backend.close();
    await other.close();
  }
  return routeChange ? { convergence, routeChange } : { convergence };
}

/** Switch one route between two Services while requests flow; every response must be 2xx. */
async function measureRouteChange(stack: Awaited<ReturnType<typeof startEnvoyStack>>, a: { port: number }, b: { port: number }): Promise<RouteChangeResult> {
  const host = 'switch.converge.test';
  const file = join(stack.dir, 'switch.yaml');
  const withBackends = (service: string): string =>
    [appManifest('switch-a', 'switch-a.converge.test', a), appManifest('switch-b', 'switch-b.converge.test', b), stringify(ingressManifest('switch', host, service))].join('---\n');
  await writeAtomically(file, withBackends('switch-a'));
  while ((await getStatus(stack.httpPort, host)) !== 200) await new Promise((r) => setTimeout(r, 5));
  const loop = startRequestLoop(async () => ({ status: await getStatus(stack.httpPort, host) }), {
    concurrency: 4,
    intervalMs: 1,
    maxRequests: 1_000_000,
    maxDurationMs: 120_000,
    isSuccess: (s) => s >= 200 && s < 300,
  });
  const changes = 10;
  for (let i = 0; i < changes; i++) {
    await new Promise((r) => setTimeout(r, 300));
    await writeAtomically(file, withBackends(i % 2 === 0 ? 'switch-b' : 'switch-a'));
  }
  await new Promise((r) => setTimeout(r, 500));
  const result = await loop.stop();
  return { changes, requests: result.total, non2xx: result.failures.length, byStatus: result.byStatus };
}
