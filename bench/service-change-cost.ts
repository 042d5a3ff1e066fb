// One Service change (a route's backend Service gains a port) at 10,000 HTTPRoutes: the ConfigBuilder build's kind
// and time, against a full build of the same state (what main did for it). Not part of the bench; run by hand:
// node --expose-gc dist/bench/service-change-cost.js
import { ConfigBuilder } from '../controller/pipeline/config-builder.js';
import type { ClusterState, Service } from '../controller/translate/shared/kube-objects.js';
import { syntheticGatewayApiCluster } from './synthetic-gateway-api.js';
import { benchReconcileOptions } from './translation-scale.js';

const routes = Number(process.env['ROUTES'] ?? 10_000);
const runs = 15;
const base = syntheticGatewayApiCluster({ httpRoutes: routes, port: 8080 });
const builder = new ConfigBuilder(benchReconcileOptions);
let state: ClusterState = base;
builder.build(state, () => undefined);
builder.prepare();
const withPort = (s: Service, port: number): Service => ({ ...s, spec: { ...s.spec, ports: [...(s.spec?.ports ?? []), { name: `extra-${port}`, port, targetPort: port, protocol: 'TCP' }] } });
const incremental: number[] = [];
const full: number[] = [];
let kind = '';
for (let run = 0; run < runs; run++) {
  const at = (run * 7919) % routes;
  const services = state.services.map((s, i) => (i === at ? withPort(s, 9000 + run) : s));
  const next = { ...state, services };
  const t0 = performance.now();
  kind = builder.build(next, () => undefined).built.kind;
  incremental.push(performance.now() - t0);
  const fresh = new ConfigBuilder(benchReconcileOptions);
  const t1 = performance.now();
  fresh.build(next, () => undefined);
  full.push(performance.now() - t1);
  state = next;
  builder.prepare();
}
const p50 = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
console.log(JSON.stringify({ routes, runs, kind, buildP50Ms: p50(incremental), fullBuildP50Ms: p50(full) }));
