// A Kubernetes API client in its own process (as kubectl is), for the Kubernetes-mode convergence scenario: in
// the benchmark's process its requests would wait for the controller's builds on the same event loop. The
// kubeconfig path is the first argument. Commands on stdin, one JSON line each: {"objects": [...], "mode"?:
// "create" | "replace" | "patch"}, created (or replaced: PUT, for an endpoint change; or merge-patched: a custom
// resource's PUT needs its resourceVersion, a merge patch does not) in order, one request each; answer on stdout: {"startMs", "doneMs"} in CLOCK_MONOTONIC milliseconds
// (process.hrtime), comparable across processes on one machine, or {"error"}.
import { createInterface } from 'node:readline';
import { KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.argv[2] ?? '');
const api = KubernetesObjectApi.makeApiClient(kubeConfig);
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

type Mode = 'create' | 'replace' | 'patch';

function send(o: KubernetesObject, mode: Mode): Promise<KubernetesObject> {
  if (mode === 'replace') return api.replace(o);
  if (mode === 'patch') return api.patch(o, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
  return api.create(o);
}

async function sendInOrder(objects: readonly KubernetesObject[], mode: Mode): Promise<{ startMs: number; doneMs: number }> {
  const startMs = now();
  for (const o of objects) await send(o, mode);
  return { startMs, doneMs: now() };
}

// One command at a time, in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { objects, mode = 'create' } = JSON.parse(line) as { objects: KubernetesObject[]; mode?: Mode };
  queue = queue.then(async () => {
    const answer = await sendInOrder(objects, mode).catch((err: unknown) => ({ error: String(err) }));
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
lines.on('close', () => void queue.then(() => process.exit(0)));
process.stdout.write('{"ready":true}\n');
