// The Ingress semantics table, end to end: every test/semantics/*.yaml case file is one test that starts echo
// backends for its Services, writes its objects as manifests, runs the real controller (standalone mode) and a
// real Envoy, sends every request of the table (Host, SNI, path) and checks which Service answered, or the
// status. Later phases of a case rewrite the objects (class changes, certificate rotation) and check again.
// The case format is described in test/semantics/README.md.
import { rename, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { stringify } from 'yaml';
import { useEchoBackend } from './harness/ava-fixtures.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type IssuedCertificate, type TestCA } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';
import { ingressClass } from './fixtures/manifests.js';
import {
  phasesOf,
  readCaseFile,
  secretOf,
  semanticsCaseFiles,
  semanticsCasesDir,
  serviceSpecOf,
  servicePortsOf,
  serviceWithLoopbackSlice,
  type CertificateSpec,
  type DiagnosticSpec,
  type RequestRow,
  type ServiceSpec,
} from './fixtures/semantics-cases.js';

// ---------------------------------------------------------------------------------------------------------------
// Backends, Services and certificates

interface Backends {
  objects: object[];
  /** Every name a backend answers with. */
  names: string[];
}

/**
 * One echo backend per Service port, all on 127.0.0.1: it answers with the Service's name, or `name:port-name`
 * when the Service has several ports. The Service and an EndpointSlice (slice port named after the Service port,
 * as the EndpointSlice controller names them) point at it.
 */
async function startBackends(t: ExecutionContext, services: (string | ServiceSpec)[]): Promise<Backends> {
  const objects: object[] = [];
  const names: string[] = [];
  for (const entry of services) {
    const spec = serviceSpecOf(entry);
    const ports = servicePortsOf(spec);
    const endpointPorts: number[] = [];
    for (const port of ports) {
      const answer = ports.length === 1 ? spec.name : `${spec.name}:${port.name}`;
      const backend = await useEchoBackend(t, { service: answer });
      names.push(answer);
      endpointPorts.push(backend.port);
    }
    objects.push(...serviceWithLoopbackSlice(spec, endpointPorts));
  }
  return { objects, names };
}

async function writeManifest(dir: string, file: string, objects: object[]): Promise<void> {
  const target = path.join(dir, file);
  await writeFile(`${target}.tmp`, objects.map((o) => stringify(o)).join('---\n'));
  await rename(`${target}.tmp`, target);
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

interface Outcome {
  status: number | 'tls-error' | 'error';
  service?: string;
  location?: string;
  body: string;
  serial?: string;
  localPort?: number;
  error?: string;
}

function send(stack: Stack, ca: TestCA, row: RequestRow, agent: HttpsAgent | undefined): Promise<Outcome> {
  const https = row.scheme === 'https';
  const sni = row.sni ?? row.host.replace(/:\d+$/, '');
  return new Promise((resolve) => {
    const onResponse = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const socket = res.socket as TLSSocket | null;
        const outcome: Outcome = { status: res.statusCode ?? 0, body };
        const service = res.headers['x-echo-service'];
        if (typeof service === 'string') outcome.service = service;
        if (typeof res.headers.location === 'string') outcome.location = res.headers.location;
        const peer = https && socket !== null ? socket.getPeerCertificate() : undefined;
        if (peer?.serialNumber !== undefined) outcome.serial = peer.serialNumber.toUpperCase();
        if (socket?.localPort !== undefined) outcome.localPort = socket.localPort;
        resolve(outcome);
      });
    };
    const common = {
      host: '127.0.0.1',
      path: row.path,
      method: 'GET',
      headers: { host: row.host },
      timeout: 10_000,
    };
    const req = https
      ? httpsRequest(
          {
            ...common,
            port: stack.httpsPort,
            agent: agent ?? false,
            ca: ca.certPem,
            rejectUnauthorized: true,
            // Node would otherwise take the SNI name from the Host header; '' sends none.
            servername: sni,
            // Without SNI, or when asked, the chain is still verified against the CA, but not the name.
            ...(sni === '' || row.skipNameCheck ? { checkServerIdentity: () => undefined } : {}),
          },
          onResponse,
        )
      : httpRequest({ ...common, port: stack.httpPort, agent: false }, onResponse);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A TLS session that never came up: no certificate for the SNI, or one the client refused.
      const tls = https && (error.code === 'ECONNRESET' || /SSL|TLS|certificate|altnames|socket disconnected/i.test(error.message));
      resolve({ status: tls ? 'tls-error' : 'error', body: '', error: `${error.code ?? ''} ${error.message}` });
    });
    req.end();
  });
}

