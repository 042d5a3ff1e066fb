// `npm run bench`: runs the scenarios, writes bench/results/latest.json and prints a table.
// Sizes are scaled to finish within ~20 minutes on a 2-core machine; BENCH_QUICK=1 shrinks them further.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepoRoot } from '../test/harness/repo-root.js';
import { benchCertificate } from './bench-certs.js';
import { describeSize, parseExistingSizes, progress, runConvergence } from './convergence.js';
import { runEndpointChurn } from './endpoint-churn.js';
import { runEndpointPush } from './endpoint-push.js';
import { runManyClients } from './many-clients.js';
import { changeCostCells, changeCostColumns, ingressRouteChange, runChangeCosts, runIncrementalCost, type ChangeCost } from './incremental-cost.js';
import { collectGarbage, machine, round, table } from './stats.js';
import { syntheticCluster } from './synthetic-cluster.js';
import { benchEnvoyOptions, runScale, runTranslationScale, type TranslationScaleResult } from './translation-scale.js';
import { ensureWrk } from './wrk.js';
import { runDataPlane } from './data-plane.js';
import { runKubeConvergence } from './kube-convergence.js';
import { runPeers } from './peers.js';
import { bulkTableHeader, bulkTableRows, peersFailures, peersTableHeader, peersTableRows } from './peers-results.js';
import { existsSync, readFileSync } from 'node:fs';
import { runGatewayApiConvergence } from './gateway-api-convergence.js';
import { syntheticGatewayApiCluster, syntheticGatewayClass, withExtraPath } from './synthetic-gateway-api.js';
import {
  kubeApplyColumns, kubeApplyRowsByKind, kubeOneRouteColumns, kubeOneRouteRowsByKind, scaleCells, scaleColumns, scaleRowsByKind, switchColumns, switchRowsByKind, type GatewayApiResults,
} from './route-kind-tables.js';
import type { KubeConvergenceResult } from './kube-convergence.js';
import type { RouteChangeResult } from './convergence.js';
import type { PeersRow } from './peers-results.js';

/** The Ingress scenarios' results the Gateway API section sets its rows beside. */
interface IngressResults {
  translationScale: { sizes: TranslationScaleResult[] };
  incrementalCost: { ingresses: number; changes: ChangeCost[] };
  kubeConvergence: KubeConvergenceResult[];
  convergence: { routeChange?: RouteChangeResult };
  peers: { rows: PeersRow[] };
}

const quick = process.env['BENCH_QUICK'] === '1';
const only = (process.env['BENCH_ONLY'] ?? 'scale,incremental,convergence,kube,gateway-api,peers,endpoints,many,churn,dataplane').split(',');
// BENCH_SCALE=100,1000 picks the full-build sizes (Ingresses in `scale`, HTTPRoutes in `gateway-api`).
const scaleSizes = process.env['BENCH_SCALE']?.split(',').map(Number);
const started = Date.now();
const latest = join(findRepoRoot(), 'bench', 'results', 'latest.json');
/** The last run's results: a partial run (BENCH_ONLY) keeps the other scenarios' figures from it. */
const previous = (existsSync(latest) ? JSON.parse(readFileSync(latest, 'utf8')) : {}) as Record<string, unknown>;
const results: Record<string, unknown> = { machine: machine(), startedAt: new Date().toISOString(), quick };
const out: string[] = [];
const certA = await benchCertificate();
const certB = await benchCertificate();

/** Seconds each scenario took (with its set-up), so a run shows where the 20 minutes go. */
const scenarioSeconds: Record<string, number> = {};
let lastLap = Date.now();
function lap(scenario: string): void {
  scenarioSeconds[scenario] = round((Date.now() - lastLap) / 1000, 1);
  lastLap = Date.now();
}

if (!collectGarbage()) progress('note: run node with --expose-gc for heap-after-GC figures');

