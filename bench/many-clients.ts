// Scenario 5: 1, 10 and 50 xDS clients on one controller (real Envoys up to `realEnvoysUpTo`, delta gRPC load
// clients in a child process beyond). Per client count: controller memory per stream (heap after GC), CPU to
// serve the initial config to every stream, then per change (a route change and an endpoint change, in turn)
// the controller's CPU, the time until every stream ACKed it, and the number of builds (translations): one per
// change whatever the number of clients, since all streams share one snapshot and its encoded resources.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBootstrap } from '../envoy/bootstrap.js';
import type { ResourceKind } from '../proto/type-urls.js';
import { startEnvoy, type EnvoyProcess } from '../test/harness/envoy-process.js';
import { freePort } from '../test/fixtures/standalone-stack.js';
import type { AckEvent } from '../xds/stream-session.js';
import { progress } from './convergence.js';
import { startInProcessController, type InProcessController } from './in-process-controller.js';
import { collectGarbage, cpuMs, mib, round, summarize, type Summary } from './stats.js';
import { seededRandom, syntheticCluster, syntheticIngress, syntheticSlice } from './synthetic-cluster.js';

export interface ManyClientsRow {
  clients: number;
  kind: 'envoy' | 'grpc';
  /** Controller heap growth after GC with the clients connected, per stream. */
  heapPerStreamKiB: number;
  rssMiB: number;
  /** Controller CPU to bring every stream in sync from nothing, per stream. */
  connectCpuMsPerStream: number;
  /** Per change: controller CPU (all streams), and per stream. */
  changeCpuMs: Summary;
  changeCpuMsPerStream: number;
  /** Per change: until every stream ACKed the changed type at its new version. */
  allAckedMs: Summary;
  /** Builds (translations) per change: 1 means no per-client work. */
  buildsPerChange: number;
}

const loadClientsMain = fileURLToPath(new URL('./ads-load-clients-main.js', import.meta.url));

async function until(predicate: () => boolean, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Every connected stream ACKed every type at the snapshot's version. */
function allInSync(controller: InProcessController, streams: number): boolean {
  const clients = controller.server.clients();
  if (clients.length < streams) return false;
  const versions = controller.cache.snapshot.versions;
  return clients.every((c) =>
    (Object.keys(versions) as ResourceKind[]).every((kind) => controller.cache.snapshot.resources[kind].size === 0 || c.types[kind]?.ackedVersion === versions[kind]),
  );
}

/** Connects `count` clients; resolves with a function that disconnects them. */
async function connect(controller: InProcessController, count: number, real: boolean, names: string, ports: { http: number }): Promise<() => Promise<void>> {
  if (real) {
    const envoys: EnvoyProcess[] = [];
    await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const envoy = await startEnvoy({
          bootstrap: buildBootstrap({ nodeId: `many-${i}`, nodeCluster: 'bench', xdsHost: '127.0.0.1', xdsPort: controller.xdsPort, adminAddress: '127.0.0.1', adminPort: 0, xdsProtocol: 'delta' }),
          logLevel: 'warn',
          drainTimeS: 1,
          startTimeoutMs: 120_000,
        });
        envoys.push(envoy);
      }),
    );
    void ports;
    return async () => {
      await Promise.all(envoys.map((e) => e.stop()));
    };
  }
  const child: ChildProcess = spawn(process.execPath, [loadClientsMain, '--port', String(controller.xdsPort), '--clients', String(count), '--names', names], { stdio: ['pipe', 'ignore', 'inherit'] });
  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin?.end();
    await exited;
  };
}

export async function runManyClients(o: { ingresses: number; counts: readonly number[]; realEnvoysUpTo: number; changes: number; tls: { certPem: string; keyPem: string } }): Promise<ManyClientsRow[]> {
  const state = syntheticCluster({ ingresses: o.ingresses, tls: o.tls });
  const ports = { http: await freePort() };
  const controller = await startInProcessController(state, { listenAddress: '127.0.0.1', httpPort: ports.http, httpsPort: await freePort() });
  const dir = await mkdtemp(join(tmpdir(), 'envoy-ingress-many-'));
  const rows: ManyClientsRow[] = [];
  try {
    const snapshot = controller.cache.snapshot.resources;
    const names = join(dir, 'names.json');
    await writeFile(names, JSON.stringify({
      clusterLoadAssignment: [...snapshot.clusterLoadAssignment.keys()],
      routeConfiguration: [...snapshot.routeConfiguration.keys()],
      secret: [...snapshot.secret.keys()],
    }));
    let changeNo = 0;
    for (const count of o.counts) {
      const real = count <= o.realEnvoysUpTo;
      progress(`many clients: ${count} ${real ? 'real Envoys' : 'gRPC load clients'}`);
      collectGarbage();
      const heap0 = process.memoryUsage().heapUsed;
      const cpu0 = process.cpuUsage();
      const disconnect = await connect(controller, count, real, names, ports);
      try {
        await until(() => allInSync(controller, count), `${count} clients in sync`);
        const connectCpu = cpuMs(cpu0);
        collectGarbage();
        const heap1 = process.memoryUsage().heapUsed;
        const rss = process.memoryUsage().rss;
        const cpu: number[] = [];
        const acked: number[] = [];
        const builds0 = controller.builds.length;
        for (let c = 0; c < o.changes; c++) {
          changeNo += 1;
          const route = c % 2 === 0;
          // A route change reaches Envoy as the changed host's VirtualHost (VHDS).
          const kind: ResourceKind = route ? 'virtualHost' : 'clusterLoadAssignment';
          const acks: AckEvent[] = [];
          const onAck = (e: AckEvent): void => {
            if (e.kind === kind) acks.push(e);
          };
          controller.server.on('ack', onAck);
          const before = process.cpuUsage();
          const t0 = performance.now();
          const i = (changeNo * 97) % o.ingresses;
          if (route) controller.store.upsert(syntheticIngress(i, seededRandom(5000 + changeNo), false, `-m${changeNo}`));
          else controller.store.upsert(syntheticSlice(i, 10, (_s, e) => ({ address: `10.201.${changeNo % 250}.${e + 1}`, port: 8080 }), changeNo));
          await controller.reconciler.idle();
          const version = controller.cache.snapshot.versions[kind];
          await until(() => new Set(acks.filter((a) => a.version === version).map((a) => a.streamId)).size >= count, `${count} clients ACK change ${changeNo}`);
          acked.push(performance.now() - t0);
          cpu.push(cpuMs(before));
          controller.server.off('ack', onAck);
          await new Promise((r) => setTimeout(r, 50));
        }
        const builds = controller.builds.length - builds0;
        const changeCpu = summarize(cpu);
        rows.push({
          clients: count,
          kind: real ? 'envoy' : 'grpc',
          heapPerStreamKiB: round((heap1 - heap0) / 1024 / count, 1),
          rssMiB: mib(rss),
          connectCpuMsPerStream: round(connectCpu / count, 1),
          changeCpuMs: changeCpu,
          changeCpuMsPerStream: round(changeCpu.median / count, 2),
          allAckedMs: summarize(acked),
          buildsPerChange: round(builds / o.changes, 2),
        });
      } finally {
        await disconnect();
        await until(() => controller.server.clients().length === 0, 'clients gone', 60_000);
      }
    }
  } finally {
    await controller.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
