// Equivalence of `envoy-ingress migrate`, measured: every row of the ingress-nginx parity tables
// (test/nginx-parity/*.yaml) is sent through the real Envoy twice, (a) to the original Ingresses and (b) to the
// Gateway API objects `migrate` wrote, served by their own controller from the output directory (standalone,
// the Gateway's listener ports bound on the listen address). A row must give the same answer on both, or be on a
// path the migration report calls `different`: a row that differs where the report says `same` fails the test.
// Each table logs its totals (rows same / differing, and how many of those the report names); the docs page
// "Moving to the Gateway API" shows them.
import path from 'node:path';
import test from 'ava';
import { defaultEdgeHardening } from '../envoy/edge-hardening.js';
import { runMigrate } from '../cli/migrate-command.js';
import { defaultTranslateOptions } from '../controller/translate/shared/options.js';
import type { GatewayMigrationReport, ReportedPath } from '../controller/translate/migrate/gateway-migration-report.js';
import { createTempDir } from './harness/temp-dir.js';
import { createTestCA, type IssuedCertificate } from './harness/test-certs.js';
import { limiter } from './harness/limiter.js';
import { waitFor } from './harness/wait.js';
import { ingressClass } from './fixtures/manifests.js';
import { describeRow, nginxConfigMapRef, parityTableFiles, readParityTable, rowMismatch, rowsByConfigMap, type ParityRow } from './fixtures/nginx-parity-tables.js';
import { phasesOf, readCaseFile, secretOf, semanticsCaseFiles, type CaseFile, type CertificateSpec, type RequestRow } from './fixtures/semantics-cases.js';
import { freePort, startStack, type Stack } from './fixtures/standalone-stack.js';
import { bodyMismatch, expectMismatch, inBatches, send, startBackends, writeManifest, type Outcome } from './fixtures/table-requests.js';
import { sendRows, withListenerPorts } from './fixtures/parity-rows.js';

// Two controllers and two Envoys per table: a few tables at a time on a small machine.
const oneAtATime = limiter(Number(process.env['MIGRATE_EQUIVALENCE_CONCURRENCY'] ?? 3));