if (only.includes('scale')) {
  // 50,000 Ingresses: about 100,000 hosts and 5,000 TLS Secrets (issue 18), 250,000 routes.
  const sizes = scaleSizes ?? (quick ? [100, 1000] : [100, 1000, 10000, 50000]);
  progress(`translation scale: ${sizes.join(', ')} Ingresses`);
  const scale = runTranslationScale(sizes, (n) => (n >= 50000 ? 2 : n >= 10000 ? 3 : n >= 1000 ? 5 : 10), certA);
  const at = (n: number) => scale.find((s) => s.ingresses === n);
  const growth = at(1000) && at(10000) ? round(at(10000)!.buildCpuMs.median / at(1000)!.buildCpuMs.median) : undefined;
  const growth50k = at(10000) && at(50000) ? round(at(50000)!.buildCpuMs.median / at(10000)!.buildCpuMs.median) : undefined;
  results['translationScale'] = { sizes: scale, growth1kTo10kCpu: growth, growth10kTo50kCpu: growth50k };
  out.push('## 1. Translation scale (full build: translate + Envoy builders + encode into the snapshot cache)');
  out.push(
    table(['Ingresses', ...scaleColumns], scale.map((s) => [s.ingresses, ...scaleCells(s)])),
  );
  out.push('first build: the start-up one (every certificate validated, the listeners built); the others are later full builds of the same cluster');
  if (growth !== undefined) out.push(`growth 1,000 -> 10,000 (CPU time): ${growth}x (target <= 12x)`);
  if (growth50k !== undefined) out.push(`growth 10,000 -> 50,000 (CPU time): ${growth50k}x (5x is linear)`);
  collectGarbage();
  lap('scale');
}

if (only.includes('incremental')) {
  const size = quick ? 1000 : 10000;
  progress(`incremental cost at ${size} Ingresses`);
  const costs = await runIncrementalCost(syntheticCluster({ ingresses: size, tls: certA }), quick ? 3 : 5, [certA, certB]);
  results['incrementalCost'] = { ingresses: size, changes: costs };
  out.push(`\n## 3. Incremental cost at ${size} Ingresses (delta xDS client subscribed to everything)`);
  out.push(
    table(changeCostColumns, costs.map(changeCostCells)),
  );
  collectGarbage();
  lap('incremental');
}

if (only.includes('convergence')) {
  // BENCH_ROUTES=0,5000,50000i picks the existing sizes: route counts, Ingress counts with an `i`. 25,000 routes
  // (about 5,000 Ingresses) and 50,000 Ingresses (100,000 hosts, 5,000 TLS Secrets, 250,000 routes): issue 18.
  const sizes = parseExistingSizes(process.env['BENCH_ROUTES'] ?? (quick ? '0,1000' : '0,1000,5000,25000,50000i'));
  progress(`convergence (standalone mode, real Envoy): ${sizes.map(describeSize).join(', ')} existing`);
  // 20 applies per size: the p99 of fewer runs is just their maximum. At 50,000 Ingresses an apply takes Envoy
  // seconds: 5 applies (their p99 is the maximum), to stay within the 20 minutes.
  const conv = await runConvergence(sizes, quick ? 3 : (n) => (n >= 50000 ? 5 : 20), certA, true);
  results['convergence'] = conv;
  out.push('\n## 2. Convergence, standalone mode: write one manifest (a new Ingress with its new Service and EndpointSlice) -> first 200 from Envoy (polled every ms)');
  out.push(table(['existing routes', 'Ingresses', 'runs', 'p50 ms', 'p99 ms'], conv.convergence.map((c) => [c.existingRoutes, c.existingIngresses, c.applyTo200Ms.runs, c.applyTo200Ms.median, c.applyTo200Ms.p99])));
  out.push('where the time goes (median ms per stage): file watch -> store, store -> build done, build -> routes written (xDS ordering: the new cluster and its endpoints go first), routes (VHDS) written -> ACKed by Envoy, ACK -> first 200');
  out.push(table(['existing routes', 'watch', 'build', 'ordering', 'envoy apply', 'envoy apply p99', 'ack -> 200'], conv.convergence.map((c) => [c.existingRoutes, c.stages.watch.median, c.stages.build.median, c.stages.ordering.median, c.stages.envoyApply.median, c.stages.envoyApply.p99, c.stages.firstOk.median])));
  out.push('controller (this process) and Envoy side by side: loading the existing config (written -> ACKed by Envoy), memory once served (controller: after a GC; Envoy: its RSS from /proc, peak over the whole run), CPU per apply');
  out.push(
    table(
      ['existing routes', 'load s', 'controller CPU s', 'Envoy CPU s', 'controller RSS MiB', 'heap MiB', 'Envoy RSS MiB', 'Envoy peak MiB', 'controller CPU ms/apply', 'Envoy CPU ms/apply'],
      conv.convergence.map((c) => [c.existingRoutes, c.usage.loadSeconds, c.usage.controllerLoadCpuS, c.usage.envoyLoadCpuS, c.usage.controllerRssMiB, c.usage.controllerHeapMiB,
        c.usage.envoyRssMiB, c.usage.envoyPeakRssMiB, c.usage.controllerCpuMsPerApply, c.usage.envoyCpuMsPerApply]),
    ),
  );
  if (conv.routeChange) {
    const r = conv.routeChange;
    out.push(`route backend switched ${r.changes} times under load: ${r.requests} requests, ${r.non2xx} non-2xx ${JSON.stringify(r.byStatus)}`);
    for (const line of r.failedLog) out.push(`  failed: ${line}`);
  }
  lap('convergence');
}

