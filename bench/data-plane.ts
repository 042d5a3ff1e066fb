// Scenario 6: requests/s and p99 through Envoy with the controller's generated config versus Envoy with a
// minimal hand-written static config for the same hosts and paths, both to the same backend, measured with wrk
// in alternating rounds. Like with like: the generated config logs every request (a JSON access log on stdout is
// an intentional default, `--access-log=false` turns it off) and applies the edge hardening defaults (path
// normalisation, header limits, the client address: envoy/edge-hardening.ts), so the headline ratio compares it
// with the minimal config plus the same access log and the same connection manager settings; the pair without
// any access log is measured too, and a bare static config shows what those intentional defaults cost. The
// backend runs in its own process, and each Envoy's stdout is read by this process for every config alike.
import { buildBootstrap } from '../envoy/bootstrap.js';
import { buildStdoutAccessLog } from '../envoy/access-log.js';
import { buildEdgeHardeningFields, defaultEdgeHardening } from '../envoy/edge-hardening.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import { startEchoProcess } from './echo-process.js';
import { startInProcessController, type InProcessController } from './in-process-controller.js';
import { round, summarize, type Summary } from './stats.js';
import { hostOf, syntheticCluster } from './synthetic-cluster.js';
import { runWrk } from './wrk.js';
import { getStatus } from './envoy-stack.js';

export interface DataPlaneConfigResult {
  rps: Summary;
  p99Ms: Summary;
}

export interface DataPlaneResult {
  ingresses: number;
  rounds: number;
  /** Generated config as deployed (access log on). */
  generated: DataPlaneConfigResult;
  /** Minimal static config plus the same access log and connection manager settings. */
  minimalStaticWithAccessLog: DataPlaneConfigResult;
  /** Generated config with `--access-log=false`. */
  generatedNoAccessLog: DataPlaneConfigResult;
  /** Minimal static config with the same connection manager settings, no access log. */
  minimalStatic: DataPlaneConfigResult;
  /** Minimal static config without the edge hardening settings or access log. */
  bareStatic: DataPlaneConfigResult;
  /** Like with like, both with the access log: median rps generated / minimal static + access log. */
  ratio: number;
  /** Both without an access log. */
  ratioNoAccessLog: number;
  /** What the access log costs the generated config: median rps with / without. */
  accessLogCost: number;
  /** What the edge hardening settings cost a static config: median rps with / without. */
  edgeHardeningCost: number;
}

/** The smallest config that serves the same hosts and paths: one virtual host per host, prefix/path matches. */
function minimalStaticBootstrap(state: ReturnType<typeof syntheticCluster>, port: number, backendPort: number, accessLog: boolean, edge: boolean): object {
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
            // The generated connection manager's settings (http-connection-manager.ts), written out.
            ...(edge ? { ...buildEdgeHardeningFields(defaultEdgeHardening), strip_any_host_port: true } : {}),
            ...(accessLog ? { access_log: buildStdoutAccessLog() } : {}),
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
  const backend = await startEchoProcess('dp');
  const state = syntheticCluster({ ingresses: o.ingresses, tls: o.tls, endpointAddress: () => ({ address: '127.0.0.1', port: backend.port }) });
  const controllers: InProcessController[] = [];
  const envoys: EnvoyProcess[] = [];
  try {
    /** One Envoy per configuration, each on its own port. */
    const generatedEnvoy = async (accessLog: boolean): Promise<number> => {
      const httpPort = await freePort();
      const controller = await startInProcessController(state, { listenAddress: '127.0.0.1', httpPort, httpsPort: await freePort(), accessLog });
      controllers.push(controller);
      const envoy = await startEnvoy({
        bootstrap: buildBootstrap({ nodeId: `bench-dp-${accessLog}`, nodeCluster: 'bench', xdsHost: '127.0.0.1', xdsPort: controller.xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
        logLevel: 'warn',
      });
      envoys.push(envoy);
      await envoy.waitForListener('ingress_http', 120_000);
      return httpPort;
    };
    const staticEnvoy = async (accessLog: boolean, edge = true): Promise<number> => {
      const port = await freePort();
      const envoy = await startEnvoy({ bootstrap: minimalStaticBootstrap(state, port, backend.port, accessLog, edge), logLevel: 'warn' });
      envoys.push(envoy);
      await envoy.waitForListener('static_http', 60_000);
      return port;
    };
    const configs = [
      { key: 'generated', port: await generatedEnvoy(true) },
      { key: 'minimalStaticWithAccessLog', port: await staticEnvoy(true) },
      { key: 'generatedNoAccessLog', port: await generatedEnvoy(false) },
      { key: 'minimalStatic', port: await staticEnvoy(false) },
      { key: 'bareStatic', port: await staticEnvoy(false, false) },
    ] as const;
    // A host without TLS: TLS hosts answer plain HTTP with a redirect.
    const host = hostOf(Math.floor(o.ingresses / 2) + 1, 0);
    for (const { port } of configs) {
      const deadline = performance.now() + 120_000;
      while ((await getStatus(port, host)) !== 200) {
        if (performance.now() > deadline) throw new Error(`Envoy on port ${port} does not answer 200 for ${host}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const samples = new Map<string, { rps: number[]; p99: number[] }>(configs.map((c) => [c.key, { rps: [], p99: [] }]));
    // Rounds alternate the configurations, so a busier moment of the shared machine hits each alike.
    for (let r = 0; r < o.rounds; r++) {
      for (const { key, port } of configs) {
        const res = await runWrk(o.wrk, `http://127.0.0.1:${port}/`, host, { seconds: o.seconds, connections: 16 });
        samples.get(key)!.rps.push(res.requestsPerSecond);
        samples.get(key)!.p99.push(res.p99Ms);
      }
    }
    const result = (key: string): DataPlaneConfigResult => ({ rps: summarize(samples.get(key)!.rps), p99Ms: summarize(samples.get(key)!.p99) });
    const g = result('generated');
    const sl = result('minimalStaticWithAccessLog');
    const gn = result('generatedNoAccessLog');
    const s = result('minimalStatic');
    const bare = result('bareStatic');
    return {
      ingresses: o.ingresses,
      rounds: o.rounds,
      generated: g,
      minimalStaticWithAccessLog: sl,
      generatedNoAccessLog: gn,
      minimalStatic: s,
      bareStatic: bare,
      ratio: round(g.rps.median / sl.rps.median, 3),
      ratioNoAccessLog: round(gn.rps.median / s.rps.median, 3),
      accessLogCost: round(g.rps.median / gn.rps.median, 3),
      edgeHardeningCost: round(s.rps.median / bare.rps.median, 3),
    };
  } finally {
    await Promise.all(envoys.map((e) => e.stop()));
    await Promise.all(controllers.map((c) => c.stop()));
    await backend.close();
  }
}
