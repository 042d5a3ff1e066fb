// Scenario 4: EndpointSlice updates at a fixed rate against many Services while wrk sends steady traffic
// through a real Envoy to a stable backend. Controller CPU, pushes per second after coalescing, failures.
import { buildBootstrap } from '../envoy/bootstrap.js';
import { startEchoBackend } from '../test/harness/echo-backend.js';
import { startEnvoy } from '../test/harness/envoy-process.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { startInProcessController } from './in-process-controller.js';
import { round } from './stats.js';
import { hostOf, syntheticCluster, syntheticSlice } from './synthetic-cluster.js';
import { runWrk, type WrkResult } from './wrk.js';

export interface ChurnResult {
  services: number;
  updatesPerSecond: number;
  seconds: number;
  updatesSent: number;
  endpointBuilds: number;
  buildsPerSecond: number;
  /** Delta responses written to Envoy for EDS (one per push). */
  controllerCpuPercentOfOneCore: number;
  traffic: WrkResult;
}

export async function runEndpointChurn(o: { services: number; rate: number; seconds: number; wrk: string; tls: { certPem: string; keyPem: string } }): Promise<ChurnResult> {
  const backend = await startEchoBackend({ service: 'stable' });
  const httpPort = await freePort();
  const httpsPort = await freePort();
  // Service 0 is the stable one traffic goes to; the others churn.
  const state = syntheticCluster({
    ingresses: o.services,
    tls: o.tls,
    tlsFraction: 0.1,
    endpointAddress: (s, e) => (s === 0 ? { address: '127.0.0.1', port: backend.port } : { address: `10.${(s >> 8) & 255}.${s & 255}.${e + 1}`, port: 8080 }),
  });
  const controller = await startInProcessController(state, { listenAddress: '127.0.0.1', httpPort, httpsPort });
  const envoy = await startEnvoy({
    bootstrap: buildBootstrap({ nodeId: 'bench-churn', nodeCluster: 'bench', xdsHost: '127.0.0.1', xdsPort: controller.xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
    logLevel: 'warn',
    drainTimeS: 2,
  });
  try {
    await envoy.waitForLive(120_000);
    await envoy.waitForListener('ingress_http', 120_000);
    const buildsBefore = controller.builds.length;
    const traffic = runWrk(o.wrk, `http://127.0.0.1:${httpPort}/`, hostOf(0, 0), { seconds: o.seconds, connections: 8 });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let sent = 0;
    const interval = 1000 / o.rate;
    while (performance.now() - t0 < o.seconds * 1000) {
      // Every update due by now goes out in this turn: when a build kept the event loop busy, the generator
      // catches up (as a watch delivers the events that queued meanwhile) instead of falling behind the rate.
      const due = Math.min(Math.floor((performance.now() - t0) / interval) + 1, Math.round(o.seconds * o.rate));
      while (sent < due) {
        // Spread over the churning Services; each update changes one endpoint address.
        const service = 1 + (sent % (o.services - 1));
        controller.store.upsert(syntheticSlice(service, 10, (s, e) => ({ address: `10.${(s >> 8) & 255}.${(s + sent) & 255}.${e + 1}`, port: 8080 }), sent));
        sent += 1;
      }
      const wait = t0 + sent * interval - performance.now();
      await new Promise((r) => setTimeout(r, Math.max(0, wait)));
    }
    await controller.reconciler.idle();
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const endpointBuilds = controller.builds.slice(buildsBefore).filter((b) => b.kind === 'endpoints').length;
    return {
      services: o.services,
      updatesPerSecond: o.rate,
      seconds: round(elapsed),
      updatesSent: sent,
      endpointBuilds,
      buildsPerSecond: round(endpointBuilds / elapsed),
      controllerCpuPercentOfOneCore: round(((cpu.user + cpu.system) / 1000 / (elapsed * 1000)) * 100, 1),
      traffic: await traffic,
    };
  } finally {
    await envoy.stop();
    await controller.stop();
    await backend.close();
  }
}