if (only.includes('kube')) {
  // BENCH_KUBE_ROUTES=0,5000 picks the existing-route counts; each size gets its own API server.
  const counts = process.env['BENCH_KUBE_ROUTES'] ? process.env['BENCH_KUBE_ROUTES'].split(',').map(Number) : quick ? [0] : [0, 5000];
  progress(`convergence (Kubernetes mode: real kube-apiserver, real Envoy): ${counts.join(', ')} existing routes`);
  const kube = await runKubeConvergence(counts, quick ? 3 : 20, certA);
  results['kubeConvergence'] = kube;
  out.push('\n## 2b. Convergence, Kubernetes mode: create a Service, an EndpointSlice and an Ingress through a real kube-apiserver (one request each, as kubectl apply makes them) -> first 200 from Envoy (polled every ms)');
  out.push(table(['existing routes', 'Ingresses', 'created in s', 'runs', 'p50 ms', 'p99 ms'], kube.map((c) => [c.existingRoutes, c.existingIngresses, c.loadSeconds, c.applyTo200Ms.runs, c.applyTo200Ms.median, c.applyTo200Ms.p99])));
  out.push('where the time goes (median ms per stage): the three create requests, Ingress created -> its watch event in the store (the API server\'s watch latency), then as in standalone mode');
  out.push(table(['existing routes', 'create requests', 'watch', 'build', 'ordering', 'envoy apply', 'ack -> 200'], kube.map((c) => [c.existingRoutes, c.stages.api.median, c.stages.watch.median, c.stages.build.median, c.stages.ordering.median, c.stages.envoyApply.median, c.stages.firstOk.median])));
  out.push('one Ingress created through the API (one request) for a Service Envoy already serves -> first 200 (target at 5,000 routes: p50 <= 20 ms, p99 <= 40 ms), median ms per stage');
  out.push(table(['existing routes', 'runs', 'p50 ms', 'p99 ms', 'create request', 'watch', 'build', 'ordering', 'envoy apply', 'ack -> 200'], kube.map(({ existingRoutes, oneIngress: o }) => [existingRoutes, o.applyTo200Ms.runs, o.applyTo200Ms.median, o.applyTo200Ms.p99, o.stages.api.median, o.stages.watch.median, o.stages.build.median, o.stages.ordering.median, o.stages.envoyApply.median, o.stages.firstOk.median])));
  collectGarbage();
  lap('kube');
}

if (only.includes('peers')) {
  const routeCounts = quick ? [0, 1000] : [0, 1000, 5000];
  progress(`peers: Contour and envoy-ingress on one kube-apiserver, one after the other: ${routeCounts.join(', ')} existing routes`);
  const peers = await runPeers({ routeCounts, applies: 20, endpointChanges: quick ? 6 : 10, routeChanges: 3, switches: 10, bulkIngresses: quick ? 1000 : 10000, tls: certA });
  results['peers'] = peers;
  out.push(`\n## 2c. Peers: Contour ${peers.contour.version} and envoy-ingress side by side (same kube-apiserver, same Envoy binary, same synthetic objects, same measuring code; Contour first, then ours, each with a fresh Envoy)`);
  out.push(`Contour flags: contour serve ${peers.contour.flags.join(' ')} (plus ports and the kubeconfig); Envoy bootstrap from \`contour bootstrap\`, admin API moved to 127.0.0.1`);
  out.push(table(peersTableHeader, peersTableRows(peers.rows)));
  for (const line of peersFailures(peers.rows)) out.push(line);
  const { bulk } = peers;
  out.push(`\n${bulk.ingresses} Ingresses (${bulk.objects} objects: Services, EndpointSlices, Secrets, Ingresses) created through the API, 8 requests at a time, from an empty cluster, each controller on its own fresh kube-apiserver, in its own process (ours: node dist/cli/main.js run), read from /proc`);
  out.push(table(bulkTableHeader, bulkTableRows(bulk)));
  for (const [who, m] of [['envoy-ingress', bulk.ours], ['Contour', bulk.contour]] as const) if (m.failed) out.push(`${who} did not finish the bulk creation: ${m.failed}`);
  collectGarbage();
  lap('peers');
}

