// Ad-hoc measure (not part of `npm run bench`): what one config change costs requests already flowing. With N
// existing Ingresses served in standalone mode, one process requests an existing host through Envoy without pause
// (latency-sampler-main.ts) while new Ingresses are applied one at a time; reported: that host's latency away from
// the applies and while each apply is converging (write -> first 200 of the new host, plus 300 ms).
//   node --expose-gc --max-old-space-size=8192 dist/bench/apply-stall.js <ingresses> [applies] [envoy workers]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCertificate } from './bench-certs.js';
import { appManifest, existingManifest, largeConfigOverload, loadExisting, loadIngressClass, progress, timeApplies, writeAtomically } from './convergence.js';
import { startEchoProcess } from './echo-process.js';
import { startEnvoyStack } from './envoy-stack.js';
import { startStatusPoller } from './status-poller.js';
import { hostOf } from './synthetic-cluster.js';

const [n, runs, workers] = [Number(process.argv[2] ?? 10000), Number(process.argv[3] ?? 5), Number(process.argv[4] ?? 1)];
const tls = await benchCertificate();
const backend = await startEchoProcess('bench-a');
const poller = await startStatusPoller();
const stack = await startEnvoyStack({ concurrency: workers, overload: largeConfigOverload });
const samplesFile = join(stack.dir, 'samples.json');
try {
  await loadIngressClass(stack);
  await loadExisting(stack, existingManifest(n, tls, backend.port).text, n, 1_800_000);
  progress(`apply stall: ${n} Ingresses served; sampling an existing host while ${runs} Ingresses are applied`);
  const sampler = spawn(process.execPath, [fileURLToPath(new URL('./latency-sampler-main.js', import.meta.url)), String(stack.httpPort), hostOf(1, 0), samplesFile], { stdio: ['pipe', 'inherit', 'inherit'] });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const starts: number[] = [];
  const applies = await timeApplies(stack, poller, runs, async (name, host) => {
    const startMs = performance.now();
    starts.push(performance.timeOrigin + startMs);
    await writeAtomically(join(stack.dir, `${name}.yaml`), appManifest(name, host, backend));
    return { startMs, handedMs: startMs };
  });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  sampler.stdin.write('stop\n');
  await new Promise((resolve) => sampler.once('exit', resolve));
  const samples = JSON.parse(readFileSync(samplesFile, 'utf8')) as [number, number, number][];
  const windows = starts.map((start, i) => [start, start + applies[i]!.totalMs + 300] as const);
  const inWindow = (s: [number, number, number], [from, to]: readonly [number, number]): boolean => s[0] + s[1] >= from && s[0] <= to;
  const summary = (list: [number, number, number][]): string => {
    const ms = list.map((s) => s[1]).sort((a, b) => a - b);
    const at = (q: number): string => (ms[Math.min(ms.length - 1, Math.floor(ms.length * q))] ?? 0).toFixed(2);
    return `${ms.length} requests, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
  };
  console.log(`${n} Ingresses, Envoy with ${workers} worker(s); applies (write -> first 200 of the new host): ${applies.map((a) => a.totalMs.toFixed(0)).join(', ')} ms`);
  console.log(`existing host, away from the applies: ${summary(samples.filter((s) => !windows.some((w) => inWindow(s, w))))}`);
  for (const [i, w] of windows.entries()) console.log(`existing host, during apply ${i + 1}: ${summary(samples.filter((s) => inWindow(s, w)))}`);
  console.log(`non-2xx: ${samples.filter((s) => s[2] < 200 || s[2] > 299).length} of ${samples.length}`);
} finally {
  await stack.stop();
  await poller.close();
  await backend.close();
}
process.exit(0);
