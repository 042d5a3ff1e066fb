// A controller in this process (standalone on a manifest directory by default, or any other, e.g. Kubernetes
// mode) and real Envoys connected to it, for the scenarios that measure what Envoy does. Same wiring as
// test/fixtures/standalone-stack.ts, without ava.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../cli/logger.js';
import { startStandaloneController, type StandaloneController } from '../cli/standalone-controller.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import { buildBootstrap, type OverloadLimits } from '../envoy/bootstrap.js';
import type { ResourceJson } from '../envoy/resource-types.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import { freePort } from '../test/fixtures/standalone-stack.js';

/** What the scenarios use of a controller: its pipeline (to follow a change through it) and its xDS port. */
export type BenchController = Pick<StandaloneController, 'store' | 'cache' | 'reconciler' | 'server' | 'xdsPort' | 'stop'>;

/** Starts a controller whose Envoy listens on these ports (standalone: on the manifest directory `dir`). */
export type StartController = (o: { dir: string; httpPort: number; httpsPort: number }) => Promise<BenchController>;

const standalone: StartController = ({ dir, httpPort, httpsPort }) =>
  startStandaloneController({
    manifestsDir: dir,
    xdsHost: '127.0.0.1',
    xdsPort: 0,
    translate: { ...defaultTranslateOptions, httpsRedirectPort: httpsPort },
    envoy: { listenAddress: '127.0.0.1', httpPort, httpsPort },
    log: createLogger('silent'),
  });

export interface EnvoyStack {
  dir: string;
  controller: BenchController;
  envoys: EnvoyProcess[];
  httpPort: number;
  /** Start one more Envoy on the same xDS server (it serves on its own port). */
  addEnvoy(): Promise<{ envoy: EnvoyProcess; httpPort: number }>;
  stop(): Promise<void>;
}

/** Envoy's bootstrap as the bench runs it: delta xDS to a controller on loopback, admin on a port of the OS's choice. */
export function benchBootstrap(nodeId: string, xdsPort: number, overload?: OverloadLimits): ResourceJson {
  return buildBootstrap({
    nodeId,
    nodeCluster: 'bench',
    xdsHost: '127.0.0.1',
    xdsPort,
    adminAddress: '127.0.0.1',
    adminPort: 0,
    xdsProtocol: 'delta',
    ...(overload !== undefined ? { overload } : {}),
  });
}

export async function startEnvoyStack(opts: { envoys?: number; concurrency?: number; controller?: StartController; overload?: OverloadLimits } = {}): Promise<EnvoyStack> {
  const dir = await mkdtemp(join(tmpdir(), 'envoy-ingress-bench-'));
  const httpPort = await freePort();
  const httpsPort = await freePort();
  const controller = await (opts.controller ?? standalone)({ dir, httpPort, httpsPort });
  const envoys: EnvoyProcess[] = [];
  let count = 0;
  const launch = async (): Promise<EnvoyProcess> => {
    count += 1;
    const envoy = await startEnvoy({
      bootstrap: benchBootstrap(`bench-${process.pid}-${count}`, controller.xdsPort, opts.overload),
      drainTimeS: 2,
      logLevel: 'warn',
      concurrency: opts.concurrency ?? 1,
    });
    envoys.push(envoy);
    await envoy.waitForLive(120_000);
    return envoy;
  };
  for (let i = 0; i < (opts.envoys ?? 1); i++) await launch();
  return {
    dir,
    controller,
    envoys,
    httpPort,
    async addEnvoy() {
      // Every Envoy gets the same listeners (same port): extra Envoys only measure xDS serving, not traffic.
      return { envoy: await launch(), httpPort };
    },
    async stop() {
      await Promise.all(envoys.map((e) => e.stop()));
      await controller.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** GET through Envoy with a Host header; resolves with the status (0 for a connection error). */
export function getStatus(port: number, host: string, path = '/'): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