// After the Ingress scenarios it sets its rows beside (kube, incremental, scale, peers), so in a full run all are of one run.
if (only.includes('gateway-api')) {
  // The Ingress figures to set beside: this run's, or the last run's (latest.json) when this one did not measure them.
  const ingressOf = <K extends keyof IngressResults>(key: K): Partial<IngressResults>[K] =>
    (results[key] ?? previous[key]) as Partial<IngressResults>[K];
  const sizes = scaleSizes ?? (quick ? [100, 1000] : [1000, 10000]);
  progress(`translation scale: ${sizes.join(', ')} HTTPRoutes`);
  const scale = runScale(sizes, (n) => (n >= 10000 ? 3 : n >= 1000 ? 5 : 10), (httpRoutes) => syntheticGatewayApiCluster({ httpRoutes, port: benchEnvoyOptions.httpPort + 1 }));
  const at = (n: number) => scale.find((s) => s.ingresses === n);
  const growth = at(1000) && at(10000) ? round(at(10000)!.buildCpuMs.median / at(1000)!.buildCpuMs.median) : undefined;
  collectGarbage();
  // As section 3's route change: one HTTPRoute gains a path (same hostnames, same parents), at 10,000 HTTPRoutes.
  const changeSize = quick ? 1000 : 10000;
  progress(`HTTPRoute change cost at ${changeSize} HTTPRoutes`);
  const changed = syntheticGatewayApiCluster({ httpRoutes: changeSize, port: benchEnvoyOptions.httpPort + 1 });
  const changeCost = await runChangeCosts(changed, quick ? 3 : 5, [
    { change: 'httproute', kind: 'virtualHost', object: (run) => withExtraPath(changed.httpRoutes![(run * 13 + 5) % changeSize]!, `/changed-${run}`) },
  ]);
  // The same Ingress change as section 3's, with one GatewayClass of ours in the cluster (and nothing attached to it).
  progress(`Ingress change cost at ${changeSize} Ingresses with a GatewayClass of ours`);
  const withClass = { ...syntheticCluster({ ingresses: changeSize, tls: certA }), gatewayClasses: [syntheticGatewayClass()] };
  changeCost.push(...(await runChangeCosts(withClass, quick ? 3 : 5, [ingressRouteChange('route, GatewayClass present', withClass.ingresses)])));
  collectGarbage();
  // The same sizes as the kube scenario's Ingresses (BENCH_KUBE_ROUTES), each on its own API server.
  const counts = process.env['BENCH_KUBE_ROUTES'] ? process.env['BENCH_KUBE_ROUTES'].split(',').map(Number) : quick ? [0] : [0, 5000];
  const switchAt = counts.filter((n) => n <= 5000).pop() ?? counts[counts.length - 1]!;
  progress(`Gateway API convergence (Kubernetes mode): ${counts.join(', ')} existing routes; backend switches at ${switchAt}`);
  const rows = await runGatewayApiConvergence(counts, quick ? 3 : 20, switchAt, 10);
  const switched = rows.find((r) => r.more !== undefined);
  const gateway: GatewayApiResults = {
    translationScale: { sizes: scale.map(({ ingresses, ...rest }) => ({ httpRoutes: ingresses, ...rest })), ...(growth === undefined ? {} : { growth1kTo10kCpu: growth }) },
    changeCost: { httpRoutes: changeSize, changes: changeCost },
    kubeConvergence: rows.map((r) => ({ existingRoutes: r.existingRoutes, existingHttpRoutes: r.existingObjects, loadSeconds: r.loadSeconds, applyTo200Ms: r.applyTo200Ms, stages: r.stages, oneHttpRoute: r.oneRoute })),
    ...(switched?.more === undefined ? {} : { backendSwitch: { existingRoutes: switched.existingRoutes, ...switched.more } }),
  };
  results['gatewayApi'] = gateway;
  const ingressScale = (ingressOf('translationScale')?.sizes ?? []).filter((s) => sizes.includes(s.ingresses));
  const ingressKube = ingressOf('kubeConvergence') ?? [];
  out.push('\n## 7. Gateway API beside Ingress: the same measures with HTTPRoutes on a Gateway of our class (Ingress rows from this run, or else from the last run in latest.json)');
  out.push('full build (as section 1): N HTTPRoutes of 1-3 hostnames and 1-4 path matches each, one Service each, on one Gateway listener; the Ingresses of section 1 at the same sizes');
  out.push(table(['objects', ...scaleColumns], scaleRowsByKind(ingressScale, gateway.translationScale.sizes)));
  if (growth !== undefined) out.push(`growth 1,000 -> 10,000 HTTPRoutes (CPU time): ${growth}x`);
  const ingressCost = ingressOf('incrementalCost');
  out.push(`one route object changed (one path; same hosts, same parents) as section 3: an Ingress at ${ingressCost?.ingresses ?? '-'} Ingresses, an HTTPRoute at ${changeSize} HTTPRoutes, an Ingress at ${changeSize} Ingresses beside a GatewayClass of ours`);
  out.push(table(changeCostColumns, [...(ingressCost?.changes ?? []).filter((c) => c.change === 'route'), ...changeCost].map(changeCostCells)));
  out.push('Kubernetes mode (as section 2b): a Service, an EndpointSlice and a route object created through a real kube-apiserver -> first 200 (HTTPRoutes: on the Gateway listener), median ms per stage');
  out.push(table(kubeApplyColumns, kubeApplyRowsByKind(ingressKube, gateway.kubeConvergence)));
  out.push('one route object (one create request) for a Service Envoy already serves -> first 200, median ms per stage');
  out.push(table(kubeOneRouteColumns, kubeOneRouteRowsByKind(ingressKube, gateway.kubeConvergence)));
  out.push('a route\'s backend switched between two served Services while requests flow (4 at a time), each switch until the new backend answers, then 300 ms');
  out.push(table(switchColumns, switchRowsByKind(ingressOf('convergence')?.routeChange, ingressOf('peers')?.rows ?? [], gateway.backendSwitch)));
  collectGarbage();
  lap('gateway-api');
}