/** The report's paths a request to `host` + `requestPath` may have reached (the host's, or the catch-all's). */
export function reportedPathsFor(report: GatewayMigrationReport, host: string, requestPath: string): ReportedPath[] {
  const bare = host.replace(/:\d+$/, '').toLowerCase();
  const all = report.ingresses.flatMap((i) => i.paths);
  const wildcard = (h: string): boolean => h.startsWith('*.') && bare.endsWith(h.slice(1));
  // from-to-www-redirect answers the other name of a host.
  const www = bare.startsWith('www.') ? bare.slice(4) : `www.${bare}`;
  let forHost = all.filter((p) => p.host === bare || (p.aliases ?? []).includes(bare));
  if (forHost.length === 0) forHost = all.filter((p) => p.host === www);
  if (forHost.length === 0) forHost = all.filter((p) => wildcard(p.host));
  if (forHost.length === 0) forHost = all.filter((p) => p.host === '*');
  // A host no path names gets what applies to every request.
  if (forHost.length === 0 && (report.differences ?? []).length > 0) return [{ host: bare, path: requestPath, pathType: 'any', result: 'different', differences: report.differences ?? [] }];
  const pathOnly = requestPath.split('?')[0] ?? '/';
  const prefixed = forHost.filter((p) => pathOnly.toLowerCase().startsWith(p.path.toLowerCase().replace(/[[(.*+?^$].*$/, '')));
  return prefixed.length > 0 ? prefixed : forHost;
}

interface RowResult {
  row: ParityRow;
  baseline?: string;
  migrated?: string;
  named: boolean;
}

for (const file of parityTableFiles) {
  const table = readParityTable(file);
  test(`${file}: ${table.title}`, async (t) => {
    // Waiting for a turn counts too: the table's own time starts when it runs.
    t.timeout(1_800_000);
    await oneAtATime(async () => {
      t.timeout(300_000);
      const original = await createTempDir('migrate-eq-in-');
      const migrated = await createTempDir('migrate-eq-out-');
      t.teardown(() => original.remove());
      t.teardown(() => migrated.remove());
      const ca = await createTestCA();
      // As test/nginx-parity.test.ts: client certificates that do not verify come from a CA nothing trusts.
      const untrusted = await createTestCA({ commonName: 'untrusted test CA' });
      const issued = new Map<string, IssuedCertificate>();
      for (const certificate of table.certificates ?? []) {
        const issuer = certificate.untrusted === true ? untrusted : ca;
        const extra = { ...(certificate.clientAuth === true ? { clientAuth: true } : {}), ...(certificate.commonName === undefined ? {} : { commonName: certificate.commonName }) };
        issued.set(certificate.name, await issuer.issue({ dnsNames: certificate.hosts, ...extra }));
      }
      const backends = await startBackends(t, table.services, { issued, ca });
      const secrets = (table.certificates ?? []).map((c) => secretOf(c, issued, ca.certPem));
      await writeManifest(original.path, 'backends.yaml', [ingressClass('nginx', true), ...backends.objects]);
      await writeManifest(original.path, 'objects.yaml', [...secrets, ...table.objects]);
      const groups = rowsByConfigMap(table);
      const usesConfigMap = groups[0]?.data !== undefined;
      const writeConfigMap = async (data: Record<string, string>): Promise<void> => {
        const configMap = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...nginxConfigMapRef }, data }];
        await writeManifest(original.path, 'nginx-configmap.yaml', configMap);
        await writeManifest(migrated.path, 'nginx-configmap.yaml', configMap);
      };
      if (usesConfigMap) await writeManifest(original.path, 'nginx-configmap.yaml', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...nginxConfigMapRef }, data: groups[0]!.data! }]);

      // migrate, with the Gateway's listeners on ports of their own; https redirects name no port (443), as the
      // original's do in the parity runner.
      const gatewayHttp = await freePort();
      const gatewayHttps = await freePort();
      const migrate = (): ReturnType<typeof runMigrate> =>
        runMigrate({
          manifests: original.path,
          out: migrated.path,
          httpPort: gatewayHttp,
          httpsPort: gatewayHttps,
          httpsRedirectPort: 443,
          classes: { ingressClassName: defaultTranslateOptions.ingressClassName, controllerName: defaultTranslateOptions.controllerName, nginxAnnotations: true },
          ...(usesConfigMap ? { nginxConfigmap: `${nginxConfigMapRef.namespace}/${nginxConfigMapRef.name}` } : {}),
        });
      let { report, output } = await migrate();

      const translate = { nginxAnnotations: true, ...table.options, ...(usesConfigMap ? { nginxConfigMap: { ...nginxConfigMapRef } } : {}) };
      const edge = table.edge === undefined ? {} : { edge: { ...defaultEdgeHardening, ...table.edge } };
      const before = await startStack(t, { manifestsDir: original.path, httpsRedirectPort: 443, translate, ...edge });
      const after = await startStack(t, { manifestsDir: migrated.path, httpsRedirectPort: 443, translate, ...edge });
      await before.envoy.waitForListener('ingress_http');
      if (report.ingresses.length > 0) await after.envoy.waitForListener(`gateway/http/${gatewayHttp}`);
      // Requests to the migrated configuration go to the Gateway's listeners.
      const gateway: Stack = { ...after, httpPort: gatewayHttp, httpsPort: gatewayHttps };

      const results: RowResult[] = [];
      for (const [i, group] of groups.entries()) {
        if (i > 0 && group.data !== undefined) {
          // migrate again under the new ConfigMap (the report names its settings); the copy carries it over.
          await writeConfigMap(group.data);
          ({ report, output } = await migrate());
        }
        const check = async (): Promise<RowResult[]> => {
          const [a, b] = await Promise.all([sendRows(before, ca, group.rows, issued), sendRows(gateway, ca, group.rows, issued)]);
          return group.rows.map((row, k): RowResult => {
            const baseline = rowMismatch(withListenerPorts(row, before), a[k] as Outcome[]);
            const migratedProblem = rowMismatch(withListenerPorts(row, gateway), b[k] as Outcome[]);
            const named = reportedPathsFor(report, row.host, row.path).some((p) => p.result === 'different');
            return { row, ...(baseline === undefined ? {} : { baseline }), ...(migratedProblem === undefined ? {} : { migrated: migratedProblem }), named };
          });
        };
        // Both controllers apply the files in a moment: wait until the rows agree (or stop changing), then record.
        let last = '';
        let rows: RowResult[] = [];
        await waitFor(
          async () => {
            rows = await check();
            const key = rows.map((r) => `${r.baseline !== undefined}${r.migrated !== undefined}`).join();
            const settled = rows.every((r) => r.baseline === undefined && r.migrated === undefined) || key === last;
            last = key;
            return settled;
          },
          { timeoutMs: 20_000, intervalMs: 500, description: file },
        ).catch(() => undefined);
        results.push(...(await check()));
      }

      const counted = results.filter((r) => r.baseline === undefined);
      const same = counted.filter((r) => r.migrated === undefined);
      const differing = counted.filter((r) => r.migrated !== undefined);
      const unnamed = differing.filter((r) => !r.named);
      t.log(`TOTALS ${path.basename(file, '.yaml')}: ${counted.length} rows, ${same.length} same, ${differing.length} differing (${differing.length - unnamed.length} named by the report)`);
      for (const r of differing) t.log(`  ${r.named ? 'named' : 'UNNAMED'} ${describeRow(r.row)}: ${r.migrated}`);
      if (!t.passed || unnamed.length > 0) t.log(output);
      // The original must answer as the parity table says (test/nginx-parity.test.ts checks it too).
      t.deepEqual(results.filter((r) => r.baseline !== undefined).map((r) => `${describeRow(r.row)}: ${r.baseline}`), [], `${file}: the original Ingresses do not answer as the table says`);
      t.deepEqual(unnamed.map((r) => `${describeRow(r.row)}: ${r.migrated}`), [], `${file}: rows that differ after migration on paths the report calls same`);
    });
  });
}

