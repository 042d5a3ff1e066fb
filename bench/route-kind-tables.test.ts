import test from 'ava';
import type { KubeApplyStages, KubeConvergenceResult } from './kube-convergence.js';
import type { PeersRow } from './peers-results.js';
import { kubeApplyColumns, kubeApplyRowsByKind, kubeOneRouteColumns, kubeOneRouteRowsByKind, scaleColumns, scaleRowsByKind, switchColumns, switchRowsByKind, type HttpRouteKubeResult, type HttpRouteScaleResult } from './route-kind-tables.js';
import type { Summary } from './stats.js';
import type { TranslationScaleResult } from './translation-scale.js';

const s = (median: number, p99 = median * 2): Summary => ({ runs: 20, median, p99, min: median / 2, max: p99 });
const stages = (base: number): Record<keyof KubeApplyStages, Summary> => ({ api: s(base), watch: s(base + 1), build: s(base + 2), ordering: s(base + 3), envoyApply: s(base + 4), firstOk: s(base + 5) });
const bytes = { listener: 2048, routeConfiguration: 0, virtualHost: 4096, cluster: 1024, clusterLoadAssignment: 512, secret: 0, extensionConfig: 3072 };
const scale = { routes: 50000, buildMs: s(700), buildCpuMs: s(800), firstBuild: { wallMs: 1100, cpuMs: 1300 }, phasesMs: { translateAndEnvoyBuilders: 600, snapshotUpdate: 100 }, heapAfterGcMiB: 150, rssMiB: 350, encodedBytes: bytes, resources: bytes };

test('the full builds of both kinds share one table: the Ingress sizes, then the HTTPRoute ones, labelled', (t) => {
  const ingress: TranslationScaleResult[] = [{ ingresses: 10000, ...scale }];
  const httpRoutes: HttpRouteScaleResult[] = [{ httpRoutes: 10000, ...scale, buildMs: s(900) }];
  const rows = scaleRowsByKind(ingress, httpRoutes);
  t.deepEqual(rows.map((r) => r[0]), ['10000 Ingresses', '10000 HTTPRoutes']);
  t.deepEqual(rows[1]!.slice(1, 4), [50000, 900, 1800]);
  // KiB columns: listener 2, RDS 0, VHDS 4 ...
  t.deepEqual(rows[0]!.slice(10), [2, 0, 4, 1, 0.5, 0, 3]);
  for (const row of rows) t.is(row.length, scaleColumns.length + 1);
});

test('the Kubernetes-mode rows of both kinds: creates with their stages, and the one-object creates', (t) => {
  const ingress: KubeConvergenceResult[] = [{ existingRoutes: 5040, existingIngresses: 1000, loadSeconds: 30, applyTo200Ms: s(60), stages: stages(1), oneIngress: { applyTo200Ms: s(40), stages: stages(10) } }];
  const httpRoutes: HttpRouteKubeResult[] = [{ existingRoutes: 5012, existingHttpRoutes: 1002, loadSeconds: 31, applyTo200Ms: s(70), stages: stages(2), oneHttpRoute: { applyTo200Ms: s(45), stages: stages(20) } }];
  const apply = kubeApplyRowsByKind(ingress, httpRoutes);
  t.deepEqual(apply[1], [5012, '1002 HTTPRoutes', 31, 20, 70, 140, 2, 3, 4, 5, 6, 7]);
  t.is(apply[0]![1], '1000 Ingresses');
  const one = kubeOneRouteRowsByKind(ingress, httpRoutes);
  t.deepEqual(one[0], [5040, '1000 Ingresses', 20, 40, 80, 10, 11, 12, 13, 14, 15]);
  t.deepEqual(one[1]!.slice(0, 5), [5012, '1002 HTTPRoutes', 20, 45, 90]);
  for (const row of apply) t.is(row.length, kubeApplyColumns.length);
  for (const row of one) t.is(row.length, kubeOneRouteColumns.length);
});

test('the backend switches under load: standalone Ingress, Ingress through the API per peers size, HTTPRoute; missing ones left out', (t) => {
  const peers: PeersRow[] = [
    { existingRoutes: 0, existingIngresses: 0, ours: { switchLoad: { switches: 10, requests: 900, non2xx: 0, byStatus: { 200: 900 } }, routeSwitchMs: s(30) }, contour: {} },
    { existingRoutes: 5040, existingIngresses: 1000, ours: { failed: 'timed out' }, contour: {} },
  ];
  const rows = switchRowsByKind(
    { changes: 10, requests: 7681, non2xx: 0, byStatus: { 200: 7681 }, failedLog: [] },
    peers,
    { existingRoutes: 5012, routeSwitchMs: s(35), switchLoad: { switches: 10, requests: 1000, non2xx: 2, byStatus: { 200: 998, 503: 2 } } },
  );
  t.deepEqual(rows, [
    ['Ingress', 'manifest file rewritten (standalone)', '-', 10, 7681, 0, '-', '-'],
    ['Ingress', 'PUT through the API', 0, 10, 900, 0, 30, 60],
    ['HTTPRoute', 'merge patch through the API', 5012, 10, 1000, 2, 35, 70],
  ]);
  for (const row of rows) t.is(row.length, switchColumns.length);
  t.deepEqual(switchRowsByKind(undefined, [], undefined), []);
});