if (only.includes('endpoints')) {
  const size = quick ? 1000 : 10000;
  progress(`endpoint change -> pushed at ${size} Services`);
  const ep = await runEndpointPush(syntheticCluster({ ingresses: size, tls: certA }), quick ? 20 : 50);
  results['endpointPush'] = ep;
  out.push(`\n## 3b. Endpoint change -> ClusterLoadAssignment received by a delta xDS client, ${ep.services} Services, ${ep.runs} changes one at a time`);
  out.push(
    table(
      ['push ms p50', 'push p99', 'build ms p50', 'build p99', 'CPU ms per change', 'CLAs sent per change'],
      [[ep.pushMs.median, ep.pushMs.p99, ep.buildMs.median, ep.buildMs.p99, ep.cpuMsPerChange, ep.resourcesPerChange]],
    ),
  );
  collectGarbage();
  lap('endpoints');
}

if (only.includes('many')) {
  const o = quick ? { ingresses: 200, counts: [1, 10, 50], realEnvoysUpTo: 1, changes: 4 } : { ingresses: 1000, counts: [1, 10, 50], realEnvoysUpTo: 10, changes: 6 };
  progress(`many clients: ${o.counts.join(', ')} clients on ${o.ingresses} Ingresses`);
  const many = await runManyClients({ ...o, tls: certA });
  results['manyClients'] = { ingresses: o.ingresses, rows: many };
  out.push(`\n## 5. Many xDS clients, ${o.ingresses} Ingresses (real Envoys up to ${o.realEnvoysUpTo}, delta gRPC load clients in a child process beyond); changes alternate route / endpoints`);
  out.push(
    table(
      ['clients', 'kind', 'heap KiB per stream', 'RSS MiB', 'connect CPU ms per stream', 'change CPU ms p50', 'per stream', 'all ACKed ms p50', 'p99', 'builds per change'],
      many.map((r) => [r.clients, r.kind, r.heapPerStreamKiB, r.rssMiB, r.connectCpuMsPerStream, r.changeCpuMs.median, r.changeCpuMsPerStream, r.allAckedMs.median, r.allAckedMs.p99, r.buildsPerChange]),
    ),
  );
  collectGarbage();
  lap('many');
}