// The Ingress semantics tables (test/semantics/*.yaml; without the nginx layer): each phase is migrated on its own
// and its rows sent to both configurations.
function semanticsMismatch(row: RequestRow, outcome: Outcome, stack: Stack, serials: ReadonlyMap<string, string>): string | undefined {
  const problems: string[] = [];
  const wrong = expectMismatch(row.expect, outcome);
  if (wrong !== undefined) problems.push(wrong);
  if (row.location !== undefined) {
    const expected = row.location.replace('{httpsPort}', String(stack.httpsPort));
    if (outcome.location !== expected) problems.push(`location ${outcome.location ?? 'none'}, expected ${expected}`);
  }
  if (row.certificate !== undefined && outcome.serial !== serials.get(row.certificate)) problems.push(`certificate serial ${outcome.serial ?? 'none'}, expected ${row.certificate}'s latest`);
  const body = bodyMismatch(row.body, outcome);
  if (body !== undefined) problems.push(body);
  return problems.length === 0 ? undefined : outcome.error ? `${problems.join('; ')} (${outcome.error})` : problems.join('; ');
}

function describeSemanticsRow(row: RequestRow): string {
  return `${row.scheme ?? 'http'}://${row.host}${row.path} -> ${row.expect}${row.note ? ` (${row.note})` : ''}`;
}

/** Tables with certificates are replayed once more with `migrate --listener-sets`: the TLS hosts' HTTPS listeners in
 * ListenerSets of their certificates' namespaces, the Gateway in a namespace of its own. */
const usesCertificates = (spec: CaseFile): boolean => phasesOf(spec).some((p) => (p.certificates ?? []).length > 0);