/** What is wrong with an outcome, or undefined when it is what the row expects. */
function mismatch(
  row: RequestRow,
  outcome: Outcome,
  stack: Stack,
  serials: ReadonlyMap<string, string>,
  connections: Map<string, number>,
): string | undefined {
  const problems: string[] = [];
  if (typeof row.expect === 'number' || row.expect === 'tls-error') {
    if (outcome.status !== row.expect) problems.push(`status ${outcome.status}, expected ${row.expect}`);
  } else if (outcome.status !== 200 || outcome.service !== row.expect) {
    problems.push(`got ${outcome.service ?? `status ${outcome.status}`}, expected service ${row.expect}`);
  }
  if (row.location !== undefined) {
    const expected = row.location.replace('{httpsPort}', String(stack.httpsPort));
    if (outcome.location !== expected) problems.push(`location ${outcome.location ?? 'none'}, expected ${expected}`);
  }
  if (row.certificate !== undefined && outcome.serial !== serials.get(row.certificate)) {
    problems.push(`certificate serial ${outcome.serial ?? 'none'}, expected ${row.certificate}'s latest`);
  }
  if (row.body !== undefined) {
    const ok = row.body === '' ? outcome.body === '' : outcome.body.includes(row.body);
    if (!ok) problems.push(`body ${JSON.stringify(outcome.body.slice(0, 80))}, expected ${JSON.stringify(row.body)}`);
  }
  if (row.connection !== undefined && row.sameConnection && outcome.localPort !== connections.get(row.connection)) {
    problems.push(`connection ${row.connection} was not reused (local port ${outcome.localPort})`);
  }
  if (problems.length === 0) return undefined;
  return `${outcome.error ? `${problems.join('; ')} (${outcome.error})` : problems.join('; ')}`;
}

function describeRow(row: RequestRow): string {
  const scheme = row.scheme ?? 'http';
  const sni = scheme === 'https' && row.sni !== undefined ? ` sni=${JSON.stringify(row.sni)}` : '';
  return `${scheme}://${row.host}${row.path}${sni} -> ${row.expect}${row.note ? ` (${row.note})` : ''}`;
}

/** At most `limit` promises from `tasks` at a time, results in order. */
async function inBatches<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < tasks.length; i += limit) {
    results.push(...(await Promise.all(tasks.slice(i, i + limit).map((task) => task()))));
  }
  return results;
}

// ---------------------------------------------------------------------------------------------------------------
// The runner

function diagnosticsMissing(stack: Stack, expected: readonly DiagnosticSpec[]): string[] {
  const actual = stack.controller.reconciler.diagnostics;
  return expected
    .filter(({ reason, object }) => {
      const [namespace, name] = object.includes('/') ? object.split('/', 2) : ['default', object];
      return !actual.some((d) => d.reason === reason && d.object.namespace === namespace && d.object.name === name);
    })
    .map(({ reason, object }) => `${reason} on ${object}`);
}

