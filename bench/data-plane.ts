// Scenario 6: requests/s and p99 through Envoy with the controller's generated config versus Envoy with a
// minimal hand-written static config for the same hosts and paths, both to the same backend, measured with wrk
// in alternating rounds.
import { buildBootstrap } from '../envoy/bootstrap.js';
import { startEchoBackend } from '../test/harness/echo-backend.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { startInProcessController } from './in-process-controller.js';
import { round, summarize, type Summary } from './stats.js';
import { hostOf, syntheticCluster } from './synthetic-cluster.js';
import { runWrk } from './wrk.js';
import { getStatus } from './envoy-stack.js';

export interface DataPlaneResult {
  ingresses: number;
  rounds: number;
  generated: { rps: Summary; p99Ms: Summary };
  minimalStatic: { rps: Summary; p99Ms: Summary };
  /** median rps generated / median rps minimal static */
  ratio: number;
}

/** The smallest config that serves the same hosts and paths: one virtual host per host, prefix/path matches. */
function minimalStaticBootstrap(state: ReturnType<typeof syntheticCluster>, port: number, backendPort: number): object {
  const virtualHosts = state.ingresses.flatMap((ing) =>
    (ing.spec?.rules ?? []).map((rule) => ({
      name: rule.host,
      domains: [rule.host],
      routes: (rule.http?.paths ?? []).map((p) => ({
        match: p.pathType === 'Exact' ? { path: p.path } : { prefix: p.path },
        route: { cluster: 'backend' },
      })),
    })),
  );
  return {
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 0 } } },
    static_resources: {
      listeners: [{
        name: 'static_http',
        address: { socket_address: { address: '127.0.0.1', port_value: port } },
        filter_chains: [{ filters: [{
          name: 'envoy.filters.network.http_connection_manager',
          typed_config: {
            '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
            stat_prefix: 'static',
            route_config: { name: 'static', virtual_hosts: virtualHosts },
            http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' } }],
          },
        }] }],
      }],
      clusters: [{
        name: 'backend',
        type: 'STATIC',
        connect_timeout: '1s',
        load_assignment: { cluster_name: 'backend', endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: backendPort } } } }] }] },
      }],
    },
  };
}

export async function runDataPlane(o: { ingresses: number; rounds: number; seconds: number; wrk: string; tls: { certPem: string; keyPem: string } }): Promise<DataPlaneResult> {
  const backend = await startEchoBackend({ service: 'dp' });
  const httpPort = await freePort();
  const staticPort = await freePort();
  const state = syntheticCluster({ ingresses: o.ingresses, tls: o.tls, endpointAddress: () => ({ address: '127.0.0.1', port: backend.port }) });
  const controller = await startInProcessController(state, { listenAddress: '127.0.0.1', httpPort, httpsPort: await freePort() });
  const envoys: EnvoyProcess[] = [];
  try {
    const generated = await startEnvoy({
      bootstrap: buildBootstrap({ nodeId: 'bench-dp', nodeCluster: 'bench', xdsHost: '127.0.0.1', xdsPort: controller.xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
      logLevel: 'warn',
    });
    envoys.push(generated);
    const minimal = await startEnvoy({ bootstrap: minimalStaticBootstrap(state, staticPort, backend.port), logLevel: 'warn' });
    envoys.push(minimal);
    await generated.waitForListener('ingress_http', 120_000);
    await minimal.waitForListener('static_http', 60_000);
    // A host without TLS: TLS hosts answer plain HTTP with a redirect.
    const host = hostOf(Math.floor(o.ingresses / 2) + 1, 0);
    for (const port of [httpPort, staticPort]) {
      const deadline = performance.now() + 120_000;
      while ((await getStatus(port, host)) !== 200) {
        if (performance.now() > deadline) throw new Error(`Envoy on port ${port} does not answer 200 for ${host}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const ours: { rps: number[]; p99: number[] } = { rps: [], p99: [] };
    const theirs: { rps: number[]; p99: number[] } = { rps: [], p99: [] };
    for (let r = 0; r < o.rounds; r++) {
      for (const [port, into] of [[httpPort, ours], [staticPort, theirs]] as const) {
        const res = await runWrk(o.wrk, `http://127.0.0.1:${port}/`, host, { seconds: o.seconds, connections: 16 });
        into.rps.push(res.requestsPerSecond);
        into.p99.push(res.p99Ms);
      }
    }
    const g = { rps: summarize(ours.rps), p99Ms: summarize(ours.p99) };
    const s = { rps: summarize(theirs.rps), p99Ms: summarize(theirs.p99) };
    return { ingresses: o.ingresses, rounds: o.rounds, generated: g, minimalStatic: s, ratio: round(g.rps.median / s.rps.median, 3) };
  } finally {
    await Promise.all(envoys.map((e) => e.stop()));
    await controller.stop();
    await backend.close();
  }
}