if (only.includes('churn')) {
  const wrk = ensureWrk();
  if (!wrk) {
    out.push('\n## 4. Endpoint churn: skipped (wrk not available)');
  } else {
    const o = quick ? { services: 200, rate: 200, seconds: 5 } : { services: 1000, rate: 200, seconds: 20 };
    progress(`endpoint churn: ${o.rate} EndpointSlice updates/s for ${o.seconds} s, ${o.services} Services`);
    const churn = await runEndpointChurn({ ...o, wrk, tls: certA });
    results['endpointChurn'] = churn;
    out.push(`\n## 4. Endpoint churn: ${churn.updatesSent} EndpointSlice updates in ${churn.seconds} s (${o.rate}/s, scaled from 60 s) over ${churn.services} Services`);
    out.push(
      table(
        ['endpoint builds', 'builds/s', 'controller CPU % of one core', 'traffic req/s', 'requests', 'non-2xx', 'socket errors', 'p99 ms'],
        [[churn.endpointBuilds, churn.buildsPerSecond, churn.controllerCpuPercentOfOneCore, churn.traffic.requestsPerSecond, churn.traffic.requests, churn.traffic.non2xx, churn.traffic.socketErrors, churn.traffic.p99Ms]],
      ),
    );
  }
  lap('churn');
}

if (only.includes('dataplane')) {
  const wrk = ensureWrk();
  if (wrk) {
    // More, shorter rounds: on a shared machine the spread between rounds is larger than the effect measured.
    const o = quick ? { ingresses: 100, rounds: 2, seconds: 3 } : { ingresses: 1000, rounds: 10, seconds: 4 };
    progress(`data plane: generated vs minimal static config, ${o.ingresses} Ingresses, ${o.rounds} rounds of ${o.seconds} s`);
    const dp = await runDataPlane({ ...o, wrk, tls: certA });
    results['dataPlane'] = dp;
    out.push(`\n## 6. Data plane: wrk -c16 through Envoy (1 worker), ${dp.ingresses} Ingresses, one echo backend in its own process, ${dp.rounds} alternating rounds`);
    const row = (name: string, r: { rps: { median: number; p99: number }; p99Ms: { median: number } }) => [name, r.rps.median, r.rps.p99, r.p99Ms.median];
    out.push(
      table(
        ['config', 'req/s p50', 'req/s p99', 'latency p99 ms (median of rounds)'],
        [row('generated (xDS, access log on: the default)', dp.generated), row('minimal static + the same access log and edge settings', dp.minimalStaticWithAccessLog),
          row('generated, --access-log=false', dp.generatedNoAccessLog), row('minimal static + the same edge settings, no access log', dp.minimalStatic),
          row('bare static (no edge settings, no access log)', dp.bareStatic)],
      ),
    );
    out.push(`ratio generated / minimal static, both logging every request: ${dp.ratio} (target >= 0.95); both without access log: ${dp.ratioNoAccessLog}; access log cost (generated with / without): ${dp.accessLogCost}; edge hardening cost (static with / without): ${dp.edgeHardeningCost}`);
  }
  lap('dataplane');
}

const m = results['machine'] as ReturnType<typeof machine>;
const header = `envoy-ingress bench — ${m.cores} cores (${m.cpuModel}), node ${m.node}, load average at start ${m.loadavg.join(' ')}, reference loop ${m.referenceLoopMs} ms (bench/stats.ts: lower is a faster machine state); the cores are shared with other work, so wall times include waiting: CPU times are the steadier figure.`;
results['durationS'] = round((Date.now() - started) / 1000, 1);
results['scenarioSeconds'] = scenarioSeconds;
const dir = join(findRepoRoot(), 'bench', 'results');
mkdirSync(dir, { recursive: true });
const merged = process.env['BENCH_ONLY'] ? { ...previous, ...results } : results;
writeFileSync(latest, `${JSON.stringify(merged, null, 2)}\n`);
const laps = Object.entries(scenarioSeconds).map(([scenario, seconds]) => `${scenario} ${seconds} s`).join(', ');
const text = [header, '', ...out, '', `total ${results['durationS']} s (${laps})`].join('\n');
writeFileSync(join(dir, process.env['BENCH_ONLY'] ? `latest-${only.join('-')}.txt` : 'latest.txt'), `${text}\n`);
console.log(text);
process.exit(0);