for (const file of semanticsCaseFiles) {
  const spec = readCaseFile(file);
  for (const listenerSets of usesCertificates(spec) ? [false, true] : [false]) {
  const variant = listenerSets ? ' --listener-sets' : '';
  test(`semantics ${file}${variant}: ${spec.title}`, async (t) => {
    // Waiting for a turn counts too: the table's own time starts when it runs.
    t.timeout(1_800_000);
    await oneAtATime(async () => {
      t.timeout(300_000);
      const original = await createTempDir('migrate-eq-in-');
      const migrated = await createTempDir('migrate-eq-out-');
      t.teardown(() => original.remove());
      t.teardown(() => migrated.remove());
      const ca = await createTestCA();
      const backends = await startBackends(t, spec.services);
      const issued = new Map<string, IssuedCertificate>();
      const certificateSpecs = new Map<string, CertificateSpec>();
      const gatewayHttp = await freePort();
      const gatewayHttps = await freePort();
      let objects: object[] = [];
      let before: Stack | undefined;
      let after: Stack | undefined;
      const totals = { rows: 0, same: 0, named: 0 };
      let listenerSetsWritten = 0;
      const unnamed: string[] = [];
      const baselineFailures: string[] = [];
      for (const [index, phase] of phasesOf(spec).entries()) {
        for (const certificate of phase.certificates ?? []) {
          certificateSpecs.set(certificate.name, certificate);
          issued.set(certificate.name, await ca.issue({ dnsNames: certificate.hosts }));
        }
        const secrets = [...certificateSpecs.values()].map((c) => secretOf(c, issued));
        if (phase.objects !== undefined) objects = phase.objects;
        await writeManifest(original.path, 'backends.yaml', [...(spec.noDefaultClass ? [] : [ingressClass()]), ...backends.objects]);
        await writeManifest(original.path, 'secrets.yaml', secrets);
        await writeManifest(original.path, 'objects.yaml', objects);
        const { report, output } = await runMigrate({
          manifests: original.path,
          out: migrated.path,
          httpPort: gatewayHttp,
          httpsPort: gatewayHttps,
          ...(listenerSets ? { listenerSets: true, gatewayNamespace: 'gateways' } : {}),
          classes: {
            ingressClassName: defaultTranslateOptions.ingressClassName,
            controllerName: defaultTranslateOptions.controllerName,
            ...(spec.options?.defaultBackendNamespace === undefined ? {} : { defaultBackendNamespace: spec.options.defaultBackendNamespace }),
            ...(spec.options?.allowCrossNamespaceHosts === true ? { allowCrossNamespaceHosts: true } : {}),
          },
        });
        listenerSetsWritten += report.summary.written['ListenerSet'] ?? 0;
        if (before === undefined || after === undefined) {
          before = await startStack(t, { manifestsDir: original.path, ...(spec.options ? { translate: spec.options } : {}) });
          after = await startStack(t, { manifestsDir: migrated.path, ...(spec.options ? { translate: spec.options } : {}) });
          await before.envoy.waitForListener('ingress_http');
        }
        if (report.ingresses.length > 0) await after.envoy.waitForListener(`gateway/http/${gatewayHttp}`);
        const a = before;
        const gateway: Stack = { ...after, httpPort: gatewayHttp, httpsPort: gatewayHttps };
        const serials = new Map([...issued].map(([name, c]) => [name, c.serialNumber]));
        const check = async (): Promise<{ row: RequestRow; baseline?: string; migrated?: string }[]> => {
          const [outA, outB] = await Promise.all([
            inBatches(phase.requests.map((row) => () => send(a, ca, row)), 8),
            inBatches(phase.requests.map((row) => () => send(gateway, ca, row)), 8),
          ]);
          return phase.requests.map((row, k) => {
            const baseline = semanticsMismatch(row, outA[k] as Outcome, a, serials);
            const migratedProblem = semanticsMismatch(row, outB[k] as Outcome, gateway, serials);
            return { row, ...(baseline === undefined ? {} : { baseline }), ...(migratedProblem === undefined ? {} : { migrated: migratedProblem }) };
          });
        };
        let last = '';
        await waitFor(
          async () => {
            const rows = await check();
            const key = rows.map((r) => `${r.baseline !== undefined}${r.migrated !== undefined}`).join();
            const settled = rows.every((r) => r.baseline === undefined && r.migrated === undefined) || key === last;
            last = key;
            return settled;
          },
          { timeoutMs: 20_000, intervalMs: 500, description: `${file} phase ${index}` },
        ).catch(() => undefined);
        for (const r of await check()) {
          if (r.baseline !== undefined) {
            baselineFailures.push(`phase ${index} ${describeSemanticsRow(r.row)}: ${r.baseline}`);
            continue;
          }
          totals.rows += 1;
          if (r.migrated === undefined) {
            totals.same += 1;
            continue;
          }
          const named = reportedPathsFor(report, r.row.host, r.row.path).some((p) => p.result === 'different');
          if (named) totals.named += 1;
          else unnamed.push(`phase ${index} ${describeSemanticsRow(r.row)}: ${r.migrated}`);
          t.log(`  ${named ? 'named' : 'UNNAMED'} phase ${index} ${describeSemanticsRow(r.row)}: ${r.migrated}`);
        }
        if (unnamed.length > 0) t.log(output);
      }
      t.log(`TOTALS semantics/${path.basename(file, '.yaml')}${variant}: ${totals.rows} rows, ${totals.same} same, ${totals.rows - totals.same} differing (${totals.named} named by the report)`);
      t.deepEqual(baselineFailures, [], `${file}: the original Ingresses do not answer as the table says`);
      t.deepEqual(unnamed, [], `${file}: rows that differ after migration on paths the report calls same`);
      if (listenerSets) t.true(listenerSetsWritten > 0, `${file}: --listener-sets wrote no ListenerSet`);
    });
  });
  }
}
