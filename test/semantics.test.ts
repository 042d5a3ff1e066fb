// The Ingress semantics table, end to end: every test/semantics/*.yaml case file is one test that starts echo
// backends for its Services, writes its objects as manifests, runs the real controller (standalone mode) and a
// real Envoy, sends every request of the table (Host, SNI, path) and checks which Service answered, or the
// status. Later phases of a case rewrite the objects (class changes, certificate rotation) and check again.
// The case format is described in test/semantics/README.md.
import { Agent as HttpsAgent } from 'node:https';
import test from 'ava';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type IssuedCertificate } from './harness/test-certs.js';
import { waitFor } from './harness/wait.js';
import { startStack, type Stack } from './fixtures/standalone-stack.js';
import { ingressClass } from './fixtures/manifests.js';
import { bodyMismatch, expectMismatch, inBatches, rejectedUpdates, send, startBackends, writeManifest, type Outcome } from './fixtures/table-requests.js';
import {
  phasesOf,
  readCaseFile,
  secretOf,
  semanticsCaseFiles,
  semanticsCasesDir,
  type CertificateSpec,
  type DiagnosticSpec,
  type RequestRow,
} from './fixtures/semantics-cases.js';

/** What is wrong with an outcome, or undefined when it is what the row expects. */
function mismatch(
  row: RequestRow,
  outcome: Outcome,
  stack: Stack,
  serials: ReadonlyMap<string, string>,
  connections: Map<string, number>,
): string | undefined {
  const problems: string[] = [];
  const wrongAnswer = expectMismatch(row.expect, outcome);
  if (wrongAnswer !== undefined) problems.push(wrongAnswer);
  if (row.location !== undefined) {
    const expected = row.location.replace('{httpsPort}', String(stack.httpsPort));
    if (outcome.location !== expected) problems.push(`location ${outcome.location ?? 'none'}, expected ${expected}`);
  }
  if (row.certificate !== undefined && outcome.serial !== serials.get(row.certificate)) {
    problems.push(`certificate serial ${outcome.serial ?? 'none'}, expected ${row.certificate}'s latest`);
  }
  const wrongBody = bodyMismatch(row.body, outcome);
  if (wrongBody !== undefined) problems.push(wrongBody);
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
      t.deepEqual(await rejectedUpdates(running), [], `${file} ${label}: Envoy rejected config`);
      t.log(`${label}: ${phase.requests.length} requests as expected`);
    }
  });
}

test('there are semantics cases', (t) => {
  t.true(semanticsCaseFiles.length >= 5, `only ${semanticsCaseFiles.length} case files in ${semanticsCasesDir}`);
});