for (const file of semanticsCaseFiles) {
  const spec = readCaseFile(file);
  test(`${file}: ${spec.title}`, async (t) => {
    t.timeout(180_000);
    const tmp = await createTempDir('semantics-');
    t.teardown(() => tmp.remove());
    const ca = await createTestCA();
    const backends = await startBackends(t, spec.services);
    const issued = new Map<string, IssuedCertificate>();
    const certificateSpecs = new Map<string, CertificateSpec>();

    const phases = phasesOf(spec);
    let objects: object[] = [];
    let stack: Stack | undefined;
    const agents = new Map<string, HttpsAgent>();
    const connections = new Map<string, number>();
    t.teardown(() => {
      for (const agent of agents.values()) agent.destroy();
    });

    for (const [index, phase] of phases.entries()) {
      const label = `phase ${index}${phase.title ? ` (${phase.title})` : ''}`;
      for (const certificate of phase.certificates ?? []) {
        certificateSpecs.set(certificate.name, certificate);
        issued.set(certificate.name, await ca.issue({ dnsNames: certificate.hosts }));
      }
      const secrets = [...certificateSpecs.values()].map((c) => secretOf(c, issued));
      if (phase.objects !== undefined) objects = phase.objects;
      const before = stack !== undefined && phase.unchangedStats ? await stack.envoy.stats() : undefined;

      await writeManifest(tmp.path, 'backends.yaml', [...(spec.noDefaultClass ? [] : [ingressClass()]), ...backends.objects]);
      await writeManifest(tmp.path, 'secrets.yaml', secrets);
      await writeManifest(tmp.path, 'objects.yaml', objects);
      if (stack === undefined) {
        stack = await startStack(t, { manifestsDir: tmp.path, ...(spec.options ? { translate: spec.options } : {}) });
        await stack.envoy.waitForListener('ingress_http');
      }
      const running = stack;
      const serials = new Map([...issued].map(([name, c]) => [name, c.serialNumber]));

      const agentFor = (row: RequestRow): HttpsAgent | undefined => {
        if (row.connection === undefined) return undefined;
        let agent = agents.get(row.connection);
        if (agent === undefined) {
          agent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
          agents.set(row.connection, agent);
        }
        return agent;
      };
      const check = async (): Promise<string[]> => {
        const outcomes = await inBatches(
          phase.requests.map((row) => () => send(running, ca, row, agentFor(row))),
          8,
        );
        return phase.requests.flatMap((row, i) => {
          const problem = mismatch(row, outcomes[i] as Outcome, running, serials, connections);
          return problem === undefined ? [] : [`${describeRow(row)}: ${problem}`];
        });
      };
      // The controller applies the files and Envoy the config in a moment: wait for the whole table to agree,
      // then check it once more for the record.
      let failures: string[] = [];
      await waitFor(
        async () => {
          failures = await check();
          return failures.length === 0 && diagnosticsMissing(running, phase.diagnostics ?? []).length === 0;
        },
        { timeoutMs: 20_000, intervalMs: 200, description: `${file} ${label}` },
      ).catch(() => undefined);
      t.deepEqual(failures, [], `${file} ${label}: rows that do not hold`);
      t.deepEqual(diagnosticsMissing(running, phase.diagnostics ?? []), [], `${file} ${label}: diagnostics missing`);
      // Record which connection each keep-alive label used, for `sameConnection` rows of later phases.
      for (const row of phase.requests) {
        if (row.connection === undefined || row.sameConnection) continue;
        const outcome = await send(running, ca, row, agentFor(row));
        if (outcome.localPort !== undefined) connections.set(row.connection, outcome.localPort);
      }
      if (before !== undefined) {
        const after = await running.envoy.stats();
        for (const stat of phase.unchangedStats ?? []) {
          t.is(after[stat] ?? 0, before[stat] ?? 0, `${file} ${label}: ${stat} moved`);
        }
      }
      // Envoy accepted every update it was sent: no xDS type was NACKed.
      const rejected = Object.entries(await running.envoy.stats('update_rejected')).filter(([, n]) => n > 0);
      t.deepEqual(rejected, [], `${file} ${label}: Envoy rejected config`);
      t.log(`${label}: ${phase.requests.length} requests as expected`);
    }
  });
}

test('there are semantics cases', (t) => {
  t.true(semanticsCaseFiles.length >= 5, `only ${semanticsCaseFiles.length} case files in ${semanticsCasesDir}`);
});
