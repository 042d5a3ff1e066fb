// Ad-hoc entry for one scenario while developing: node dist/bench/quick.js incremental 1000
//   routes <ingresses> [changes]: one-path changes of one Ingress at a time through ConfigBuilder into a snapshot
//   cache (what the reconciler does), median and p90 build ms of the changes after the first 10.
//   tls <ingresses> [creates]: a tenant adding a host with its certificate, one at a time: its Secret (one build),
//   then its TLS Ingress with Service and EndpointSlice (one build); median and p90 ms of both builds together,
//   and the build kinds.
import { ConfigBuilder } from '../controller/pipeline/config-builder.js';
import type { ClusterState } from '../controller/translate/kube-objects.js';
import { SnapshotCache } from '../xds/snapshot-cache.js';
import { benchCertificate } from './bench-certs.js';
import { benchReconcileOptions } from './translation-scale.js';
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
if (what === 'routes') {
  const changes = Number(process.argv[4] ?? 100);
  let state: ClusterState = syntheticCluster({ ingresses: size, tls: a });
  const cache = new SnapshotCache();
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(state, (u) => cache.update(u));
  const times: number[] = [];
  const kinds = new Set<string>();
  for (let i = 0; i < changes; i++) {
    const at = (i * 37) % size;
    const changed = structuredClone(state.ingresses[at]!);
    changed.spec!.rules![0]!.http!.paths[0]!.path = `/changed-${i}`;
    state = { ...state, ingresses: state.ingresses.map((ing, j) => (j === at ? changed : ing)) };
    const t0 = performance.now();
    const { built } = builder.build(state, (u) => cache.update(u));
    times.push(performance.now() - t0);
    kinds.add(built.kind);
  }
  const sorted = times.slice(Math.min(10, times.length - 1)).sort((x, y) => x - y);
  const at = (q: number): string => sorted[Math.floor(sorted.length * q)]!.toFixed(1);
  console.log(JSON.stringify({ ingresses: size, changes, builds: [...kinds], medianMs: at(0.5), p90Ms: at(0.9), lastEncoded: cache.lastEncoded }));
}
if (what === 'tls') {
  const creates = Number(process.argv[4] ?? 40);
  let state: ClusterState = syntheticCluster({ ingresses: size, tls: a });
  const cache = new SnapshotCache();
  const builder = new ConfigBuilder(benchReconcileOptions);
  builder.build(state, (u) => cache.update(u));
  const times: number[] = [];
  const kinds = new Set<string>();
  const random = seededRandom(size);
  for (let i = size; i < size + creates; i++) {
    const t0 = performance.now();
    state = { ...state, secrets: [...state.secrets, syntheticSecret(i, a)] };
    kinds.add(builder.build(state, (u) => cache.update(u)).built.kind);
    state = {
      ...state,
      ingresses: [...state.ingresses, syntheticIngress(i, random, true)],
      services: [...state.services, syntheticService(i)],
      endpointSlices: [...state.endpointSlices, syntheticSlice(i, 3)],
    };
    kinds.add(builder.build(state, (u) => cache.update(u)).built.kind);
    times.push(performance.now() - t0);
  }
  const sorted = times.slice(Math.min(5, times.length - 1)).sort((x, y) => x - y);
  const at = (q: number): string => sorted[Math.floor(sorted.length * q)]!.toFixed(1);
  console.log(JSON.stringify({ ingresses: size, creates, builds: [...kinds], medianMsPerCreate: at(0.5), p90MsPerCreate: at(0.9), lastEncoded: cache.lastEncoded }));
}
process.exit(0);
