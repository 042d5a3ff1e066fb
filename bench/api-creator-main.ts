// A Kubernetes API client in its own process (as kubectl is), for the Kubernetes-mode convergence scenario: in
// the benchmark's process its requests would wait for the controller's builds on the same event loop. The
// kubeconfig path is the first argument. Commands on stdin, one JSON line each: {"objects": [...], "replace"?:
// true}, created (or replaced: PUT, for an endpoint change) in order, one request each; answer on stdout: {"startMs", "doneMs"} in CLOCK_MONOTONIC milliseconds
// (process.hrtime), comparable across processes on one machine, or {"error"}.
import { createInterface } from 'node:readline';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.argv[2] ?? '');
const api = KubernetesObjectApi.makeApiClient(kubeConfig);
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

async function createInOrder(objects: readonly KubernetesObject[], replace: boolean): Promise<{ startMs: number; doneMs: number }> {
  const startMs = now();
  for (const o of objects) await (replace ? api.replace(o) : api.create(o));
  return { startMs, doneMs: now() };
}

// One command at a time, in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { objects, replace = false } = JSON.parse(line) as { objects: KubernetesObject[]; replace?: boolean };
  queue = queue.then(async () => {
    const answer = await createInOrder(objects, replace).catch((err: unknown) => ({ error: String(err) }));
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
lines.on('close', () => void queue.then(() => process.exit(0)));
process.stdout.write('{"ready":true}\n');
