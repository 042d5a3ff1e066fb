// Ad-hoc entry for one scenario while developing: node dist/bench/quick.js incremental 1000
//   routes <ingresses> [changes]: one-path changes of one Ingress at a time through ConfigBuilder into a snapshot
//   cache (what the reconciler does), median and p90 build ms of the changes after the first 10.
//   new <ingresses> [creates]: one new Ingress (a new host, one path) for a Service already served, one at a time, as
//   in the Kubernetes-mode one-Ingress apply; median and p90 build ms after the first 10.
//   tls <ingresses> [creates]: a tenant adding a host with its certificate, one at a time: its Secret (one build),
//   then its TLS Ingress with Service and EndpointSlice (one build); median and p90 ms of both builds together,
//   and the build kinds.
import { ConfigBuilder } from '../controller/pipeline/config-builder.js';
import type { ClusterState, Ingress } from '../controller/translate/shared/kube-objects.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { benchCertificate } from './bench-certs.js';
import { benchReconcileOptions } from './translation-scale.js';
import { ingressManifest } from './convergence.js';
import { runIncrementalCost } from './incremental-cost.js';
import { seededRandom, syntheticCluster, syntheticIngress, syntheticSecret, syntheticService, syntheticSlice } from './synthetic-cluster.js';

const [what, size] = [process.argv[2], Number(process.argv[3] ?? 1000)];
const a = await benchCertificate();
const b = await benchCertificate();
if (what === 'incremental') {
  const state = syntheticCluster({ ingresses: size, tls: a });
  console.log(JSON.stringify(await runIncrementalCost(state, 5, [a, b]), null, 1));
}
if (what === 'convergence') {
  const { runConvergence } = await import('./convergence.js');
  console.log(JSON.stringify(await runConvergence([0, size], 5, a, true), null, 1));
}
/**
 * The synthetic cluster of `size` Ingresses, fully built by a ConfigBuilder publishing into a snapshot cache (what
 * the reconciler does); `timed` measures one step of builds, `build` makes one and records its kind.
 */
function timedBuilds(): { initial: ClusterState; cache: SnapshotCache; kinds: Set<string>; times: number[]; build: (next: ClusterState) => void; timed: (step: () => void) => void } {
  const initial = syntheticCluster({ ingresses: size, tls: a });
  const cache = new SnapshotCache();
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(initial, (u) => cache.update(u));
  const kinds = new Set<string>();
  const times: number[] = [];
  const build = (next: ClusterState): void => void kinds.add(builder.build(next, (u) => cache.update(u)).built.kind);
  const timed = (step: () => void): void => {
    const t0 = performance.now();
    step();
    times.push(performance.now() - t0);
  };
  return { initial, cache, kinds, times, build, timed };
}

/** Median and p90 (ms) of `times` after the first `warmUp`. */
function quantiles(times: readonly number[], warmUp: number): { medianMs: string; p90Ms: string } {
  const sorted = times.slice(Math.min(warmUp, times.length - 1)).sort((x, y) => x - y);
  const at = (q: number): string => sorted[Math.floor(sorted.length * q)]!.toFixed(1);
  return { medianMs: at(0.5), p90Ms: at(0.9) };
}

/**
 * `count` builds, each of the state `next` makes from the one before (the i-th change), timed one by one; prints
 * the median and p90 after the first 10, labelled `label`.
 */
function timeEachChange(label: string, count: number, next: (state: ClusterState, i: number) => ClusterState): void {
  const { initial, cache, kinds, times, build, timed } = timedBuilds();
  let state = initial;
  for (let i = 0; i < count; i++) {
    state = next(state, i);
    const built = state;
    timed(() => build(built));
  }
  console.log(JSON.stringify({ ingresses: size, [label]: count, builds: [...kinds], ...quantiles(times, 10), lastEncoded: cache.lastEncoded }));
}

if (what === 'routes') {
  timeEachChange('changes', Number(process.argv[4] ?? 100), (state, i) => {
    const at = (i * 37) % size;
    const changed = structuredClone(state.ingresses[at]!);
    changed.spec!.rules![0]!.http!.paths[0]!.path = `/changed-${i}`;
    return { ...state, ingresses: state.ingresses.map((ing, j) => (j === at ? changed : ing)) };
  });
}
if (what === 'new') {
  timeEachChange('creates', Number(process.argv[4] ?? 100), (state, i) => {
    const ingress = ingressManifest(`new-${i}`, `new-${i}.converge.test`, state.services[0]!.metadata.name) as Ingress;
    return { ...state, ingresses: [...state.ingresses, ingress] };
  });
}
if (what === 'tls') {
  const creates = Number(process.argv[4] ?? 40);
  const { initial, cache, kinds, times, build, timed } = timedBuilds();
  let state = initial;
  const random = seededRandom(size);
  for (let i = size; i < size + creates; i++) {
    timed(() => {
      state = { ...state, secrets: [...state.secrets, syntheticSecret(i, a)] };
      build(state);
      state = {
        ...state,
        ingresses: [...state.ingresses, syntheticIngress(i, random, true)],
        services: [...state.services, syntheticService(i)],
        endpointSlices: [...state.endpointSlices, syntheticSlice(i, 3)],
      };
      build(state);
    });
  }
  const { medianMs, p90Ms } = quantiles(times, 5);
  console.log(JSON.stringify({ ingresses: size, creates, builds: [...kinds], medianMsPerCreate: medianMs, p90MsPerCreate: p90Ms, lastEncoded: cache.lastEncoded }));
}
process.exit(0);
